/* RR Put BW (131072 B): 8 MPI_Put of 128 KiB to each ring neighbour, then
 * flush both; passive target with shared locks held for the ring. */
#include "canary/canary.h"
#include "canary/ring_buffers.h"

static void *setup(MPI_Comm slice) { return ring_window_new(slice, BW_MSG_BYTES); }

/* As the reference: the origin is the window's own memory, and all 8 puts to
 * one neighbour target the same displacement of its window. */
static void iterate(void *state, int left, int right)
{
    ring_state_t *s = state;
    for (int j = 0; j < BW_OUTSTANDING; j++) {
        MPI_Put(ring_slot(s, SLOT_TO_LEFT), BW_MSG_BYTES, MPI_BYTE, left, SLOT_FROM_LEFT,
                BW_MSG_BYTES, MPI_BYTE, s->win);
        MPI_Put(ring_slot(s, SLOT_TO_RIGHT), BW_MSG_BYTES, MPI_BYTE, right, SLOT_FROM_RIGHT,
                BW_MSG_BYTES, MPI_BYTE, s->win);
    }
    MPI_Win_flush(left, s->win);
    MPI_Win_flush(right, s->win);
}

static double per_iteration(void *state) { return 2.0 * BW_OUTSTANDING * BW_MSG_BYTES; }

const canary_kernel_t rr_put_bw = {
    .id = "rr_put_bw",
    .name = "RR Put BW (131072 B)",
    .unit = "MiB/s/rank",
    .higher_is_better = 1,
    .loop = LOOP_RANDOM_RING,
    .limits = {10000, 30, 8, 1},
    .setup = setup,
    .teardown = ring_window_free,
    .ring_begin = ring_lock_neighbours,
    .ring_end = ring_unlock_neighbours,
    .iterate = iterate,
    .per_iteration = per_iteration,
};
