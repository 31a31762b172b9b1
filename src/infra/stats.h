/* Per-rank accumulation of one test and its merge across ranks.
 *
 * Memory is fixed (one histogram and a few sums), whatever the run length:
 * Avg needs only sums because every rank of a test completes the same
 * measurements; Avg(Worst) is accumulated as the loops go (see
 * measure_loop.c), never from stored per-iteration arrays. */
#ifndef GPCNET_STATS_H
#define GPCNET_STATS_H

#include <mpi.h>

#include "infra/histogram.h"
#include "infra/result.h"

typedef struct {
    double ranks;        /* ranks that contributed bulk values (sum) */
    double bulk_sum;     /* sum of bulk values (sum) */
    double bulk_count;   /* number of bulk values (sum) */
    double bulk_min;     /* min */
    double bulk_max;     /* max */
    double worst_sum;    /* sum over (m, r) of the worst rank: same on every rank */
    double worst_count;
    double measurements; /* completed measurements (max) */
    double timed_out;    /* max */
    double converged;    /* --converge stopped the test (max; agreed by all ranks) */
    double avg_precision, tail_precision; /* reached, worst rank (max; agreed) */
    hist_t hist;
} stats_acc_t;

void stats_init(stats_acc_t *a);
static inline void stats_add_sample(stats_acc_t *a, double v) { hist_add(&a->hist, v); }
void stats_add_bulk(stats_acc_t *a, double v);

/* Merge every rank's accumulator of comm into comm rank 0's, in one
 * reduction. Collective over comm. */
void stats_reduce(stats_acc_t *a, MPI_Comm comm);

/* Fill the statistics of r from a merged accumulator. */
void stats_to_result(const stats_acc_t *a, result_t *r);

/* Bring a result to world rank 0, which prints and records everything.
 * Call on world rank 0 and on the one rank that holds the result (holder);
 * tag tells apart results in flight at the same time. */
void result_deliver(result_t *r, int am_holder, int tag, MPI_Comm world);

#endif
