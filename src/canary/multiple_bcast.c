/* Multiple Bcast (extra, selected by name in --tests): MPI_Bcast of
 * collective_bytes[0] (1 MiB) from the first rank of every node-slice
 * communicator at once, timed per operation as Multiple Allreduce. The
 * root is fixed: what is measured is the spread of one large message
 * through the slice. */
#include <stdlib.h>

#include "canary/canary.h"
#include "infra/comm_mem.h"
#include "infra/fatal.h"

typedef struct {
    MPI_Comm comm;
    int count; /* doubles broadcast */
    double *buf;
} bcast_state_t;

static void *setup(MPI_Comm slice, const canary_params_t *p)
{
    bcast_state_t *s = xcalloc(1, sizeof(*s));
    s->comm = slice;
    long count = p->collective_bytes[0] / (long)sizeof(double);
    s->count = count > 0 ? (int)count : 1;
    s->buf = comm_alloc((size_t)s->count * sizeof(double));
    return s;
}

/* Printed size: the message broadcast, whole doubles, at least one. */
static long message_bytes(const canary_params_t *p)
{
    long count = p->collective_bytes[0] / (long)sizeof(double);
    return (count > 0 ? count : 1) * (long)sizeof(double);
}

static void teardown(void *state)
{
    bcast_state_t *s = state;
    comm_free(s->buf);
    free(s);
}

static void iterate(void *state, int left, int right)
{
    bcast_state_t *s = state;
    MPI_Bcast(s->buf, s->count, MPI_DOUBLE, 0, s->comm);
}

static double per_iteration(void *state) { return 1.0; }

const canary_kernel_t multiple_bcast = {
    .id = "multiple_bcast",
    .label = "Multiple Bcast",
    .size_bytes = message_bytes,
    .unit = "usec",
    .higher_is_better = 0,
    .loop = LOOP_COLLECTIVE,
    .limits = {.measurements = 10000, .rings = 1, .iterations = 8, .warmup = 1},
    .setup = setup,
    .teardown = teardown,
    .iterate = iterate,
    .per_iteration = per_iteration,
};
