/* --timeline: one canary rank's values over time in one loaded test
 * (docs/experiments.md#timeline), kept in fixed memory whatever the
 * run length:
 *  - TIMELINE_BINS bins of sum and count of the values whose iteration
 *    started in [b * width, (b + 1) * width) seconds after the congestors'
 *    common start; when a value falls past the last bin, neighbouring bins
 *    are merged in pairs and the width doubles (32 KiB);
 *  - two accumulators (stats.h, about 320 KiB each) of the values whose
 *    iteration started in an ON period (during bursts) or in an OFF
 *    period (between bursts).
 * It is filled after each timed loop, from the durations that loop stored
 * (measure_loop.c): the timed loop itself is the same with and without. */
#ifndef GPCNET_TIMELINE_H
#define GPCNET_TIMELINE_H

#include <mpi.h>
#include <stdint.h>

#include "canary/canary.h"
#include "infra/burst_schedule.h"
#include "infra/stats.h"

#define TIMELINE_BINS 2048

typedef struct timeline {
    burst_clock_t clock; /* the phase of each value */
    double t0;           /* MPI_Wtime() of the congestors' common start on this rank */
    double width;        /* seconds per bin */
    double sum[TIMELINE_BINS], count[TIMELINE_BINS];
    stats_acc_t during, between;
} timeline_t;

/* The first bin width for a shape: a tenth of its shorter period, from
 * 100 usec to 10 ms; 1 ms for a steady load. */
double timeline_first_width(const burst_shape_t *s);

timeline_t *timeline_new(const burst_shape_t *s, uint64_t seed, double t0);
void timeline_free(timeline_t *tl);

/* One value of an iteration that started t seconds after the common start. */
void timeline_add(timeline_t *tl, double t, double value);

/* Merge bins in pairs until the width is at least `width`. */
void timeline_coarsen_to(timeline_t *tl, double width);

/* Merge every rank's timeline of comm into comm rank 0's (one width for
 * all: the widest). Collective over comm. */
void timeline_reduce(timeline_t *tl, MPI_Comm comm);

#endif
