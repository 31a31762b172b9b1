/* Multiple Alltoall: MPI_Alltoall on every node-slice communicator at once.
 * The published one sends alltoall_doubles (512 doubles, 4096 B) to each
 * peer. The extras (selected by name in --tests) send collective_bytes[0]
 * (1 MiB) or collective_bytes[1] (16 MiB) per rank in all, split evenly
 * among the n ranks of the slice (bytes / n to each, whole doubles, at
 * least one): their name gives the size per rank, not per peer, because a
 * per-rank volume does not grow with the slice, so they need no iteration
 * scaling. */
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

static void *setup_count(MPI_Comm slice, int count)
{
    alltoall_state_t *s = xcalloc(1, sizeof(*s));
    s->comm = slice;
    s->count = count;
    MPI_Comm_size(slice, &s->n);
    s->send = comm_alloc((size_t)s->n * (size_t)s->count * sizeof(double));
    s->recv = comm_alloc((size_t)s->n * (size_t)s->count * sizeof(double));
    return s;
}

static void *setup(MPI_Comm slice, const canary_params_t *p)
{
    return setup_count(slice, p->alltoall_doubles);
}

/* bytes per rank split among the slice's n ranks: doubles to each peer. */
static void *setup_per_rank(MPI_Comm slice, long bytes)
{
    int n;
    MPI_Comm_size(slice, &n);
    long per_peer = bytes / ((long)n * (long)sizeof(double));
    return setup_count(slice, per_peer > 0 ? (int)per_peer : 1);
}

static void *setup_1mib(MPI_Comm slice, const canary_params_t *p)
{
    return setup_per_rank(slice, p->collective_bytes[0]);
}

static void *setup_16mib(MPI_Comm slice, const canary_params_t *p)
{
    return setup_per_rank(slice, p->collective_bytes[1]);
}

/* Printed sizes: to each peer (the published one), or per rank in all. */
static long bytes_to_peer(const canary_params_t *p)
{
    return (long)p->alltoall_doubles * (long)sizeof(double);
}
static long bytes_1mib(const canary_params_t *p) { return p->collective_bytes[0]; }
static long bytes_16mib(const canary_params_t *p) { return p->collective_bytes[1]; }

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

#define MULTIPLE_ALLTOALL(var, id_, size_, per_rank_, setup_, iterations_, scaling_) \
    const canary_kernel_t var = {                                                 \
        .id = id_,                                                                \
        .label = "Multiple Alltoall",                                             \
        .size_bytes = size_,                                                      \
        .size_per_rank = per_rank_,                                               \
        .unit = "MiB/s/rank",                                                     \
        .higher_is_better = 1,                                                    \
        .loop = LOOP_COLLECTIVE,                                                  \
        .limits = {.measurements = 10000, .rings = 1, .iterations = iterations_,  \
                   .warmup = 1},                                                  \
        .setup = setup_,                                                          \
        .teardown = teardown,                                                     \
        .iterations_for = scaling_,                                               \
        .iterate = iterate,                                                       \
        .per_iteration = per_iteration,                                           \
    }

MULTIPLE_ALLTOALL(multiple_alltoall, "multiple_alltoall", bytes_to_peer, 0, setup, 64,
                  iterations_for);
MULTIPLE_ALLTOALL(alltoall_1mib, "alltoall_1mib", bytes_1mib, 1, setup_1mib, 8,
                  NULL);
MULTIPLE_ALLTOALL(alltoall_16mib, "alltoall_16mib", bytes_16mib, 1, setup_16mib,
                  2, NULL);
