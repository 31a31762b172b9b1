/* State of the one-sided ring kernels: a window on the slice whose memory
 * is also the origin of the transfers (as in the reference), and
 * passive-target locks on both neighbours held for one ring. */
#include <stdlib.h>

#include "canary/ring_buffers.h"
#include "infra/fatal.h"
#include "infra/rma_window.h"

void *ring_window_new(MPI_Comm slice, size_t slot_bytes, int count, int outstanding)
{
    ring_state_t *s = xcalloc(1, sizeof(*s));
    s->comm = slice;
    s->slot = slot_bytes;
    s->count = count;
    s->outstanding = outstanding;
    rma_window_allocate((MPI_Aint)(RING_SLOTS * slot_bytes), (int)slot_bytes, slice, &s->base,
                        &s->win);
    MPI_Barrier(slice);
    return s;
}

void ring_window_free(void *state)
{
    ring_state_t *s = state;
    MPI_Win_free(&s->win);
    free(s);
}

void ring_lock_neighbours(void *state, int left, int right)
{
    ring_state_t *s = state;
    MPI_Win_lock(MPI_LOCK_SHARED, left, 0, s->win);
    if (right != left)
        MPI_Win_lock(MPI_LOCK_SHARED, right, 0, s->win);
}

void ring_unlock_neighbours(void *state, int left, int right)
{
    ring_state_t *s = state;
    MPI_Win_unlock(left, s->win);
    if (right != left)
        MPI_Win_unlock(right, s->win);
}
