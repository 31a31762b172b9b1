#include "congestor/congestor_state.h"

#include <stdlib.h>

#include "congestor/congestor.h"
#include "infra/comm_mem.h"
#include "infra/fatal.h"
#include "infra/rma_window.h"

congestor_state_t *congestor_state_new(MPI_Comm comm, const congestor_params_t *p,
                                       size_t send_doubles, size_t recv_doubles)
{
    congestor_state_t *s = xcalloc(1, sizeof(*s));
    s->comm = comm;
    s->count = (int)congestor_message_doubles(p);
    MPI_Comm_rank(comm, &s->rank);
    MPI_Comm_size(comm, &s->n);
    /* Communication buffers from MPI_Alloc_mem, as the reference (under
     * SMPI folded shared memory: infra/comm_mem.h). */
    s->send = comm_alloc_payload(send_doubles * sizeof(double));
    s->recv = comm_alloc_payload(recv_doubles * sizeof(double));
    s->req = xcalloc((size_t)s->n, sizeof(MPI_Request));
    s->win = MPI_WIN_NULL;
    return s;
}

void congestor_state_window(congestor_state_t *s, size_t win_doubles)
{
    rma_window_allocate_payload((MPI_Aint)(win_doubles * sizeof(double)), sizeof(double),
                                s->comm, &s->win_base, &s->win);
    MPI_Barrier(s->comm);
}

void congestor_state_free(void *state)
{
    congestor_state_t *s = state;
    if (s->win != MPI_WIN_NULL)
        rma_window_free_payload(&s->win, s->win_base);
    comm_free_payload(s->send);
    comm_free_payload(s->recv);
    free(s->req);
    free(s);
}

/* One-sided incast/broadcast hold a shared lock on the root for a pass. */
void congestor_lock_root(void *state)
{
    congestor_state_t *s = state;
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, s->win);
}

void congestor_unlock_root(void *state)
{
    congestor_state_t *s = state;
    MPI_Win_unlock(0, s->win);
}

/* Incast and broadcast bandwidth: 4 KiB per iteration per non-root rank. */
double congestor_bytes_if_not_root(void *state)
{
    congestor_state_t *s = state;
    return s->rank == 0 ? 0.0 : s->count * sizeof(double);
}
