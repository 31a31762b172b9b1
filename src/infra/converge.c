#include "infra/converge.h"

#include <math.h>
#include <string.h>

#define GRID_BUCKETS (CONVERGE_CELLS * CONVERGE_CELL_BUCKETS)
#define MAX_LAG1 0.9 /* caps the correction at (1 + 0.9) / (1 - 0.9) = 19 */

void converge_init(converge_t *c, double tol, int higher_is_better)
{
    memset(c, 0, sizeof(*c));
    c->tol = tol;
    c->higher_is_better = higher_is_better;
    c->grid_lo = -1;
    c->avg_precision = INFINITY;
    c->tail_precision = INFINITY;
}

double converge_t975(int df)
{
    if (df < 1)
        return INFINITY;
    /* Cornish-Fisher expansion around the normal 1.959964: within 0.2% of
     * the exact value for df >= 5 (the rule uses df >= 15). */
    double z = 1.959964, z3 = z * z * z, z5 = z3 * z * z, n = (double)df;
    return z + (z3 + z) / (4.0 * n) + (5.0 * z5 + 16.0 * z3 + 3.0 * z) / (96.0 * n * n);
}

/* Where the grid starts so that bucket b is in its middle. */
static int grid_around(int b)
{
    int lo = b - GRID_BUCKETS / 2;
    if (lo > HIST_BUCKETS - GRID_BUCKETS)
        lo = HIST_BUCKETS - GRID_BUCKETS;
    return lo < 0 ? 0 : lo;
}

/* The histogram's counts below the grid, in each cell and above it. */
static void grid_counts(const hist_t *h, int lo, double *out)
{
    double in_grid = 0.0, above = 0.0;
    for (int cell = 0; cell < CONVERGE_CELLS; cell++) {
        double s = 0.0;
        const double *bins = h->bins + lo + cell * CONVERGE_CELL_BUCKETS;
        for (int i = 0; i < CONVERGE_CELL_BUCKETS; i++)
            s += bins[i];
        out[1 + cell] = s;
        in_grid += s;
    }
    int top = hist_bucket_of(h->max); /* the highest bucket in use */
    for (int b = lo + GRID_BUCKETS; b <= top; b++)
        above += h->bins[b];
    out[CONVERGE_COUNTS - 1] = above;
    out[0] = h->count - in_grid - above;
}

static void restart(converge_t *c, const hist_t *h, int bucket)
{
    c->grid_lo = grid_around(bucket);
    grid_counts(h, c->grid_lo, c->prev);
    c->per_batch = 0;
    c->measurements = 0;
    c->batches = 0;
    c->open_measurements = 0;
    memset(&c->open, 0, sizeof(c->open));
    c->avg_precision = c->tail_precision = INFINITY;
}

static void merge_pairs(converge_t *c)
{
    for (int i = 0; i < c->batches / 2; i++) {
        /* m is a itself when i == 0: every field is read before written. */
        const converge_batch_t *a = &c->batch[2 * i], *b = &c->batch[2 * i + 1];
        converge_batch_t *m = &c->batch[i];
        m->mean = 0.5 * (a->mean + b->mean);
        m->samples = a->samples + b->samples;
        for (int k = 0; k < CONVERGE_COUNTS; k++)
            m->counts[k] = a->counts[k] + b->counts[k];
    }
    c->batches /= 2;
    c->per_batch *= 2;
}

/* Variance of the mean of x[0..b) estimated from its batches, with the
 * lag-1 correction (never below the independent value). */
static double var_of_mean(const double *x, int b, double *mean_out)
{
    double mean = 0.0, ss = 0.0, lag = 0.0;
    for (int i = 0; i < b; i++)
        mean += x[i];
    mean /= b;
    for (int i = 0; i < b; i++) {
        ss += (x[i] - mean) * (x[i] - mean);
        if (i + 1 < b)
            lag += (x[i] - mean) * (x[i + 1] - mean);
    }
    double r1 = ss > 0.0 ? lag / ss : 0.0;
    if (r1 > MAX_LAG1)
        r1 = MAX_LAG1;
    double inflate = r1 > 0.0 ? (1.0 + r1) / (1.0 - r1) : 1.0;
    *mean_out = mean;
    return ss / (b - 1) / b * inflate;
}

/* Samples of batch i beyond grid edge j on the bad side (edge j: the lower
 * edge of cell j; j = CONVERGE_CELLS is the top of the grid). */
