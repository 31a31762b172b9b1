#include "infra/rma_window.h"

#include <string.h>

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
