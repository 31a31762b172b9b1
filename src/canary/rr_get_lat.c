/* RR Get Lat (8 B): MPI_Get one double from each ring neighbour, passive
 * target, a shared lock held for the whole ring. */
#include "canary/canary.h"
#include "canary/ring_buffers.h"

static void *setup(MPI_Comm slice) { return ring_window_new(slice, sizeof(double)); }

/* As the reference: one double from slot 2 of the left neighbour's window and
 * slot 3 of the right one's, into slots 0 and 1 of my own window memory. */
static void iterate(void *state, int left, int right)
{
    ring_state_t *s = state;
    MPI_Get(ring_slot(s, SLOT_TO_LEFT), 1, MPI_DOUBLE, left, SLOT_FROM_LEFT, 1, MPI_DOUBLE, s->win);
    MPI_Get(ring_slot(s, SLOT_TO_RIGHT), 1, MPI_DOUBLE, right, SLOT_FROM_RIGHT, 1, MPI_DOUBLE,
            s->win);
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
