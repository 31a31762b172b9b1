/* Histogram percentiles against exact percentiles of the same samples,
 * under the same counting rule, on many distributions. */
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

/* Uniform in (0, 1]: never 0, so 1/u and log(u) are finite. */
static double uniform01(rng_t *r) { return (double)((rng_next(r) >> 11) + 1) * 0x1.0p-53; }
static double normal(rng_t *r)
{
    return sqrt(-2.0 * log(uniform01(r))) * cos(6.283185307179586 * uniform01(r));
}

/* Exact value with the reference's counting rule: the floor(q N)-th sample
 * from the good end (at least the first). */
static double exact_tail(const double *sorted, int n, double q, int higher_is_better)
{
    int k = (int)floor(q * n);
    if (k < 1)
        k = 1;
    return higher_is_better ? sorted[n - k] : sorted[k - 1];
}

/* What the 64-sub-bucket histogram reported: the midpoint of the bucket of
 * the exact sample, clamped to [min, max]. */
static double midpoint_of(const hist_t *h, double exact)
{
    double lo, hi;
    hist_bucket_edges(hist_bucket_of(exact), &lo, &hi);
    return fmin(fmax(0.5 * (lo + hi), h->min), h->max);
}

/* Issue 7: every percentile within 0.1% of the exact one. */
#define REQUIRED_RELATIVE_ERROR 0.001

static const double QS[] = {0.0001, 0.001, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999, 0.9999};
#define NQ (sizeof(QS) / sizeof(QS[0]))

typedef struct {
    double worst;        /* largest relative error of any percentile */
    double sum_interp;   /* sum of relative errors, ours */
    double sum_midpoint; /* the same for the bucket midpoint */
} errors_t;

/* Every percentile of v[0..n-1] (both directions, and the median) within
 * HIST_MAX_RELATIVE_ERROR and 0.1% of the exact one. Sorts v. */
static errors_t check_samples(const char *label, double *v, int n)
{
    hist_t *h = malloc(sizeof(hist_t));
    hist_clear(h);
    for (int i = 0; i < n; i++)
        hist_add(h, v[i]);
    qsort(v, (size_t)n, sizeof(double), cmp_double);
    errors_t e = {0.0, 0.0, 0.0};
    for (size_t i = 0; i <= NQ; i++) {
        for (int hib = 0; hib <= 1; hib++) {
            double got, want;
            if (i == NQ) { /* the median */
                got = hist_median(h);
                want = exact_tail(v, n, 0.5, 0);
            } else {
                got = hist_tail(h, QS[i], hib);
                want = exact_tail(v, n, QS[i], hib);
            }
            double rel = fabs(got - want) / want;
            if (!(rel <= HIST_MAX_RELATIVE_ERROR && rel <= REQUIRED_RELATIVE_ERROR))
                fprintf(stderr, "%s q=%g hib=%d: %.17g exact %.17g\n", label,
                        i == NQ ? 0.5 : QS[i], hib, got, want);
            CHECK(rel <= HIST_MAX_RELATIVE_ERROR && rel <= REQUIRED_RELATIVE_ERROR);
            e.worst = fmax(e.worst, rel);
            e.sum_interp += rel;
            e.sum_midpoint += fabs(midpoint_of(h, want) - want) / want;
        }
    }
    CHECK(h->count == n);
    CHECK(h->min == v[0] && h->max == v[n - 1]);
    free(h);
    printf("  %-22s n=%-7d worst %.2e  mean ours %.2e  mean midpoint %.2e\n", label, n,
           e.worst, e.sum_interp / (2 * (NQ + 1)), e.sum_midpoint / (2 * (NQ + 1)));
    return e;
}

static errors_t check_distribution(const char *label, double (*draw)(rng_t *), int n)
{
    rng_t r;
    rng_init(&r, 42);
    double *v = malloc(sizeof(double) * (size_t)n);
    for (int i = 0; i < n; i++)
        v[i] = draw(&r);
    errors_t e = check_samples(label, v, n);
    free(v);
    return e;
}

