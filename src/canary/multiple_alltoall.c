/* Multiple Alltoall (4096 B): MPI_Alltoall of alltoall_doubles (512
 * doubles) per peer on every node-slice communicator at once. */
#include <stdlib.h>

#include "canary/canary.h"
#include "infra/comm_mem.h"
#include "infra/fatal.h"

typedef struct {
    MPI_Comm comm;
    int n;
    int count; /* doubles to each peer */
    double *send, *recv;
} alltoall_state_t;

static void *setup(MPI_Comm slice, const canary_params_t *p)
{
    alltoall_state_t *s = xcalloc(1, sizeof(*s));
    s->comm = slice;
    s->count = p->alltoall_doubles;
    MPI_Comm_size(slice, &s->n);
    s->send = comm_alloc((size_t)s->n * (size_t)s->count * sizeof(double));
    s->recv = comm_alloc((size_t)s->n * (size_t)s->count * sizeof(double));
    return s;
}

static void teardown(void *state)
{
    alltoall_state_t *s = state;
    comm_free(s->send);
    comm_free(s->recv);
    free(s);
}

static void iterate(void *state, int left, int right)
{
    alltoall_state_t *s = state;
    MPI_Alltoall(s->send, s->count, MPI_DOUBLE, s->recv, s->count, MPI_DOUBLE, s->comm);
}

/* Bytes a rank sends: one message to each of the n-1 others. */
static double per_iteration(void *state)
{
    alltoall_state_t *s = state;
    return (double)((size_t)s->count * sizeof(double)) * (s->n - 1);
}

/* Fewer iterations on large communicators: nI * 64 / n above 64 ranks. */
static int iterations_for(int configured, int n)
{
    if (n <= 64)
        return configured;
    int it = (int)((double)configured * 64.0 / n);
    return it < 1 ? 1 : it;
}

const canary_kernel_t multiple_alltoall = {
    .id = "multiple_alltoall",
    .name = "Multiple Alltoall (4096 B)",
    .unit = "MiB/s/rank",
    .higher_is_better = 1,
    .loop = LOOP_COLLECTIVE,
    .limits = {10000, 1, 64, 1},
    .setup = setup,
    .teardown = teardown,
    .iterations_for = iterations_for,
    .iterate = iterate,
    .per_iteration = per_iteration,
};
