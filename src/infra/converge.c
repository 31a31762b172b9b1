#include "infra/converge.h"

#include <math.h>

void converge_init(converge_t *c, double tol, int higher_is_better)
{
    c->tol = tol;
    c->higher_is_better = higher_is_better;
    c->window = 100.0 / (1.0 - CONVERGE_QUANTILE);
    c->batches = 0;
    c->sum = c->sum_sq = 0.0;
    c->next_window = c->window;
    c->tail_prev = NAN;
    c->stable_windows = 0;
    c->avg_precision = INFINITY;
    c->tail_precision = INFINITY;
}

void converge_add_batch(converge_t *c, double batch_mean)
{
    c->batches++;
    c->sum += batch_mean;
    c->sum_sq += batch_mean * batch_mean;
    if (c->batches < 2)
        return;
    double b = (double)c->batches;
    double mean = c->sum / b;
    double var = (c->sum_sq - b * mean * mean) / (b - 1.0);
    if (var < 0.0)
        var = 0.0; /* rounding when all batches are equal */
    c->avg_precision = mean != 0.0 ? 1.96 * sqrt(var / b) / fabs(mean) : INFINITY;
}

void converge_check_tail(converge_t *c, const hist_t *h)
{
    if (h->count < c->next_window)
        return;
    /* A batch can hold more than one window's samples: the next window
     * starts where this one was noticed. */
    c->next_window = h->count + c->window;
    double tail = hist_tail(h, CONVERGE_QUANTILE, c->higher_is_better);
    if (!isnan(c->tail_prev) && c->tail_prev != 0.0) {
        c->tail_precision = fabs(tail - c->tail_prev) / fabs(c->tail_prev);
        c->stable_windows = c->tail_precision <= c->tol ? c->stable_windows + 1 : 0;
    }
    c->tail_prev = tail;
}

int converge_done(const converge_t *c)
{
    return c->batches >= CONVERGE_MIN_BATCHES && c->avg_precision <= c->tol &&
           c->stable_windows >= CONVERGE_STABLE_WINDOWS;
}
