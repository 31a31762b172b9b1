#include "infra/histogram.h"

#include <math.h>

void hist_clear(hist_t *h)
{
    h->count = 0.0;
    h->sum = 0.0;
    h->min = INFINITY;
    h->max = -INFINITY;
    for (int b = 0; b < HIST_BUCKETS; b++)
        h->bins[b] = 0.0;
}

int hist_bucket_of(double value)
{
    if (!(value > 0.0))
        return 0; /* zero, negative, NaN: underflow */
    int e;
    double m = frexp(value, &e); /* value = m * 2^e, m in [0.5, 1) */
    if (e < HIST_EXP_MIN)
        return 0;
    if (e > HIST_EXP_MAX)
        return HIST_BUCKETS - 1;
    int sub = (int)((m - 0.5) * (2.0 * HIST_SUB));
    if (sub >= HIST_SUB)
        sub = HIST_SUB - 1;
    return 1 + (e - HIST_EXP_MIN) * HIST_SUB + sub;
}

void hist_bucket_edges(int b, double *lower, double *upper)
{
    if (b <= 0) {
        *lower = 0.0;
        *upper = ldexp(0.5, HIST_EXP_MIN);
        return;
    }
    if (b >= HIST_BUCKETS - 1) {
        *lower = ldexp(0.5, HIST_EXP_MAX + 1);
        *upper = INFINITY;
        return;
    }
    int e = HIST_EXP_MIN + (b - 1) / HIST_SUB;
    int sub = (b - 1) % HIST_SUB;
    *lower = ldexp(0.5 + sub / (2.0 * HIST_SUB), e);
    *upper = ldexp(0.5 + (sub + 1) / (2.0 * HIST_SUB), e);
}

void hist_add(hist_t *h, double value)
{
    h->bins[hist_bucket_of(value)] += 1.0;
    h->count += 1.0;
    h->sum += value;
    if (value < h->min)
        h->min = value;
    if (value > h->max)
        h->max = value;
}

void hist_merge(hist_t *dst, const hist_t *src)
{
    dst->count += src->count;
    dst->sum += src->sum;
    if (src->min < dst->min)
        dst->min = src->min;
    if (src->max > dst->max)
        dst->max = src->max;
    for (int b = 0; b < HIST_BUCKETS; b++)
        dst->bins[b] += src->bins[b];
}

static double clamp_to_seen(const hist_t *h, double v)
{
    if (v < h->min)
        return h->min;
    if (v > h->max)
        return h->max;
    return v;
}

double hist_kth(const hist_t *h, double k, int from_high)
{
    if (h->count <= 0.0)
        return NAN;
    if (k < 1.0)
        k = 1.0;
    if (k > h->count)
        k = h->count;
    double seen = 0.0;
    for (int i = 0; i < HIST_BUCKETS; i++) {
        int b = from_high ? HIST_BUCKETS - 1 - i : i;
        seen += h->bins[b];
        if (seen >= k) {
            double lo, hi;
            hist_bucket_edges(b, &lo, &hi);
            if (b == 0)
                return h->min;
            if (b == HIST_BUCKETS - 1)
                return h->max;
            return clamp_to_seen(h, 0.5 * (lo + hi));
        }
    }
    return from_high ? h->min : h->max;
}

double hist_tail(const hist_t *h, double q, int higher_is_better)
{
    /* Same counting rule as the reference: the bucket where the running
     * count first reaches floor(q * N), walking from the good end. */
    double k = floor(q * h->count);
    return hist_kth(h, k, higher_is_better);
}

double hist_median(const hist_t *h)
{
    return hist_kth(h, floor(0.5 * h->count), 0);
}
