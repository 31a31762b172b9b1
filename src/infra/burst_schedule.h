/* The ON/OFF schedule of bursty congestion and the pacing inside an ON
 * period (docs/congestion-studies.md#bursty-congestion). Pure: times are
 * seconds since the congestors' common start, passed in by the caller, so
 * the schedule and the pacing are unit-tested with a synthetic clock
 * (tests/unit/test_burst_schedule.c).
 *
 * Every rank derives the same schedule from the same shape and seed
 * without communicating: cycle k lasts on_k + off_k, with
 *   on_k  = on_s  * (1 + jitter * u),  off_k = off_s * (1 + jitter * v),
 * u and v uniform in [-1, 1) drawn from SplitMix64 seeded by (seed, k). */
#ifndef GPCNET_BURST_SCHEDULE_H
#define GPCNET_BURST_SCHEDULE_H

#include <stdint.h>

/* A burst shape; on_s == 0 is the published steady load. */
typedef struct {
    double on_s, off_s; /* --burst ON,OFF */
    double intensity;   /* --burst-intensity: share of the full rate during ON, (0, 1] */
    double jitter;      /* --burst-jitter: relative variation of ON and OFF, [0, 1) */
} burst_shape_t;

#define BURST_SHAPE_STEADY ((burst_shape_t){.on_s = 0.0, .off_s = 0.0, .intensity = 1.0, .jitter = 0.0})

static inline int burst_is_steady(const burst_shape_t *s) { return s->on_s <= 0.0; }

/* The lengths of cycle k (k >= 0). */
void burst_cycle(const burst_shape_t *s, uint64_t seed, long k, double *on, double *off);

/* A cursor over the schedule, and the pacing state of the current ON
 * period. Lookups are O(1) amortised for times that grow; an earlier time
 * restarts from cycle 0. */
typedef struct {
    burst_shape_t shape;
    uint64_t seed;
    long cycle;            /* current cycle */
    double cycle_start;    /* its start */
    double on, off;        /* its lengths */
    long paced_cycle;      /* the ON period whose busy time is counted */
    double busy;           /* seconds spent iterating in it */
} burst_clock_t;

void burst_clock_init(burst_clock_t *c, const burst_shape_t *s, uint64_t seed);

/* 1 when t falls in an ON period (always 1 for a steady shape); *cycle
 * (may be NULL) is the cycle of t. */
int burst_phase_at(burst_clock_t *c, double t, long *cycle);

/* Seconds to wait at time t before the next iteration may start; 0: go.
 * OFF: until the next ON period. ON with intensity F < 1: until the busy
 * time of this ON period is at most F times its elapsed part, so the rate
 * is F of the full one over the period (a late start is made up by the
 * next iterations running back to back). *in_off (may be NULL) is set to
 * 1 when the wait is an OFF period. */
double burst_wait(burst_clock_t *c, double t, int *in_off);

/* After an iteration that ran from start to end (seconds since the common
 * start): its time counts against the ON period it started in. */
void burst_done(burst_clock_t *c, double start, double end);

/* The ON periods' ends in [from, to) and the start of the ON period that
 * follows each: up to max of them, in order; returns how many. */
int burst_ends(const burst_shape_t *s, uint64_t seed, double from, double to, double *ends,
               double *next_starts, int max);

#endif
