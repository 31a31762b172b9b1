/* Window allocation for the one-sided kernels. */
#ifndef GPCNET_RMA_WINDOW_H
#define GPCNET_RMA_WINDOW_H

#include <mpi.h>

/* MPI_Win_allocate with no info hints (as the reference), zeroed. Callers
 * on disjoint communicators of one host create windows in turns
 * (infra/turns.h): the library may back each window with a shared-memory
 * file named after the communicator. */
void rma_window_allocate(MPI_Aint bytes, int disp_unit, MPI_Comm comm, void *base, MPI_Win *win);

/* A congestor's window (infra/comm_mem.h, payload): rma_window_allocate on
 * an MPI library; under SMPI a window created over comm_alloc_payload
 * memory. Free it with rma_window_free_payload. */
void rma_window_allocate_payload(MPI_Aint bytes, int disp_unit, MPI_Comm comm, void *base,
                                 MPI_Win *win);
void rma_window_free_payload(MPI_Win *win, void *base);

#endif
