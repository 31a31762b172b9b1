/* Canary (measured) kernels: the interface and the table of all of them.
 *
 * A kernel is one small file defining a canary_kernel_t; adding one means
 * that file plus one row in canary_table.c (docs/design.md#adding-a-kernel). The loops around it (random
 * ring or collective, timeout, timers, statistics) are in measure_loop.c. */
#ifndef GPCNET_CANARY_H
#define GPCNET_CANARY_H

#include <mpi.h>

#include "infra/result.h"
#include "infra/stats.h"

typedef enum { LOOP_RANDOM_RING, LOOP_NATURAL_RING, LOOP_COLLECTIVE } loop_kind_t;

typedef struct {
    int measurements, rings, iterations, warmup;
} loop_limits_t;

typedef struct canary_kernel {
    const char *id;        /* option and JSON name */
    const char *name;      /* as printed in the tables */
    const char *unit;      /* "usec" or "MiB/s/rank" */
    int higher_is_better;  /* bandwidth: 1, latency: 0 */
    loop_kind_t loop;
    loop_limits_t limits;  /* docs/method.md#canaries */
    int load_canary;       /* one of the three canaries of the load test */

    /* Allocate buffers/windows on the slice communicator (collective). */
    void *(*setup)(MPI_Comm slice);
    void (*teardown)(void *state);
    /* Iterations for a communicator of n ranks (NULL: limits.iterations). */
    int (*iterations_for)(int configured, int n);
    /* Around one ring (e.g. RMA locks); NULL when not needed. */
    void (*ring_begin)(void *state, int left, int right);
    void (*ring_end)(void *state, int left, int right);
    /* One iteration of the kernel. */
    void (*iterate)(void *state, int left, int right);
    /* Latency kernels: the time of one iteration counts this many operations
     * (2 for the two neighbours of a ring). Bandwidth kernels: bytes a rank
     * sends per iteration. */
    double (*per_iteration)(void *state);
} canary_kernel_t;

extern const canary_kernel_t *const canary_kernels[];
extern const int canary_kernel_count;
const canary_kernel_t *canary_find(const char *id);

/* One test on one node-slice communicator; test_comm spans every rank of
 * the test (timeout agreement and start barrier). slice_index seeds the
 * rings. converge_tol > 0 ends the test once its Avg and 99% have settled
 * (infra/converge.h). Returns the rank's accumulator, not yet reduced. */
void canary_measure(const canary_kernel_t *k, loop_limits_t limits, double time_limit,
                    double converge_tol, MPI_Comm slice, int slice_index, MPI_Comm test_comm,
                    unsigned long long ring_seed, stats_acc_t *acc);


#endif
