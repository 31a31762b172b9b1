/* Multiple Allgather (extra, selected by name in --tests): MPI_Allgather in
 * which every rank of a node-slice communicator of n ranks gathers
 * collective_bytes[0] (1 MiB) in all, contributing bytes / n of it
 * (whole doubles, at least one), on every slice at once: the exchange of
 * sharded-parameter training. Bandwidth: bytes a rank sends (its share to
 * each of the n-1 others) per second, as Multiple Alltoall. */
#include <stdlib.h>

#include "canary/canary.h"
#include "infra/comm_mem.h"
#include "infra/fatal.h"

typedef struct {
    MPI_Comm comm;
    int n;
    int count; /* doubles each rank contributes */
    double *send, *recv;
} allgather_state_t;

static void *setup(MPI_Comm slice, const canary_params_t *p)
{
    allgather_state_t *s = xcalloc(1, sizeof(*s));
    s->comm = slice;
    MPI_Comm_size(slice, &s->n);
    long share = p->collective_bytes[0] / ((long)s->n * (long)sizeof(double));
    s->count = share > 0 ? (int)share : 1;
    s->send = comm_alloc((size_t)s->count * sizeof(double));
    s->recv = comm_alloc((size_t)s->n * (size_t)s->count * sizeof(double));
    return s;
}

/* Printed size: what every rank gathers in all. */
static long gathered_bytes(const canary_params_t *p) { return p->collective_bytes[0]; }

static void teardown(void *state)
{
    allgather_state_t *s = state;
    comm_free(s->send);
    comm_free(s->recv);
    free(s);
}

static void iterate(void *state, int left, int right)
{
    allgather_state_t *s = state;
    MPI_Allgather(s->send, s->count, MPI_DOUBLE, s->recv, s->count, MPI_DOUBLE, s->comm);
}

static double per_iteration(void *state)
{
    allgather_state_t *s = state;
    return (double)((size_t)s->count * sizeof(double)) * (s->n - 1);
}

const canary_kernel_t multiple_allgather = {
    .id = "multiple_allgather",
    .label = "Multiple Allgather",
    .size_bytes = gathered_bytes,
    .size_per_rank = 1,
    .unit = "MiB/s/rank",
    .higher_is_better = 1,
    .loop = LOOP_COLLECTIVE,
    .limits = {.measurements = 10000, .rings = 1, .iterations = 8, .warmup = 1},
    .setup = setup,
    .teardown = teardown,
    .iterate = iterate,
    .per_iteration = per_iteration,
};
