/* Passive-target locks on both ring neighbours, held for one ring. */
#include "canary/ring_buffers.h"

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
