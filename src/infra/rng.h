/* Deterministic random numbers for placement and rings.
 *
 * Every rank must derive the same permutation from the same seed without
 * communicating, whatever the C library: so we carry our own generator
 * (SplitMix64) instead of rand(). */
#ifndef GPCNET_RNG_H
#define GPCNET_RNG_H

#include <stdint.h>

typedef struct { uint64_t state; } rng_t;

/* Mix several integers into one seed (order matters). */
uint64_t rng_seed_mix(uint64_t a, uint64_t b, uint64_t c);
void rng_init(rng_t *rng, uint64_t seed);
uint64_t rng_next(rng_t *rng);
/* Uniform integer in [0, n), unbiased; n > 0. */
uint64_t rng_below(rng_t *rng, uint64_t n);
/* Fisher-Yates shuffle of list[0..n-1]. */
void rng_shuffle(rng_t *rng, int *list, int n);

#endif
