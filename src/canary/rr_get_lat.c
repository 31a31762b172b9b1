/* RR Get Lat (8 B): MPI_Get one double from each ring neighbour, passive
 * target, a shared lock held for the whole ring. */
#include "canary/canary.h"
#include "canary/ring_buffers.h"

static void *setup(MPI_Comm slice)
{
    return ring_window_new(slice, 2 * sizeof(double), 2 * sizeof(double), sizeof(double));
}

static void iterate(void *state, int left, int right)
{
    ring_state_t *s = state;
    double *dst = (double *)s->send;
    MPI_Get(&dst[0], 1, MPI_DOUBLE, left, 0, 1, MPI_DOUBLE, s->win);
    MPI_Get(&dst[1], 1, MPI_DOUBLE, right, 1, 1, MPI_DOUBLE, s->win);
    MPI_Win_flush(left, s->win);
    MPI_Win_flush(right, s->win);
}

static double per_iteration(void *state) { return 2.0; }

const canary_kernel_t rr_get_lat = {
    .id = "rr_get_lat",
    .name = "RR Get Lat (8 B)",
    .unit = "usec",
    .higher_is_better = 0,
    .loop = LOOP_RANDOM_RING,
    .limits = {10000, 30, 200, 200},
    .setup = setup,
    .teardown = ring_window_free,
    .ring_begin = ring_lock_neighbours,
    .ring_end = ring_unlock_neighbours,
    .iterate = iterate,
    .per_iteration = per_iteration,
};
