/* Window allocation for the one-sided kernels. */
#ifndef GPCNET_RMA_WINDOW_H
#define GPCNET_RMA_WINDOW_H

#include <mpi.h>

/* MPI_Win_allocate, zeroed, with the hint that no shared-memory segment is
 * wanted: measured windows never have an on-node target by design. Callers
 * on disjoint communicators of one host create windows in turns
 * (infra/turns.h). Libraries that do not know the hint ignore it. */
void rma_window_allocate(MPI_Aint bytes, int disp_unit, MPI_Comm comm, void *base, MPI_Win *win);

/* A congestor's window (infra/comm_mem.h, payload): rma_window_allocate on
 * an MPI library; under SMPI a window created over comm_alloc_payload
 * memory. Free it with rma_window_free_payload. */
void rma_window_allocate_payload(MPI_Aint bytes, int disp_unit, MPI_Comm comm, void *base,
                                 MPI_Win *win);
void rma_window_free_payload(MPI_Win *win, void *base);

#endif
