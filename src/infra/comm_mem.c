#include "infra/comm_mem.h"

#include <mpi.h>
#include <string.h>

#include "infra/fatal.h"

void *comm_alloc(size_t bytes)
{
    void *p = NULL;
    /* Some libraries return NULL for size 0; one byte keeps the pointer valid. */
    MPI_Aint n = bytes > 0 ? (MPI_Aint)bytes : 1;
    if (MPI_Alloc_mem(n, MPI_INFO_NULL, &p) != MPI_SUCCESS || p == NULL)
        die("MPI_Alloc_mem of %zu bytes failed\n", bytes);
    memset(p, 0, (size_t)n);
    return p;
}

void comm_free(void *p)
{
    if (p != NULL)
        MPI_Free_mem(p);
}
