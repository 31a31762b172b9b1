#include "infra/rng.h"

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

uint64_t rng_seed_mix(uint64_t a, uint64_t b, uint64_t c)
{
    uint64_t x = a;
    uint64_t h = splitmix64(&x);
    x = h ^ b;
    h = splitmix64(&x);
    x = h ^ c;
    return splitmix64(&x);
}

void rng_init(rng_t *rng, uint64_t seed) { rng->state = seed; }

uint64_t rng_next(rng_t *rng) { return splitmix64(&rng->state); }

uint64_t rng_below(rng_t *rng, uint64_t n)
{
    /* Reject the top partial block so every residue is equally likely. */
    uint64_t limit = UINT64_MAX - (UINT64_MAX % n);
    uint64_t v;
    do {
        v = rng_next(rng);
    } while (v >= limit);
    return v % n;
}

void rng_shuffle(rng_t *rng, int *list, int n)
{
    for (int i = n - 1; i > 0; i--) {
        int j = (int)rng_below(rng, (uint64_t)i + 1);
        int t = list[i];
        list[i] = list[j];
        list[j] = t;
    }
}
