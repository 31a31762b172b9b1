#include "infra/histogram.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* Bits of a double: 1 sign, 11 exponent (bias 1023), 52 mantissa. */
#define MANTISSA_BITS 52
#define EXPONENT_BIAS 1023

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
    /* For a positive double, exponent and top mantissa bits read as one
     * integer are octave * HIST_SUB + sub-bucket: equal-width sub-buckets
     * of each power of two, monotone in the value. */
    uint64_t bits;
    memcpy(&bits, &value, sizeof(bits));
    int64_t key = (int64_t)(bits >> (MANTISSA_BITS - HIST_SUB_BITS)) -
                  ((int64_t)(EXPONENT_BIAS + HIST_LOW_EXP) << HIST_SUB_BITS);
    if (key < 0)
        return 0;
    if (key >= (int64_t)HIST_OCTAVES * HIST_SUB)
        return HIST_BUCKETS - 1;
    return 1 + (int)key;
}

void hist_bucket_edges(int b, double *lower, double *upper)
{
    if (b <= 0) {
        *lower = 0.0;
        *upper = ldexp(1.0, HIST_LOW_EXP);
        return;
    }
    if (b >= HIST_BUCKETS - 1) {
        *lower = ldexp(1.0, HIST_HIGH_EXP);
        *upper = INFINITY;
        return;
    }
    int e = HIST_LOW_EXP + (b - 1) / HIST_SUB;
    int sub = (b - 1) % HIST_SUB;
    *lower = ldexp(1.0 + (double)sub / HIST_SUB, e);
    *upper = ldexp(1.0 + (double)(sub + 1) / HIST_SUB, e);
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

/* The j-th smallest (1 <= j <= n) of the n samples in in-range bucket b.
 * The min and the max are samples we know exactly: when the bucket holds
 * one of them, it is its first or last sample and narrows the bucket.
 * The other samples are taken as spread evenly over what is left, the
 * i-th of u at the expected place of the i-th of u uniform values,
 * lo + (hi - lo) i / (u + 1). The result stays inside the bucket (so
 * within HIST_MAX_RELATIVE_ERROR of the exact sample) and inside
 * [min, max]; for smooth data it is much closer than the midpoint. */
static double value_in_bucket(const hist_t *h, int b, double j, double n)
{
    double lo, hi;
    hist_bucket_edges(b, &lo, &hi);
    int has_min = h->min >= lo && h->min < hi;
    int has_max = h->max >= lo && h->max < hi;
    if (has_min && j == 1.0)
        return h->min;
    if (has_max && j == n)
        return h->max;
    if (has_min)
        lo = h->min;
    if (has_max)
        hi = h->max;
    double u = n - has_min - has_max;
    double i = j - has_min;
    return lo + (hi - lo) * (i / (u + 1.0));
}

double hist_kth(const hist_t *h, double k, int from_high)
{
    if (h->count <= 0.0)
        return NAN;
    k = floor(k);
    if (k < 1.0)
        k = 1.0;
    if (k > h->count)
        k = h->count;
    if (from_high)
        k = h->count + 1.0 - k; /* the k-th largest is this k-th smallest */
    double below = 0.0;
    for (int b = 0; b < HIST_BUCKETS; b++) {
        double n = h->bins[b];
        if (below + n >= k) {
            /* Out of range: only the extreme seen is known. */
            if (b == 0)
                return h->min;
            if (b == HIST_BUCKETS - 1)
                return h->max;
            return value_in_bucket(h, b, k - below, n);
        }
        below += n;
    }
    return h->max;
}

double hist_tail(const hist_t *h, double q, int higher_is_better)
{
    /* Same counting rule as the reference: the floor(q N)-th sample counted
     * from the good end (the bucket where the running count first reaches
     * it). */
    double k = floor(q * h->count);
    return hist_kth(h, k, higher_is_better);
}

double hist_median(const hist_t *h)
{
    return hist_kth(h, floor(0.5 * h->count), 0);
}
