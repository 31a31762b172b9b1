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

/* One rank's iterations of `d` seconds under the pacing, on a synthetic
 * clock whose sleeps overshoot by `late`: the busy share of the ON time,
 * and whether any iteration started in an OFF period. */
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
        busy += d;
        t += d;
    }
    double on_time = horizon / (s.on_s + s.off_s) * s.on_s;
    return busy / on_time;
}

static void pacing_reaches_the_intensity(void)
{
    /* ON 50 ms: sub-periods of 10 ms (a quarter of ON is longer). */
    CHECK(burst_pacing_period(&shape) == BURST_PACING_PERIOD_S);
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
    /* Long iterations (4 ms in 10 ms sub-periods): the last one of a window
     * runs past it, so the share is above F by less than one iteration per
     * sub-period, and a late wake-up costs at most its lateness. */
    int off;
    double waited;
    double share = paced_share(0.5, 0.004, 0.0, 10.0, &off, &waited);
    CHECK(off == 0 && share >= 0.5 && share <= 0.5 + 0.004 / 0.01);
    share = paced_share(0.25, 1e-4, 5e-4, 10.0, &off, &waited);
    CHECK(share >= 0.25 - 5e-4 / 0.01 && share <= 0.25 + 1e-4 / 0.01);
    /* The same inputs, the same result (no hidden state). */
    double again = paced_share(0.25, 1e-4, 5e-4, 10.0, &off, &waited);
    CHECK(again == share);
}

static void windows_on_the_common_clock(void)
{
    /* --burst-intensity alone: one ON period without end, 10 ms
     * sub-periods, active for their first F. */
    burst_shape_t s = {.on_s = INFINITY, .off_s = 0.0, .intensity = 0.5, .jitter = 0.0};
    burst_clock_t c;
    burst_clock_init(&c, &s, 1);
    CHECK(!burst_is_steady(&s));
    CHECK(burst_phase_at(&c, 1e6, NULL) == 1);
    CHECK(burst_wait(&c, 0.0, NULL) == 0.0);
    CHECK(burst_wait(&c, 0.0049, NULL) == 0.0);
    int in_off = 5;
    CHECK_NEAR(burst_wait(&c, 0.006, &in_off), 0.004, 1e-9);
    CHECK(in_off == 0); /* a pacing gap is not an OFF period */
    CHECK(burst_wait(&c, 0.0101, NULL) == 0.0);
    CHECK_NEAR(burst_wait(&c, 1000.0075, NULL), 0.0025, 1e-6);
    /* A pure function of t: what one rank did before changes nothing, so
     * ranks asking at one time get one answer, whatever their history
     * (the old pacing counted each rank's own busy time). */
    burst_clock_t fresh;
    int disagree = 0;
    for (double t = 0.0; t < 0.5; t += 0.00037) {
        burst_clock_init(&fresh, &s, 1);
        disagree += burst_wait(&c, t, NULL) != burst_wait(&fresh, t, NULL);
    }
    CHECK(disagree == 0);
    /* Short ON periods: a quarter of ON per sub-period, the last one of a
     * jittered ON shorter and active for F of its own length. */
    burst_shape_t b = {.on_s = 0.02, .off_s = 0.03, .intensity = 0.25, .jitter = 0.0};
    CHECK_NEAR(burst_pacing_period(&b), 0.005, 1e-12);
    burst_clock_init(&c, &b, 1);
    CHECK(burst_wait(&c, 0.0051, NULL) == 0.0);
    CHECK_NEAR(burst_wait(&c, 0.0063, NULL), 0.0037, 1e-9);
    CHECK_NEAR(burst_wait(&c, 0.019, &in_off), 0.001, 1e-9);
    CHECK(in_off == 0);
    CHECK_NEAR(burst_wait(&c, 0.021, &in_off), 0.029, 1e-9);
    CHECK(in_off == 1);
    b.on_s = 0.021; /* sub-periods of 5.25 ms */
    burst_clock_init(&c, &b, 1);
    CHECK(burst_wait(&c, 0.0157 + 0.0005, NULL) == 0.0);
}

