/* Multiple Alltoall at message sizes of AI training (extras, selected by
 * name in --tests): MPI_Alltoall in which every rank sends
 * collective_bytes[0] (1 MiB) or collective_bytes[1] (16 MiB) in all,
 * split evenly among the n ranks of its slice (bytes / n to each, rounded
 * down to whole doubles, at least one), on every node-slice communicator
 * at once. The size in the name is per rank, not per peer as in the
 * published "Multiple Alltoall (4096 B)": a per-rank volume does not grow
 * with the slice, so no iteration scaling is needed. Bandwidth as the
 * published one: bytes a rank sends to the n-1 others per second. */
#include <stdlib.h>

#include "canary/canary.h"
#include "infra/comm_mem.h"
#include "infra/fatal.h"

typedef struct {
    MPI_Comm comm;
    int n;
    int count; /* doubles to each peer */
    double *send, *recv;
} large_alltoall_t;

static void *setup_size(MPI_Comm slice, long bytes)
{
    large_alltoall_t *s = xcalloc(1, sizeof(*s));
    s->comm = slice;
    MPI_Comm_size(slice, &s->n);
    long per_peer = bytes / ((long)s->n * (long)sizeof(double));
    s->count = per_peer > 0 ? (int)per_peer : 1;
    s->send = comm_alloc((size_t)s->n * (size_t)s->count * sizeof(double));
    s->recv = comm_alloc((size_t)s->n * (size_t)s->count * sizeof(double));
    return s;
}

static void *setup_small(MPI_Comm slice, const canary_params_t *p)
{
    return setup_size(slice, p->collective_bytes[0]);
}

static void *setup_large(MPI_Comm slice, const canary_params_t *p)
{
    return setup_size(slice, p->collective_bytes[1]);
}

static void teardown(void *state)
{
    large_alltoall_t *s = state;
    comm_free(s->send);
    comm_free(s->recv);
    free(s);
}

static void iterate(void *state, int left, int right)
{
    large_alltoall_t *s = state;
    MPI_Alltoall(s->send, s->count, MPI_DOUBLE, s->recv, s->count, MPI_DOUBLE, s->comm);
}

static double per_iteration(void *state)
{
    large_alltoall_t *s = state;
    return (double)((size_t)s->count * sizeof(double)) * (s->n - 1);
}

#define LARGE_ALLTOALL(var, id_, name_, setup_, iterations_) \
    const canary_kernel_t var = {                            \
        .id = id_,                                           \
        .name = name_,                                       \
        .unit = "MiB/s/rank",                                \
        .higher_is_better = 1,                               \
        .loop = LOOP_COLLECTIVE,                             \
        .limits = {10000, 1, iterations_, 1},                \
        .extra = 1,                                          \
        .setup = setup_,                                     \
        .teardown = teardown,                                \
        .iterate = iterate,                                  \
        .per_iteration = per_iteration,                      \
    }

LARGE_ALLTOALL(alltoall_1mib, "alltoall_1mib", "Multiple Alltoall (1 MiB/rank)", setup_small, 8);
LARGE_ALLTOALL(alltoall_16mib, "alltoall_16mib", "Multiple Alltoall (16 MiB/rank)", setup_large, 2);
