/* Buffers shared by the two-sided and one-sided ring kernels.
 *
 * Laid out as the reference lays them out (one region of four messages:
 * [to left][to right][from left][from right]): all outstanding messages
 * from one neighbour land in that neighbour's single receive slot,
 * Puts to one neighbour all target one displacement, and the one-sided
 * kernels' origin buffers are the window's own memory. */
#ifndef GPCNET_RING_BUFFERS_H
#define GPCNET_RING_BUFFERS_H

#include <mpi.h>
#include <stddef.h>

/* Tags by direction, so a ring of two (left == right) still matches each
 * message with the right receive. */
#define TAG_FROM_LEFT 81
#define TAG_FROM_RIGHT 82

/* Slots of the four-message region, in units of one message. */
enum { SLOT_TO_LEFT, SLOT_TO_RIGHT, SLOT_FROM_LEFT, SLOT_FROM_RIGHT, RING_SLOTS };

typedef struct {
    MPI_Comm comm;
    MPI_Win win;     /* one-sided kernels only */
    char *base;      /* the four slots: MPI_Alloc_mem, or the window's memory */
    size_t slot;     /* bytes per slot: one message */
    int count;       /* elements per message (MPI_BYTE or MPI_DOUBLE) */
    int outstanding; /* bandwidth: messages in flight to each neighbour */
    MPI_Request *req;
    int sync;        /* BW+Sync: barrier inside the timed region */
} ring_state_t;

static inline char *ring_slot(const ring_state_t *s, int which)
{
    return s->base + (size_t)which * s->slot;
}

/* The bandwidth kernels' per_iteration: bytes this rank sends (or puts) per
 * iteration, its messages to each of its 2 neighbours. */
static inline double ring_bytes_per_iteration(void *state)
{
    const ring_state_t *s = state;
    return 2.0 * s->outstanding * (double)s->slot;
}

/* One-sided kernels: a window of RING_SLOTS slots of slot_bytes (disp_unit
 * = slot_bytes, so displacement k is slot k); count and outstanding are
 * kept in the state for iterate. */
void *ring_window_new(MPI_Comm slice, size_t slot_bytes, int count, int outstanding);
void ring_window_free(void *state);
/* Lock/unlock both neighbours' windows (shared, once when they coincide). */
void ring_lock_neighbours(void *state, int left, int right);
void ring_unlock_neighbours(void *state, int left, int right);

#endif
