/* The ON/OFF schedule of bursty congestion and the pacing inside an ON
 * period (docs/experiments.md#bursty-congestion). Pure: times are
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

/* A cursor over the schedule. Lookups are O(1) amortised for times that
 * grow; an earlier time restarts from cycle 0. */
typedef struct {
    burst_shape_t shape;
    uint64_t seed;
    long cycle;         /* current cycle */
    double cycle_start; /* its start */
    double on, off;     /* its lengths */
} burst_clock_t;

void burst_clock_init(burst_clock_t *c, const burst_shape_t *s, uint64_t seed);

/* 1 when t falls in an ON period (always 1 for a steady shape); *cycle
 * (may be NULL) is the cycle of t. */
int burst_phase_at(burst_clock_t *c, double t, long *cycle);

/* The pacing of --burst-intensity F < 1: a duty cycle on the common clock.
 * Each ON period is cut, from its start, into sub-periods of
 * burst_pacing_period() (the last one may be shorter); an iteration may
 * start only in the first F of a sub-period. Every rank derives the same
 * windows from the same clock, so the ranks of a collective are active and
 * idle together: the pacing reads no measured time, so no rank's waiting
 * for a peer can lengthen its gaps (no feedback). */
#define BURST_PACING_PERIOD_S 0.01

/* The sub-period of a shape: BURST_PACING_PERIOD_S, or a quarter of the
 * ON period when that is shorter (so that every ON period has at least
 * four windows). */
double burst_pacing_period(const burst_shape_t *s);

/* Seconds to wait at time t before the next iteration may start; 0: go.
 * OFF: until the next ON period. ON with intensity F < 1 and t past the
 * active part of its sub-period: until the next sub-period (or the ON
 * period's end). A pure function of the shape, the seed and t (the cursor
 * only saves work), so two ranks asking at the same time get the same
 * answer. *in_off (may be NULL) is set to 1 when the wait is an OFF
 * period. */
double burst_wait(burst_clock_t *c, double t, int *in_off);

/* The ON periods' ends in [from, to) and the start of the ON period that
 * follows each: up to max of them, in order; returns how many. */
int burst_ends(const burst_shape_t *s, uint64_t seed, double from, double to, double *ends,
               double *next_starts, int max);

#endif
