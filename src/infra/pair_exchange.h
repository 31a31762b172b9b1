/* What the per-node and per-NIC probes share (docs/method.md#naming-a-slow-node):
 * one timed exchange with a partner and the median of a round's times. */
#ifndef GPCNET_PAIR_EXCHANGE_H
#define GPCNET_PAIR_EXCHANGE_H

#include <mpi.h>

/* Send and receive `bytes` with `partner` at once, so that a slow direction
 * (either side's outgoing link) slows the pair. */
void pair_exchange(char *out, char *in, int bytes, int partner, int tag, MPI_Comm comm);

/* Median of v[0 .. k-1], k >= 1 (sorts v in place). */
double median_in_place(double *v, int k);

#endif
