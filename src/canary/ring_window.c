/* State of the one-sided ring kernels: a window on the slice, a send
 * buffer, and passive-target locks on both neighbours held for one ring. */
#include <stdlib.h>

#include "canary/ring_buffers.h"
#include "infra/fatal.h"
#include "infra/rma_window.h"

void *ring_window_new(MPI_Comm slice, size_t send_bytes, MPI_Aint win_bytes, int disp_unit)
{
    ring_state_t *s = xcalloc(1, sizeof(*s));
    s->comm = slice;
    s->send = xcalloc(1, send_bytes);
    rma_window_allocate(win_bytes, disp_unit, slice, &s->win_base, &s->win);
    MPI_Barrier(slice);
    return s;
}

void ring_window_free(void *state)
{
    ring_state_t *s = state;
    MPI_Win_free(&s->win);
    free(s->send);
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
