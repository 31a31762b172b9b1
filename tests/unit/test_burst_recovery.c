/* The recovery-time estimator (infra/burst_recovery.h) on synthetic
 * series whose answer is known. */
#include <math.h>

#include "check.h"
#include "infra/burst_recovery.h"

#define W 0.01 /* bin width */
#define N 120

static double mean[N], count[N];

/* Bursts ON [0.3 j, 0.3 j + 0.1), OFF until 0.3 (j + 1): the value is
 * `high` during ON and for after[j] seconds after it, then `base`. */
static void series(double base, double high, const double *after, int bursts, double *ends,
                   double *next)
{
    for (int b = 0; b < N; b++) {
        mean[b] = base;
        count[b] = 10.0;
    }
    for (int j = 0; j < bursts; j++) {
        ends[j] = 0.3 * j + 0.1;
        next[j] = 0.3 * (j + 1);
        for (int b = 0; b < N; b++) {
            double t = b * W + 1e-9;
            if (t >= 0.3 * j && t < ends[j] + after[j])
                mean[b] = high;
        }
    }
}

static void one_known_recovery(void)
{
    double after[4] = {0.05, 0.05, 0.05, 0.05}, ends[4], next[4];
    series(2.0, 10.0, after, 4, ends, next);
    recovery_t r;
    recovery_estimate(mean, count, N, W, 2.0, 0, 0.10, 3, ends, next, 4, &r);
    CHECK(r.bursts == 4 && r.recovered == 4);
    CHECK_NEAR(r.median_s, 0.05, 1e-6);
    CHECK_NEAR(r.min_s, 0.05, 1e-6);
    CHECK_NEAR(r.max_s, 0.05, 1e-6);
    /* Window 1 gives the same on a clean step. */
    recovery_estimate(mean, count, N, W, 2.0, 0, 0.10, 1, ends, next, 4, &r);
    CHECK_NEAR(r.median_s, 0.05, 1e-6);
}

static void median_and_spread(void)
{
    double after[4] = {0.02, 0.04, 0.06, 0.0}, ends[4], next[4];
    series(2.0, 10.0, after, 4, ends, next);
    recovery_t r;
    recovery_estimate(mean, count, N, W, 2.0, 0, 0.10, 1, ends, next, 4, &r);
    CHECK(r.recovered == 4);
    CHECK_NEAR(r.min_s + 1.0, 1.0, 1e-6); /* recovered at once */
    CHECK_NEAR(r.max_s, 0.06, 1e-6);
    CHECK_NEAR(r.median_s, 0.03, 1e-6); /* of 0, 0.02, 0.04, 0.06 */
    CHECK_NEAR(r.p25_s, 0.015, 1e-6);
    CHECK_NEAR(r.p75_s, 0.045, 1e-6);
}

static void never_recovered_and_no_data(void)
{
    double after[2] = {0.2, 0.0}, ends[2], next[2];
    series(2.0, 10.0, after, 2, ends, next);
    recovery_t r;
    /* Burst 0 stays high through its whole OFF period: counted, not recovered. */
    recovery_estimate(mean, count, N, W, 2.0, 0, 0.10, 3, ends, next, 2, &r);
    CHECK(r.bursts == 2 && r.recovered == 1);
    /* No values after burst 1: it is not counted at all. */
    for (int b = 40; b < N; b++)
        count[b] = 0.0;
    recovery_estimate(mean, count, N, W, 2.0, 0, 0.10, 3, ends, next, 2, &r);
    CHECK(r.bursts == 1 && r.recovered == 0 && isnan(r.median_s));
    /* Within 10% means within 10%: 2.21 is out, 2.19 is in. */
    double after1[1] = {0.0}, e1[1], n1[1];
    series(2.21, 10.0, after1, 1, e1, n1);
    recovery_estimate(mean, count, N, W, 2.0, 0, 0.10, 1, e1, n1, 1, &r);
    CHECK(r.recovered == 0);
    series(2.19, 10.0, after1, 1, e1, n1);
    recovery_estimate(mean, count, N, W, 2.0, 0, 0.10, 1, e1, n1, 1, &r);
    CHECK(r.recovered == 1);
}

static void bandwidth_and_weights(void)
{
    /* Bandwidth: low during bursts, recovered at >= 90% of isolated. */
    double after[2] = {0.03, 0.03}, ends[2], next[2];
    series(95.0, 20.0, after, 2, ends, next);
    recovery_t r;
    recovery_estimate(mean, count, N, W, 100.0, 1, 0.10, 1, ends, next, 2, &r);
    CHECK(r.recovered == 2);
    CHECK_NEAR(r.median_s, 0.03, 1e-6);
    /* The rolling window weighs bins by their values: one stray slow value
     * beside many fast ones does not hold the recovery back. */
    double a0[1] = {0.0}, e[1], n[1];
    series(2.0, 10.0, a0, 1, e, n);
    mean[10] = 100.0;
    count[10] = 1.0;
    count[11] = count[12] = 1000.0;
    recovery_estimate(mean, count, N, W, 2.0, 0, 0.10, 3, e, n, 1, &r);
    CHECK(r.recovered == 1);
    CHECK_NEAR(r.median_s + 1.0, 1.0, 1e-6);
}

static void quantiles(void)
{
    double v[5] = {1, 2, 3, 4, 5};
    CHECK_NEAR(recovery_quantile(v, 5, 0.5), 3.0, 1e-12);
    CHECK_NEAR(recovery_quantile(v, 5, 0.25), 2.0, 1e-12);
    CHECK_NEAR(recovery_quantile(v, 4, 0.5), 2.5, 1e-12);
    CHECK(isnan(recovery_quantile(v, 0, 0.5)));
}

int main(void)
{
    one_known_recovery();
    median_and_spread();
    never_recovered_and_no_data();
    bandwidth_and_weights();
    quantiles();
    return check_report("test_burst_recovery");
}