static double draw_uniform(rng_t *r) { return 1.0 + 9.0 * uniform01(r); }
static double draw_lognormal(rng_t *r) { return 3.0 * exp(0.5 * normal(r)); }
static double draw_bimodal(rng_t *r)
{
    return uniform01(r) < 0.5 ? fabs(2.0 + 0.05 * normal(r)) : fabs(20.0 + normal(r));
}
/* Pareto, alpha 1.2: a heavy tail over many octaves. */
static double draw_pareto(rng_t *r) { return 1.5 / pow(uniform01(r), 1.0 / 1.2); }
static double draw_constant(rng_t *r) { (void)r; return 2.5; }
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
/* 0.1% huge outliers (100 s in usec) over a narrow bulk. */
static double draw_outliers(rng_t *r)
{
    return uniform01(r) < 0.001 ? 1e8 * (1.0 + uniform01(r)) : 2.0 + 0.001 * normal(r);
}
/* Integer values with many ties (e.g. a count of ticks). */
static double draw_ticks(rng_t *r) { return (double)(1000 + rng_below(r, 100)); }
/* Spanning 1 ns .. 1000 s (in usec: 1e-3 .. 1e9). */
static double draw_wide(rng_t *r) { return 1e-3 * pow(10.0, 12.0 * uniform01(r)); }
/* The loaded bandwidth canary of issue 7, whose 99% printed as 6176.0
 * with 64 sub-buckets (a multiple of 32 MiB/s). */
static double draw_bw_6150(rng_t *r) { return 6150.0 + 50.0 * uniform01(r); }

static void check_few_samples(void)
{
    rng_t r;
    rng_init(&r, 3);
    for (int n = 1; n <= 9; n++) {
        double v[9];
        for (int i = 0; i < n; i++)
            v[i] = 1.0 + 1000.0 * uniform01(&r);
        char label[32];
        snprintf(label, sizeof(label), "%d random samples", n);
        errors_t e = check_samples(label, v, n);
        /* Each lone sample of a bucket is its bucket's min or max or lies
         * within it: a single sample is always exact. */
        if (n == 1)
            CHECK(e.worst == 0.0);
    }
}

