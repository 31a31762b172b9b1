/* Rings of the random-ring loop (docs/method.md#loops). Pure C. */
#ifndef GPCNET_RING_H
#define GPCNET_RING_H

#include <stdint.h>

/* The ring of index r of a slice: order[] is a permutation of 0..n-1, the
 * same on every rank for the same (seed, slice, r), and the same in every
 * measurement. Natural rings are the identity. */
void ring_order(uint64_t seed, int slice_index, int r, int natural, int n, int *order);

/* My neighbours in a ring (periodic). */
void ring_neighbours(const int *order, int n, int me, int *left, int *right);

#endif
