/* State shared by the congestor kernels: communicator, rank, size, buffers
 * and (for the one-sided ones) a window. */
#ifndef GPCNET_CONGESTOR_STATE_H
#define GPCNET_CONGESTOR_STATE_H

#include <mpi.h>
#include <stddef.h>

#include "congestor/congestor.h"

typedef struct {
    MPI_Comm comm;
    int rank, n;
    int count; /* doubles per message: congestor_message_doubles of the parameters */
    double *send, *recv;
    MPI_Request *req;
    MPI_Win win;
    double *win_base;
} congestor_state_t;

/* send_doubles / recv_doubles may be 0; the message size comes from p. */
congestor_state_t *congestor_state_new(MPI_Comm comm, const congestor_params_t *p,
                                       size_t send_doubles, size_t recv_doubles);
void congestor_state_free(void *state);
/* Window of win_doubles on every rank (collective). */
void congestor_state_window(congestor_state_t *s, size_t win_doubles);
void congestor_lock_root(void *state);
void congestor_unlock_root(void *state);
double congestor_bytes_if_not_root(void *state);

#endif
