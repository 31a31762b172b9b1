/* Nanoseconds per hist_add for latency-like and bandwidth-like samples.
 * The samples are drawn beforehand so only the add is timed; the loop is
 * what a canary does after each ring when it bins the ring's durations.
 * Built and run by bench/hist_add_bench.sh. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "infra/histogram.h"
#include "infra/rng.h"

#define N (1 << 22)

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double uniform01(rng_t *r) { return (double)(rng_next(r) >> 11) * 0x1.0p-53; }

static void run(const char *label, double lo, double span, double *v, hist_t *h)
{
    rng_t r;
    rng_init(&r, 1);
    for (int i = 0; i < N; i++)
        v[i] = lo + span * uniform01(&r) * uniform01(&r);
    double best = 1e30;
    for (int rep = 0; rep < 5; rep++) {
        hist_clear(h);
        double t0 = now();
        for (int i = 0; i < N; i++)
            hist_add(h, v[i]);
        double t = (now() - t0) / N;
        if (t < best)
            best = t;
    }
    /* Use the result so the loop cannot be dropped. */
    printf("%-10s %6.2f ns per hist_add (best of 5, %d samples, count %.0f)\n", label,
           best * 1e9, N, h->count);
}

int main(void)
{
    double *v = malloc(sizeof(double) * N);
    hist_t *h = malloc(sizeof(hist_t));
    if (!v || !h)
        return 1;
    printf("histogram: %d sub-buckets per octave, %zu bytes\n", HIST_SUB, sizeof(hist_t));
    run("latency", 1.5, 200.0, v, h);   /* usec, long tail */
    run("bandwidth", 10.0, 9000.0, v, h); /* MiB/s */
    free(v);
    free(h);
    return 0;
}
