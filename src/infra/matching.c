#include "infra/matching.h"

#include "infra/rng.h"

void matching_partners(uint64_t seed, int m, int n, int *order, int *partner)
{
    for (int i = 0; i < n; i++)
        order[i] = i;
    rng_t rng;
    rng_init(&rng, rng_seed_mix(seed, MATCHING_SALT, (uint64_t)m));
    rng_shuffle(&rng, order, n);
    for (int i = 0; i + 1 < n; i += 2) {
        partner[order[i]] = order[i + 1];
        partner[order[i + 1]] = order[i];
    }
}
