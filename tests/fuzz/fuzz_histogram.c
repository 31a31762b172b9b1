/* Fuzz the bounded-error histogram with arbitrary samples: zero, negative,
 * subnormal, huge, infinite, NaN. Nothing may crash or index outside the
 * bins, counts must add up, merging must equal adding, every quantile of
 * clean (finite, non-negative) samples lies within the samples' range,
 * and every in-range sample lies in its bucket within the stated error. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_check.h"
#include "infra/histogram.h"

static hist_t a, b, all, merged;

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
        if (v >= ldexp(1.0, -40) && v < ldexp(1.0, 40)) {
            FUZZ_CHECK(bucket > 0 && bucket < HIST_BUCKETS - 1);
            FUZZ_CHECK(lo <= v && v < hi);
            FUZZ_CHECK((hi - lo) / lo <= 2.0 * HIST_MAX_RELATIVE_ERROR * (1.0 + 1e-12));
        }
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
            /* Walking from the good end, a larger q is never better. */
            if (!isnan(prev))
                FUZZ_CHECK(higher ? v <= prev : v >= prev);
            prev = v;
        }
        double m = hist_median(&all);
        FUZZ_CHECK(all.count == 0.0 ? isnan(m) : (!clean || quantile_ok(&all, m)));
    }
    return 0;
}
