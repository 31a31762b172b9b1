/* Histogram percentiles against exact percentiles of the same data. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "infra/histogram.h"
#include "infra/rng.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double uniform01(rng_t *r) { return (double)(rng_next(r) >> 11) * 0x1.0p-53; }

/* Exact value with the reference's counting rule: the floor(q N)-th sample
 * from the good end (at least the first). */
static double exact_tail(const double *sorted, int n, double q, int higher_is_better)
{
    int k = (int)floor(q * n);
    if (k < 1)
        k = 1;
    return higher_is_better ? sorted[n - k] : sorted[k - 1];
}

static void check_distribution(const char *label, double (*draw)(rng_t *), int n)
{
    rng_t r;
    rng_init(&r, 42);
    double *v = malloc(sizeof(double) * (size_t)n);
    hist_t *h = malloc(sizeof(hist_t));
    hist_clear(h);
    for (int i = 0; i < n; i++) {
        v[i] = draw(&r);
        hist_add(h, v[i]);
    }
    qsort(v, (size_t)n, sizeof(double), cmp_double);
    double qs[] = {0.5, 0.9, 0.99, 0.999};
    for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
        for (int hib = 0; hib <= 1; hib++) {
            double got = hist_tail(h, qs[i], hib);
            double want = exact_tail(v, n, qs[i], hib);
            if (fabs(got - want) > HIST_MAX_RELATIVE_ERROR * want * 1.0000001)
                fprintf(stderr, "%s q=%g hib=%d\n", label, qs[i], hib);
            CHECK_NEAR(got, want, HIST_MAX_RELATIVE_ERROR * 1.0000001);
        }
    }
    CHECK(h->count == n);
    CHECK(h->min == v[0] && h->max == v[n - 1]);
    free(v);
    free(h);
}

/* Latency-like: a few usec with a long tail. */
static double draw_latency(rng_t *r)
{
    double u = uniform01(r);
    return 1.5 + 0.5 * u + (u > 0.98 ? 200.0 * uniform01(r) : 0.0);
}
/* Bandwidth-like: thousands of MiB/s, some slow outliers. */
static double draw_bandwidth(rng_t *r)
{
    double u = uniform01(r);
    return u < 0.02 ? 10.0 + 100.0 * uniform01(r) : 5000.0 + 1500.0 * uniform01(r);
}
/* Spanning 1 ns .. 1000 s (in usec: 1e-3 .. 1e9). */
static double draw_wide(rng_t *r) { return 1e-3 * pow(10.0, 12.0 * uniform01(r)); }

int main(void)
{
    check_distribution("latency", draw_latency, 200000);
    check_distribution("bandwidth", draw_bandwidth, 100000);
    check_distribution("wide", draw_wide, 100000);

    /* Every bucket is at most 1/HIST_SUB of its lower edge wide. */
    for (int b = 1; b < HIST_BUCKETS - 1; b++) {
        double lo, hi;
        hist_bucket_edges(b, &lo, &hi);
        CHECK(hi > lo && (hi - lo) / lo <= 1.0 / HIST_SUB + 1e-12);
        CHECK(hist_bucket_of(lo) == b);
        CHECK(hist_bucket_of(0.5 * (lo + hi)) == b);
    }
    /* The range covers 1 ns .. 1000 s in usec without clamping. */
    CHECK(hist_bucket_of(1e-3) > 0 && hist_bucket_of(1e9) < HIST_BUCKETS - 1);

    /* Merging two halves equals one histogram of everything. */
    hist_t *a = malloc(sizeof(hist_t)), *b = malloc(sizeof(hist_t)), *all = malloc(sizeof(hist_t));
    hist_clear(a);
    hist_clear(b);
    hist_clear(all);
    rng_t r;
    rng_init(&r, 7);
    for (int i = 0; i < 50000; i++) {
        double x = draw_latency(&r);
        hist_add(i % 2 ? a : b, x);
        hist_add(all, x);
    }
    hist_merge(a, b);
    CHECK(memcmp(a->bins, all->bins, sizeof(all->bins)) == 0);
    CHECK(a->count == all->count && a->min == all->min && a->max == all->max);

    /* One huge outlier must not wipe out the resolution of the tail (the
     * reference's equal-width bins between min and max would). */
    hist_clear(a);
    for (int i = 0; i < 100000; i++)
        hist_add(a, 2.0 + (i % 1000) * 0.001);
    hist_add(a, 1e8);
    CHECK_NEAR(hist_tail(a, 0.99, 0), 2.99, 0.01);

    /* Empty histograms give NaN, not garbage. */
    hist_clear(a);
    CHECK(isnan(hist_tail(a, 0.99, 0)));

    /* Memory is fixed and small whatever the run length. */
    CHECK(sizeof(hist_t) < 64 * 1024);
    free(a);
    free(b);
    free(all);
    return check_report("test_histogram");
}
