/* RR Put BW (131072 B): 8 MPI_Put of 128 KiB (bandwidth_outstanding of
 * bandwidth_bytes) to each ring neighbour, then flush both; passive target
 * with shared locks held for the ring. */
#include "canary/canary.h"
#include "canary/ring_buffers.h"

static void *setup(MPI_Comm slice, const canary_params_t *p)
{
    return ring_window_new(slice, (size_t)p->bandwidth_bytes, p->bandwidth_bytes,
                           p->bandwidth_outstanding);
}

/* As the reference: the origin is the window's own memory, and all puts to
 * one neighbour target the same displacement of its window. */
static void iterate(void *state, int left, int right)
{
    ring_state_t *s = state;
    const int n = s->outstanding, count = s->count;
    for (int j = 0; j < n; j++) {
        MPI_Put(ring_slot(s, SLOT_TO_LEFT), count, MPI_BYTE, left, SLOT_FROM_LEFT, count,
                MPI_BYTE, s->win);
        MPI_Put(ring_slot(s, SLOT_TO_RIGHT), count, MPI_BYTE, right, SLOT_FROM_RIGHT, count,
                MPI_BYTE, s->win);
    }
    MPI_Win_flush(left, s->win);
    MPI_Win_flush(right, s->win);
}

/* Printed size: one message. */
static long message_bytes(const canary_params_t *p) { return p->bandwidth_bytes; }

const canary_kernel_t rr_put_bw = {
    .id = "rr_put_bw",
    .label = "RR Put BW",
    .size_bytes = message_bytes,
    .unit = "MiB/s/rank",
    .higher_is_better = 1,
    .loop = LOOP_RANDOM_RING,
    .limits = {.measurements = 10000, .rings = 30, .iterations = 8, .warmup = 1},
    .one_sided = 1,
    .setup = setup,
    .teardown = ring_window_free,
    .ring_begin = ring_lock_neighbours,
    .ring_end = ring_unlock_neighbours,
    .iterate = iterate,
    .per_iteration = ring_bytes_per_iteration,
};
