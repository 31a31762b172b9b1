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

/* A congestor's payload: memory whose contents nothing reads back (a
 * congestor exists for the bytes on the wire). On an MPI library this is
 * comm_alloc. Under SimGrid's SMPI it is SMPI_SHARED_MALLOC, never written:
 * every simulated rank maps the same pages and SMPI skips the copy of a
 * message from or into them. The simulated timings depend on sizes only;
 * the memory of a simulation no longer grows with the alltoall's and the
 * incasts' n x 4 KiB per rank (docs/scale.md). */
void *comm_alloc_payload(size_t bytes);
/* Frees what comm_alloc_payload returned; NULL is ignored. */
void comm_free_payload(void *p);

#endif
