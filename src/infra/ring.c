#include "infra/ring.h"

#include "infra/rng.h"

void ring_order(uint64_t seed, int slice_index, int r, int natural, int n, int *order)
{
    for (int i = 0; i < n; i++)
        order[i] = i;
    if (natural)
        return;
    rng_t rng;
    rng_init(&rng, rng_seed_mix(seed, (uint64_t)slice_index, (uint64_t)r));
    rng_shuffle(&rng, order, n);
}

void ring_neighbours(const int *order, int n, int me, int *left, int *right)
{
    int pos = 0;
    while (pos < n - 1 && order[pos] != me)
        pos++;
    *left = order[(pos - 1 + n) % n];
    *right = order[(pos + 1) % n];
}
