/* Communication buffers from MPI_Alloc_mem, as the reference allocates them:
 * a library may hand back registered or otherwise faster memory, so the
 * kernels measure what the reference measures. */
#ifndef GPCNET_COMM_MEM_H
#define GPCNET_COMM_MEM_H

#include <stddef.h>

/* bytes of zeroed memory from MPI_Alloc_mem; dies (whole job) on failure.
 * bytes may be 0 (a valid pointer to nothing). */
void *comm_alloc(size_t bytes);
/* Frees what comm_alloc returned; NULL is ignored. */
void comm_free(void *p);

#endif
