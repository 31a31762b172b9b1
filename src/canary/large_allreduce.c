/* Multiple Allreduce at message sizes of AI training (extras, selected by
 * name in --tests): MPI_Allreduce of collective_bytes[0] (1 MiB) or
 * collective_bytes[1] (16 MiB) of doubles on every node-slice communicator
 * at once, timed per operation as the published 8 B Multiple Allreduce. */
#include <stdlib.h>

#include "canary/canary.h"
#include "infra/comm_mem.h"
#include "infra/fatal.h"

typedef struct {
    MPI_Comm comm;
    int count;         /* doubles reduced */
    double *in, *out;
} large_allreduce_t;

static void *setup_size(MPI_Comm slice, long bytes)
{
    large_allreduce_t *s = xcalloc(1, sizeof(*s));
    s->comm = slice;
    s->count = bytes / (long)sizeof(double) > 0 ? (int)(bytes / (long)sizeof(double)) : 1;
    s->in = comm_alloc((size_t)s->count * sizeof(double));
    s->out = comm_alloc((size_t)s->count * sizeof(double));
    for (int i = 0; i < s->count; i++)
        s->in[i] = 1.0;
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
    large_allreduce_t *s = state;
    comm_free(s->in);
    comm_free(s->out);
    free(s);
}

static void iterate(void *state, int left, int right)
{
    large_allreduce_t *s = state;
    MPI_Allreduce(s->in, s->out, s->count, MPI_DOUBLE, MPI_SUM, s->comm);
}

static double per_iteration(void *state) { return 1.0; }

/* Few iterations per measurement: one 16 MiB allreduce takes milliseconds,
 * and the time limit ends the test in any case. */
#define LARGE_ALLREDUCE(var, id_, name_, setup_, iterations_) \
    const canary_kernel_t var = {                             \
        .id = id_,                                            \
        .name = name_,                                        \
        .unit = "usec",                                       \
        .higher_is_better = 0,                                \
        .loop = LOOP_COLLECTIVE,                              \
        .limits = {10000, 1, iterations_, 1},                 \
        .extra = 1,                                           \
        .setup = setup_,                                      \
        .teardown = teardown,                                 \
        .iterate = iterate,                                   \
        .per_iteration = per_iteration,                       \
    }

LARGE_ALLREDUCE(allreduce_1mib, "allreduce_1mib", "Multiple Allreduce (1048576 B)", setup_small, 8);
LARGE_ALLREDUCE(allreduce_16mib, "allreduce_16mib", "Multiple Allreduce (16777216 B)", setup_large,
                2);
