/* Multiple Allreduce (8 B): MPI_Allreduce of allreduce_doubles (one double)
 * on every node-slice communicator at once. */
#include <stdlib.h>

#include "canary/canary.h"
#include "infra/comm_mem.h"
#include "infra/fatal.h"

typedef struct {
    MPI_Comm comm;
    int count;        /* doubles reduced */
    double *buf;      /* MPI_Alloc_mem: [in][out] */
    double *in, *out; /* the two halves of buf */
} allreduce_state_t;

static void *setup(MPI_Comm slice, const canary_params_t *p)
{
    allreduce_state_t *s = xcalloc(1, sizeof(*s));
    s->comm = slice;
    s->count = p->allreduce_doubles;
    s->buf = comm_alloc(2 * (size_t)s->count * sizeof(double));
    s->in = s->buf;
    s->out = s->buf + s->count;
    for (int i = 0; i < s->count; i++)
        s->in[i] = 1.0;
    return s;
}

static void teardown(void *state)
{
    allreduce_state_t *s = state;
    comm_free(s->buf);
    free(s);
}

static void iterate(void *state, int left, int right)
{
    allreduce_state_t *s = state;
    MPI_Allreduce(s->in, s->out, s->count, MPI_DOUBLE, MPI_SUM, s->comm);
}

static double per_iteration(void *state) { return 1.0; }

const canary_kernel_t multiple_allreduce = {
    .id = "multiple_allreduce",
    .name = "Multiple Allreduce (8 B)",
    .unit = "usec",
    .higher_is_better = 0,
    .loop = LOOP_COLLECTIVE,
    .limits = {100000, 1, 200, 1},
    .load_canary = 1,
    .setup = setup,
    .teardown = teardown,
    .iterate = iterate,
    .per_iteration = per_iteration,
};