static double beyond(const converge_t *c, const double *counts, int j)
{
    double s = 0.0;
    if (c->higher_is_better) {
        for (int k = 0; k <= j; k++) /* below the grid, then cells 0..j-1 */
            s += counts[k];
    } else {
        for (int k = 1 + j; k < CONVERGE_COUNTS; k++)
            s += counts[k];
    }
    return s;
}

static void update_precision(converge_t *c, const hist_t *h)
{
    int b = c->batches;
    double t = converge_t975(b - 1), x[CONVERGE_MAX_BATCHES], mean;
    for (int i = 0; i < b; i++)
        x[i] = c->batch[i].mean;
    double var = var_of_mean(x, b, &mean);
    c->avg_precision = mean != 0.0 ? t * sqrt(var) / fabs(mean) : INFINITY;

    /* The grid edge where the fraction beyond is nearest 1 - 0.99. */
    const double p = 1.0 - CONVERGE_QUANTILE;
    double n = 0.0, total[CONVERGE_COUNTS] = {0};
    for (int i = 0; i < b; i++) {
        n += c->batch[i].samples;
        for (int k = 0; k < CONVERGE_COUNTS; k++)
            total[k] += c->batch[i].counts[k];
    }
    int edge = 0;
    double best = INFINITY;
    for (int j = 0; j <= CONVERGE_CELLS; j++) {
        double d = fabs(beyond(c, total, j) / n - p);
        if (d < best) {
            best = d;
            edge = j;
        }
    }
    double frac = beyond(c, total, edge) / n, inflation = 1.0;
    if (frac > 0.0 && frac < 1.0) {
        for (int i = 0; i < b; i++)
            x[i] = beyond(c, c->batch[i].counts, edge) / c->batch[i].samples;
        double v = var_of_mean(x, b, &mean) / (frac * (1.0 - frac) / n);
        inflation = v > 1.0 ? v : 1.0;
    }
    double se = sqrt(inflation * p * (1.0 - p) / n);
    double first = 1.0 / h->count;
    double lo = CONVERGE_QUANTILE - t * se, hi = CONVERGE_QUANTILE + t * se;
    lo = lo < first ? first : lo;
    hi = hi > 1.0 ? 1.0 : hi;
    double q = hist_tail(h, CONVERGE_QUANTILE, c->higher_is_better);
    double v_lo = hist_tail(h, lo, c->higher_is_better);
    double v_hi = hist_tail(h, hi, c->higher_is_better);
    double half = fmax(fabs(v_hi - q), fabs(q - v_lo));
    c->tail_precision = q != 0.0 ? half / fabs(q) : INFINITY;
}

void converge_add_measurement(converge_t *c, double measurement_mean, const hist_t *h)
{
    if (h->count <= 0.0)
        return;
    int qb = hist_bucket_of(hist_tail(h, CONVERGE_QUANTILE, c->higher_is_better));
    if (c->grid_lo < 0 || qb < c->grid_lo + GRID_BUCKETS / 4 ||
        qb >= c->grid_lo + 3 * GRID_BUCKETS / 4) {
        /* First measurement, or the 99% moved by 2x: start over around it
         * (this measurement only sets the grid). */
        restart(c, h, qb);
        return;
    }
    double now[CONVERGE_COUNTS], samples = 0.0;
    grid_counts(h, c->grid_lo, now);
    for (int k = 0; k < CONVERGE_COUNTS; k++) {
        double d = now[k] - c->prev[k];
        c->open.counts[k] += d;
        samples += d;
        c->prev[k] = now[k];
    }
    if (c->per_batch == 0) /* enough measurements for CONVERGE_BATCH_SAMPLES */
        c->per_batch = samples >= CONVERGE_BATCH_SAMPLES
                           ? 1
                           : (long)ceil(CONVERGE_BATCH_SAMPLES / fmax(samples, 1.0));
    c->measurements++;
    c->open.mean += measurement_mean;
    c->open.samples += samples;
    if (++c->open_measurements < c->per_batch)
        return;
    c->open.mean /= (double)c->per_batch;
    c->batch[c->batches++] = c->open;
    memset(&c->open, 0, sizeof(c->open));
    c->open_measurements = 0;
    if (c->batches == CONVERGE_MAX_BATCHES)
        merge_pairs(c);
    if (c->batches >= CONVERGE_MIN_BATCHES)
        update_precision(c, h);
}

int converge_done(const converge_t *c)
{
    return c->batches >= CONVERGE_MIN_BATCHES && c->avg_precision <= c->tol &&
           c->tail_precision <= c->tol;
}
