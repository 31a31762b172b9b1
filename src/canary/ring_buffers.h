/* Buffers shared by the two-sided and one-sided ring kernels. */
#ifndef GPCNET_RING_BUFFERS_H
#define GPCNET_RING_BUFFERS_H

#include <mpi.h>

#define BW_MSG_BYTES 131072 /* 128 KiB per message (SPEC A.3) */
#define BW_OUTSTANDING 8    /* messages in flight to each neighbour */

/* Tags by direction, so a ring of two (left == right) still matches each
 * message with the right receive. */
#define TAG_FROM_LEFT 81
#define TAG_FROM_RIGHT 82

typedef struct {
    MPI_Comm comm;
    MPI_Win win;         /* one-sided kernels only */
    double *win_base;
    char *send;          /* one message per direction */
    char *recv;          /* one message per outstanding receive */
    MPI_Request *req;
    int sync;            /* BW+Sync: barrier inside the timed region */
} ring_state_t;

/* One-sided kernels: state with a window of win_bytes and a send buffer. */
void *ring_window_new(MPI_Comm slice, size_t send_bytes, MPI_Aint win_bytes, int disp_unit);
void ring_window_free(void *state);
/* Lock/unlock both neighbours' windows (shared, once when they coincide). */
void ring_lock_neighbours(void *state, int left, int right);
void ring_unlock_neighbours(void *state, int left, int right);

#endif
