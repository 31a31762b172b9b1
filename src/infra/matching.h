/* Random perfect matchings of nodes, for the effective bisection bandwidth
 * (suite/network_test/ebb.h; docs/method.md#effective-bisection-bandwidth).
 *
 * Matching m of a run pairs n nodes (n even) from the run's seed alone, so
 * every rank derives the same pairs without a message, and a reader of the
 * results can derive them again (python/gpcnet/testbed/ebb_model.py does,
 * and tests/python/test_ebb_model.py checks the two agree): the nodes
 * 0..n-1 shuffled (rng_shuffle, seeded with rng_seed_mix(seed,
 * MATCHING_SALT, m)), then each two neighbours of the shuffled list are a
 * pair. Every perfect matching is equally likely. */
#ifndef GPCNET_MATCHING_H
#define GPCNET_MATCHING_H

#include <stdint.h>

/* Kept apart from the rings' and the placement's seeds. */
#define MATCHING_SALT 0x65626230ULL /* "ebb0" */

/* partner[i] = the node paired with node i in matching m; n even, >= 2.
 * order is the caller's scratch of n ints (this file allocates nothing, so
 * it stays in the pure library with the generator). */
void matching_partners(uint64_t seed, int m, int n, int *order, int *partner);

#endif
