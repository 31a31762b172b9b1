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
    /* Written, as the reference memsets its buffers: pages never written
     * (fresh calloc memory) all map one shared zero page, and sending from
     * them reads one cached page - faster than real buffers (measured: the
     * old calloc'd send buffers flattered the bandwidth kernels). */
    memset(p, 0, (size_t)n);
    return p;
}

void comm_free(void *p)
{
    if (p != NULL)
        MPI_Free_mem(p);
}

void *comm_alloc_payload(size_t bytes)
{
#ifdef SMPI_H
    void *p = SMPI_SHARED_MALLOC(bytes > 0 ? bytes : 1);
    if (p == NULL)
        die("SMPI_SHARED_MALLOC of %zu bytes failed\n", bytes);
    return p;
#else
    return comm_alloc(bytes);
#endif
}

void comm_free_payload(void *p)
{
#ifdef SMPI_H
    if (p != NULL)
        SMPI_SHARED_FREE(p);
#else
    comm_free(p);
#endif
}
