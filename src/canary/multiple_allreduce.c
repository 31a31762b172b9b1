/* Multiple Allreduce (8 B): MPI_Allreduce of one double on every node-slice
 * communicator at once. */
#include <stdlib.h>

#include "canary/canary.h"
#include "infra/comm_mem.h"
#include "infra/fatal.h"

typedef struct {
    MPI_Comm comm;
    double *buf; /* MPI_Alloc_mem: [in][out] */
} allreduce_state_t;

static void *setup(MPI_Comm slice)
{
    allreduce_state_t *s = xcalloc(1, sizeof(*s));
    s->comm = slice;
    s->buf = comm_alloc(2 * sizeof(double));
    s->buf[0] = 1.0;
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
    MPI_Allreduce(&s->buf[0], &s->buf[1], 1, MPI_DOUBLE, MPI_SUM, s->comm);
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
