/* Ending the job: never hang, always say why. */
#ifndef GPCNET_FATAL_H
#define GPCNET_FATAL_H

#include <stddef.h>

/* An error only this rank sees (allocation, I/O): message, then abort the
 * whole job so no rank waits forever for this one. */
void die(const char *fmt, ...);

/* An error every rank reaches together (too few nodes, bad usage): rank 0
 * prints the message, every rank finalizes MPI and exits with code. */
void exit_all(int code, const char *fmt, ...);

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);

#endif