int main(void)
{
    CHECK(HIST_MAX_RELATIVE_ERROR <= REQUIRED_RELATIVE_ERROR);
    errors_t smooth = {0.0, 0.0, 0.0};
    const struct {
        const char *label;
        double (*draw)(rng_t *);
        int n;
        int smooth; /* dense and smooth: interpolation must beat the midpoint */
    } dists[] = {
        {"uniform", draw_uniform, 200000, 1},     {"lognormal", draw_lognormal, 200000, 1},
        {"bimodal", draw_bimodal, 200000, 1},     {"pareto heavy tail", draw_pareto, 200000, 0},
        {"constant", draw_constant, 1000, 0},     {"latency-like", draw_latency, 200000, 1},
        {"bandwidth-like", draw_bandwidth, 100000, 1}, {"huge outliers", draw_outliers, 100000, 0},
        {"integer ticks", draw_ticks, 100000, 0}, {"1 ns .. 1000 s", draw_wide, 100000, 0},
        {"bandwidth 6150..6200", draw_bw_6150, 100000, 1},
    };
    for (size_t d = 0; d < sizeof(dists) / sizeof(dists[0]); d++) {
        errors_t e = check_distribution(dists[d].label, dists[d].draw, dists[d].n);
        if (dists[d].smooth) {
            smooth.sum_interp += e.sum_interp;
            smooth.sum_midpoint += e.sum_midpoint;
        }
    }
    check_few_samples();
    /* Interpolating by rank inside the bucket is on average far closer
     * than the midpoint on dense data (it is never worse than the bucket). */
    printf("  dense data: ours / midpoint mean error = %.3f\n", smooth.sum_interp / smooth.sum_midpoint);
    CHECK(smooth.sum_interp < 0.5 * smooth.sum_midpoint);

    /* The case: a 99% bandwidth of ~6150.5 MiB/s must not print as
     * 6176.0 (the 64-sub-bucket midpoint, 0.4% off) but as the exact value
     * to one decimal, give or take a rounding step. */
    {
        rng_t r;
        rng_init(&r, 11);
        hist_t *h = malloc(sizeof(hist_t));
        double *v = malloc(sizeof(double) * 100000);
        hist_clear(h);
        for (int i = 0; i < 100000; i++) {
            v[i] = draw_bw_6150(&r);
            hist_add(h, v[i]);
        }
        qsort(v, 100000, sizeof(double), cmp_double);
        double got = hist_tail(h, 0.99, 1), want = exact_tail(v, 100000, 0.99, 1);
        CHECK(fabs(got - want) < 0.1);
        CHECK(fabs(got - 6176.0) > 20.0);
        free(v);
        free(h);
    }

    /* Every bucket is at most 1/HIST_SUB of its lower edge wide, and the
     * buckets tile the range without gaps. */
    for (int b = 1; b < HIST_BUCKETS - 1; b++) {
        double lo, hi, next_lo, next_hi;
        hist_bucket_edges(b, &lo, &hi);
        hist_bucket_edges(b + 1, &next_lo, &next_hi);
        CHECK(hi > lo && (hi - lo) / lo <= 1.0 / HIST_SUB + 1e-12);
        CHECK(hist_bucket_of(lo) == b);
        CHECK(hist_bucket_of(0.5 * (lo + hi)) == b);
        CHECK(hist_bucket_of(nextafter(hi, 0.0)) == b);
        CHECK(next_lo == hi);
    }
    /* The range covers 1 ns .. 1000 s in usec and 1 KiB/s .. 2^24 MiB/s
     * without clamping; beyond it are the underflow and overflow buckets. */
    CHECK(hist_bucket_of(1e-3) > 0 && hist_bucket_of(1e9) < HIST_BUCKETS - 1);
    CHECK(hist_bucket_of(1.0 / 1024.0) > 0 && hist_bucket_of(0x1p24) < HIST_BUCKETS - 1);
    CHECK(hist_bucket_of(0.0) == 0 && hist_bucket_of(-1.0) == 0 && hist_bucket_of(NAN) == 0);
    CHECK(hist_bucket_of(0x1p30) == HIST_BUCKETS - 1 && hist_bucket_of(INFINITY) == HIST_BUCKETS - 1);

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
    /* Percentiles never decrease with k. */
    double prev = 0.0;
    for (double k = 1.0; k <= a->count; k += 7.0) {
        double v = hist_kth(a, k, 0);
        CHECK(v >= prev);
        prev = v;
    }

    /* One huge outlier must not wipe out the resolution of the tail (the
     * reference's equal-width bins between min and max would). */
    hist_clear(a);
    for (int i = 0; i < 100000; i++)
        hist_add(a, 2.0 + (i % 1000) * 0.001);
    hist_add(a, 1e8);
    CHECK_NEAR(hist_tail(a, 0.99, 0), 2.989, 0.001);

    /* Out of range, the extremes seen stand in for the open buckets. */
    hist_clear(a);
    hist_add(a, 1e-6);
    hist_add(a, 1.0);
    hist_add(a, 5e10);
    CHECK(hist_kth(a, 1, 0) == 1e-6 && hist_kth(a, 3, 0) == 5e10);
    CHECK_NEAR(hist_kth(a, 2, 0), 1.0, HIST_MAX_RELATIVE_ERROR);

    /* Empty histograms give NaN, not garbage. */
    hist_clear(a);
    CHECK(isnan(hist_tail(a, 0.99, 0)) && isnan(hist_median(a)));

    /* Memory is fixed whatever the run length: 40 octaves of 1024 doubles. */
    CHECK(sizeof(hist_t) <= 40 * 1024 * sizeof(double) + 64);
    free(a);
    free(b);
    free(all);
    return check_report("test_histogram");
}
