/* Window allocation for the one-sided kernels. */
#ifndef GPCNET_RMA_WINDOW_H
#define GPCNET_RMA_WINDOW_H

#include <mpi.h>

/* MPI_Win_allocate with the hint that no shared-memory segment is wanted:
 * measured windows never have an on-node target by design, and Open MPI
 * 4.1 crashes when several such segments are created at once on one host
 * (emulated nodes). Other libraries ignore the hint. */
void rma_window_allocate(MPI_Aint bytes, int disp_unit, MPI_Comm comm, void *base, MPI_Win *win);

#endif
