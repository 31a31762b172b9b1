/* Fuzz the bounded-error histogram with arbitrary samples: zero, negative,
 * subnormal, huge, infinite, NaN. Nothing may crash or index outside the
 * bins, counts must add up, merging must equal adding, every quantile of
 * clean (finite, non-negative) samples lies within the samples' range
 * and, when the exact percentile (same counting rule, from the sorted
 * samples) is in range, within HIST_MAX_RELATIVE_ERROR of it; every
 * in-range sample lies in its bucket within the stated error. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "infra/histogram.h"

static hist_t a, b, all, merged;

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static int in_range(double v) { return v >= ldexp(1.0, HIST_LOW_EXP) && v < ldexp(1.0, HIST_HIGH_EXP); }

static double quantile_ok(const hist_t *h, double v)
{
    return isnan(v) || (v >= h->min && v <= h->max);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int clean = data[0] & 1; /* clean: only finite, non-negative samples */
    data++;
    size--;
    hist_clear(&a);
    hist_clear(&b);
    hist_clear(&all);
    size_t n = size / sizeof(double);
    double *sorted = malloc(sizeof(double) * (n + 1));
    size_t n_clean = 0;
    for (size_t i = 0; i < n; i++) {
        double v;
        memcpy(&v, data + i * sizeof(double), sizeof(double));
        if (clean) {
            if (!isfinite(v))
                continue;
            v = fabs(v);
        }
        int bucket = hist_bucket_of(v);
        FUZZ_CHECK(bucket >= 0 && bucket < HIST_BUCKETS);
        double lo, hi;
        hist_bucket_edges(bucket, &lo, &hi);
        if (in_range(v)) {
            FUZZ_CHECK(bucket > 0 && bucket < HIST_BUCKETS - 1);
            FUZZ_CHECK(lo <= v && v < hi);
            FUZZ_CHECK((hi - lo) / lo <= HIST_MAX_RELATIVE_ERROR * (1.0 + 1e-12));
        }
        if (clean)
            sorted[n_clean++] = v;
        hist_add((i & 1) ? &b : &a, v);
        hist_add(&all, v);
    }
    memcpy(&merged, &a, sizeof(merged));
    hist_merge(&merged, &b);
    FUZZ_CHECK(merged.count == all.count);
    double total = 0.0;
    for (int i = 0; i < HIST_BUCKETS; i++) {
        FUZZ_CHECK(merged.bins[i] == all.bins[i]);
        total += all.bins[i];
    }
    FUZZ_CHECK(total == all.count);

    qsort(sorted, n_clean, sizeof(double), cmp_double);
    const double qs[] = {0.001, 0.01, 0.5, 0.99, 0.999};
    for (int higher = 0; higher <= 1; higher++) {
        double prev = NAN;
        for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
            double v = hist_tail(&all, qs[i], higher);
            if (all.count == 0.0) {
                FUZZ_CHECK(isnan(v));
                continue;
            }
            if (!clean)
                continue;
            FUZZ_CHECK(quantile_ok(&all, v));
            long k = (long)floor(qs[i] * (double)n_clean);
            if (k < 1)
                k = 1;
            double exact = higher ? sorted[n_clean - (size_t)k] : sorted[k - 1];
            if (in_range(exact))
                FUZZ_CHECK(fabs(v - exact) <= HIST_MAX_RELATIVE_ERROR * exact);
            /* Walking from the good end, a larger q is never better. */
            if (!isnan(prev))
                FUZZ_CHECK(higher ? v <= prev : v >= prev);
            prev = v;
        }
        double m = hist_median(&all);
        FUZZ_CHECK(all.count == 0.0 ? isnan(m) : (!clean || quantile_ok(&all, m)));
    }
    free(sorted);
    return 0;
}