/* A collective (every rank of it starts an iteration, which ends `d` after
 * the last rank starts it) under the pacing of one shape: ranks whose
 * clocks are offset by skew[r] (their start readings differ) and whose
 * sleeps overshoot by late[r]. Returns the simulated time `n` iterations
 * take. With the old pacing (each rank's own busy time, which includes
 * waiting for peers in their gaps) this time grew without bound at
 * intensity 0.25. */
#define RANKS 4
static double collective_time(const burst_shape_t *s, double d, const double *skew,
                              const double *late, long n)
{
    burst_clock_t c[RANKS];
    double now[RANKS];
    for (int r = 0; r < RANKS; r++) {
        burst_clock_init(&c[r], s, 9);
        now[r] = 0.0;
    }
    double end = 0.0;
    for (long i = 0; i < n; i++) {
        double start = 0.0;
        for (int r = 0; r < RANKS; r++) {
            double w;
            while ((w = burst_wait(&c[r], now[r] + skew[r], NULL)) > 0.0)
                now[r] += w + late[r];
            if (now[r] > start)
                start = now[r];
        }
        end = start + d;
        for (int r = 0; r < RANKS; r++)
            now[r] = end;
    }
    return end;
}

static void collectives_reach_the_intensity(void)
{
    const double d = 2e-4; /* 50 iterations per 10 ms sub-period at full rate */
    const double none[RANKS] = {0.0, 0.0, 0.0, 0.0};
    const double late[RANKS] = {2e-5, 5e-5, 1e-4, 3e-5};
    const double skew[RANKS] = {0.0, 3e-5, -2e-5, 1e-4}; /* microseconds, as on a network */
    const double rates[] = {0.25, 0.5, 1.0};
    const long n = 20000; /* 4 s at full rate */
    for (int i = 0; i < 3; i++) {
        double f = rates[i];
        /* Achieved rate / full rate = (n d) / time: F, up to one iteration
         * more per sub-period (the last one of a window runs past it) and
         * minus the latest wake-up and the skew per sub-period. */
        burst_shape_t alone = {.on_s = INFINITY, .off_s = 0.0, .intensity = f};
        double share = n * d / collective_time(&alone, d, none, none, n);
        CHECK(share >= f - 1e-9 && share <= f + d / 0.01 + 1e-9);
        share = n * d / collective_time(&alone, d, skew, late, n);
        CHECK(share >= f - (1e-4 + 1.2e-4) / 0.01 && share <= f + d / 0.01 + 1e-9);
        /* With bursts: the rate over the ON time is F, the same bounds. */
        burst_shape_t bursty = {.on_s = 0.05, .off_s = 0.05, .intensity = f};
        share = n * d / (collective_time(&bursty, d, skew, late, n) / 2.0);
        CHECK(share >= f - (1e-4 + 1.2e-4) / 0.01 - 0.01 && share <= f + d / 0.01 + 0.01);
    }
    /* Skew eats into the windows: a rank whose clock is ahead by x closes
     * the window x early for all, so the rate is F - x / period at worst. */
    const double far[RANKS] = {0.0, 1e-3, 0.0, 0.0};
    burst_shape_t alone = {.on_s = INFINITY, .off_s = 0.0, .intensity = 0.25};
    double share = n * d / collective_time(&alone, d, far, none, n);
    CHECK(share >= 0.25 - 1e-3 / 0.01 - 0.01 && share <= 0.25 + d / 0.01);
}

int main(void)
{
    fixed_periods();
    steady_is_always_on();
    jitter_is_reproducible_and_bounded();
    pacing_reaches_the_intensity();
    windows_on_the_common_clock();
    collectives_reach_the_intensity();
    return check_report("test_burst_schedule");
}
