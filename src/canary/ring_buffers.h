/* Buffers shared by the two-sided and one-sided ring kernels.
 *
 * Laid out as the reference lays them out (one region of four 128 KiB
 * messages: [to left][to right][from left][from right]): all 8 outstanding
 * messages from one neighbour land in that neighbour's single receive slot,
 * Puts to one neighbour all target one displacement, and the one-sided
 * kernels' origin buffers are the window's own memory. */
#ifndef GPCNET_RING_BUFFERS_H
#define GPCNET_RING_BUFFERS_H

#include <mpi.h>
#include <stddef.h>

#define BW_MSG_BYTES 131072 /* 128 KiB per message (docs/method.md#canaries) */
#define BW_OUTSTANDING 8    /* messages in flight to each neighbour */

/* Tags by direction, so a ring of two (left == right) still matches each
 * message with the right receive. */
#define TAG_FROM_LEFT 81
#define TAG_FROM_RIGHT 82

/* Slots of the four-message region, in units of one message. */
enum { SLOT_TO_LEFT, SLOT_TO_RIGHT, SLOT_FROM_LEFT, SLOT_FROM_RIGHT, RING_SLOTS };

typedef struct {
    MPI_Comm comm;
    MPI_Win win;   /* one-sided kernels only */
    char *base;    /* the four slots: MPI_Alloc_mem, or the window's memory */
    size_t slot;   /* bytes per slot */
    MPI_Request *req;
    int sync;      /* BW+Sync: barrier inside the timed region */
} ring_state_t;

static inline char *ring_slot(const ring_state_t *s, int which)
{
    return s->base + (size_t)which * s->slot;
}

/* One-sided kernels: a window of RING_SLOTS slots of slot_bytes (disp_unit
 * = slot_bytes, so displacement k is slot k). */
void *ring_window_new(MPI_Comm slice, size_t slot_bytes);
void ring_window_free(void *state);
/* Lock/unlock both neighbours' windows (shared, once when they coincide). */
void ring_lock_neighbours(void *state, int left, int right);
void ring_unlock_neighbours(void *state, int left, int right);

#endif
