#include "infra/rma_window.h"

#include <string.h>

#include "infra/comm_mem.h"

void rma_window_allocate(MPI_Aint bytes, int disp_unit, MPI_Comm comm, void *base, MPI_Win *win)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "alloc_shm", "false");
    MPI_Win_allocate(bytes, disp_unit, info, comm, base, win);
    MPI_Info_free(&info);
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
