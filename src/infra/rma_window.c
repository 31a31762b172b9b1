#include "infra/rma_window.h"

#include <string.h>

#include "infra/comm_mem.h"

void rma_window_allocate(MPI_Aint bytes, int disp_unit, MPI_Comm comm, void *base, MPI_Win *win)
{
    /* No info hints, as the reference allocates its windows. Our earlier
     * hint alloc_shm=false told the library not to put window memory in
     * shared memory; on real nodes a window's ranks are on different nodes
     * (one per node of a slice), so it mattered only on emulated nodes, where
     * it made our one-sided congestors differ from the reference's
     * (side by side in docs/fidelity.md). */
    MPI_Win_allocate(bytes, disp_unit, MPI_INFO_NULL, comm, base, win);
    /* Targets are read before anyone writes them (Get kernels). */
    void *mem;
    memcpy(&mem, base, sizeof(mem));
    if (bytes > 0)
        memset(mem, 0, (size_t)bytes);
}

void rma_window_allocate_payload(MPI_Aint bytes, int disp_unit, MPI_Comm comm, void *base,
                                 MPI_Win *win)
{
#ifdef SMPI_H
    void *mem = comm_alloc_payload((size_t)bytes);
    MPI_Win_create(mem, bytes, disp_unit, MPI_INFO_NULL, comm, win);
    memcpy(base, &mem, sizeof(mem));
#else
    rma_window_allocate(bytes, disp_unit, comm, base, win);
#endif
}

void rma_window_free_payload(MPI_Win *win, void *base)
{
    MPI_Win_free(win);
#ifdef SMPI_H
    comm_free_payload(base);
#else
    (void)base;
#endif
}
