/* RR Get Lat (8 B): MPI_Get one message (latency_doubles: one double) from
 * each ring neighbour, passive target, a shared lock held for the whole
 * ring. */
#include "canary/canary.h"
#include "canary/ring_buffers.h"

static void *setup(MPI_Comm slice, const canary_params_t *p)
{
    return ring_window_new(slice, (size_t)p->latency_doubles * sizeof(double),
                           p->latency_doubles, 1);
}

/* As the reference: one message from slot 2 of the left neighbour's window
 * and slot 3 of the right one's, into slots 0 and 1 of my own window memory. */
static void iterate(void *state, int left, int right)
{
    ring_state_t *s = state;
    const int count = s->count;
    MPI_Get(ring_slot(s, SLOT_TO_LEFT), count, MPI_DOUBLE, left, SLOT_FROM_LEFT, count,
            MPI_DOUBLE, s->win);
    MPI_Get(ring_slot(s, SLOT_TO_RIGHT), count, MPI_DOUBLE, right, SLOT_FROM_RIGHT, count,
            MPI_DOUBLE, s->win);
    MPI_Win_flush(left, s->win);
    MPI_Win_flush(right, s->win);
}

/* Printed size: one message. */
static long message_bytes(const canary_params_t *p)
{
    return (long)p->latency_doubles * (long)sizeof(double);
}

static double per_iteration(void *state) { return 2.0; }

const canary_kernel_t rr_get_lat = {
    .id = "rr_get_lat",
    .label = "RR Get Lat",
    .size_bytes = message_bytes,
    .unit = "usec",
    .higher_is_better = 0,
    .loop = LOOP_RANDOM_RING,
    .limits = {.measurements = 10000, .rings = 30, .iterations = 200, .warmup = 200},
    .one_sided = 1,
    .setup = setup,
    .teardown = ring_window_free,
    .ring_begin = ring_lock_neighbours,
    .ring_end = ring_unlock_neighbours,
    .iterate = iterate,
    .per_iteration = per_iteration,
};
