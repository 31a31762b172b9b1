/* The ON/OFF schedule and the pacing of bursty congestors
 * (infra/burst_schedule.h), with a synthetic clock: deterministic for a
 * seed, the same on every rank by construction. */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "infra/burst_schedule.h"

static const burst_shape_t shape = {.on_s = 0.05, .off_s = 0.2, .intensity = 1.0, .jitter = 0.0};

static void fixed_periods(void)
{
    burst_clock_t c;
    burst_clock_init(&c, &shape, 7);
    long k;
    CHECK(burst_phase_at(&c, 0.0, &k) == 1 && k == 0);
    CHECK(burst_phase_at(&c, 0.0499, NULL) == 1);
    CHECK(burst_phase_at(&c, 0.0501, NULL) == 0);
    CHECK(burst_phase_at(&c, 0.2499, &k) == 0 && k == 0);
    CHECK(burst_phase_at(&c, 0.2501, &k) == 1 && k == 1);
    CHECK(burst_phase_at(&c, 10.0 + 0.01, &k) == 1 && k == 40);
    /* An earlier time restarts the cursor. */
    CHECK(burst_phase_at(&c, 0.06, &k) == 0 && k == 0);
    double ends[8], next[8];
    int n = burst_ends(&shape, 7, 0.0, 1.0, ends, next, 8);
    CHECK(n == 4);
    CHECK_NEAR(ends[0], 0.05, 1e-12);
    CHECK_NEAR(next[0], 0.25, 1e-12);
    CHECK_NEAR(ends[3], 0.8, 1e-12);
    CHECK_NEAR(next[3], 1.0, 1e-12);
    CHECK(burst_ends(&shape, 7, 0.31, 1.0, ends, next, 8) == 2);
    CHECK_NEAR(ends[0], 0.55, 1e-12);
}

static void steady_is_always_on(void)
{
    burst_shape_t s = BURST_SHAPE_STEADY;
    burst_clock_t c;
    burst_clock_init(&c, &s, 1);
    CHECK(burst_is_steady(&s));
    CHECK(burst_phase_at(&c, 123.0, NULL) == 1);
    int off = 5;
    CHECK(burst_wait(&c, 3.0, &off) == 0.0 && off == 0);
    double ends[2], next[2];
    CHECK(burst_ends(&s, 1, 0.0, 100.0, ends, next, 2) == 0);
}

static void jitter_is_reproducible_and_bounded(void)
{
    burst_shape_t s = shape;
    s.jitter = 0.5;
    double on_sum = 0.0, a, b, c2, d;
    int differ = 0;
    for (long k = 0; k < 20000; k++) {
        burst_cycle(&s, 42, k, &a, &b);
        burst_cycle(&s, 42, k, &c2, &d);
        CHECK(a == c2 && b == d); /* the same seed, the same cycle */
        if (k < 50) {
            double x, y;
            burst_cycle(&s, 43, k, &x, &y);
            differ += x != a;
        }
        if (!(a >= 0.025 && a < 0.075 && b >= 0.1 && b < 0.3))
            CHECK(0);
        on_sum += a;
    }
    CHECK(differ >= 49); /* another seed, another schedule */
    CHECK_NEAR(on_sum / 20000, 0.05, 0.01);
    /* Two clocks of the same seed (two ranks) agree at every time, one
     * read forwards and one from a late start. */
    burst_clock_t r0, r1;
    burst_clock_init(&r0, &s, 42);
    burst_clock_init(&r1, &s, 42);
    burst_phase_at(&r1, 15.0, NULL);
    int disagree = 0;
    for (double t = 0.0; t < 20.0; t += 0.0007)
        disagree += burst_phase_at(&r0, t, NULL) != burst_phase_at(&r1, t, NULL);
    CHECK(disagree == 0);
}

/* Iterations of `d` seconds under the pacing, on a synthetic clock whose
 * sleeps overshoot by `late`: the busy share of the ON time, and whether
 * any iteration started in an OFF period. */
static double paced_share(double intensity, double d, double late, double horizon,
                          int *started_off, double *off_wait)
{
    burst_shape_t s = shape;
    s.intensity = intensity;
    burst_clock_t c, probe;
    burst_clock_init(&c, &s, 3);
    burst_clock_init(&probe, &s, 3);
    double t = 0.0, busy = 0.0;
    *started_off = 0;
    *off_wait = 0.0;
    while (t < horizon) {
        int in_off;
        double w = burst_wait(&c, t, &in_off);
        if (w > 0.0) {
            if (in_off)
                *off_wait += w;
            t += w + late;
            continue;
        }
        if (!burst_phase_at(&probe, t, NULL))
            (*started_off)++;
        burst_done(&c, t, t + d);
        busy += d;
        t += d;
    }
    double on_time = horizon / (s.on_s + s.off_s) * s.on_s;
    return busy / on_time;
}

static void pacing_reaches_the_intensity(void)
{
    const double rates[] = {0.25, 0.5, 1.0};
    for (int i = 0; i < 3; i++) {
        int off;
        double waited;
        double share = paced_share(rates[i], 1e-4, 3e-5, 10.0, &off, &waited);
        CHECK_NEAR(share, rates[i], 0.03);
        CHECK(off == 0); /* nothing starts while OFF */
        /* The OFF periods were waited out: 40 cycles of 0.2 s. */
        CHECK(waited > 40 * 0.2 * 0.95);
    }
    /* Long iterations: one may run past the ON end (it started in ON), so
     * the share is within one iteration per ON period. */
    int off;
    double waited;
    double share = paced_share(0.5, 0.004, 0.0, 10.0, &off, &waited);
    CHECK(off == 0 && share >= 0.5 - 0.004 / 0.05 && share <= 0.5 + 0.004 / 0.05);
    /* The same inputs, the same result (no hidden state). */
    double again = paced_share(0.5, 0.004, 0.0, 10.0, &off, &waited);
    CHECK(again == share);
}

static void intensity_without_pauses(void)
{
    /* --burst-intensity alone: one ON period without end. */
    burst_shape_t s = {.on_s = INFINITY, .off_s = 0.0, .intensity = 0.5, .jitter = 0.0};
    burst_clock_t c;
    burst_clock_init(&c, &s, 1);
    CHECK(!burst_is_steady(&s));
    CHECK(burst_phase_at(&c, 1e6, NULL) == 1);
    burst_done(&c, 0.0, 0.001);
    CHECK(burst_wait(&c, 0.0, NULL) == 0.0); /* the period starts counting at the first wait */
    burst_done(&c, 0.0, 0.001);
    CHECK_NEAR(burst_wait(&c, 0.001, NULL), 0.001, 1e-9); /* 1 ms busy at 0.5: wait to 2 ms */
}

int main(void)
{
    fixed_periods();
    steady_is_always_on();
    jitter_is_reproducible_and_bounded();
    pacing_reaches_the_intensity();
    intensity_without_pauses();
    return check_report("test_burst_schedule");
}
