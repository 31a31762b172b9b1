#include "infra/placement.h"

#include <math.h>
#include <stdlib.h>

#include "infra/rng.h"

int placement_congestor_nodes(int n_nodes, double canary_fraction)
{
    /* Same expression as the reference for f = 0.2: floor(0.8 N). */
    return (int)floor((1.0 - canary_fraction) * (double)n_nodes);
}

int placement_min_nodes(double canary_fraction, int n_kernels)
{
    for (int n = 2; n < 1000000; n++) {
        int nc = placement_congestor_nodes(n, canary_fraction);
        if (nc >= 2 * n_kernels && n - nc >= 2)
            return n;
    }
    return -1;
}

int placement_compute(placement_t *p, uint64_t seed, int n_nodes, const int *ppn,
                      double canary_fraction, int n_kernels, const int *weights)
{
    int nc = placement_congestor_nodes(n_nodes, canary_fraction);
    if (nc < 2 * n_kernels || n_nodes - nc < 2)
        return -1;

    p->n_nodes = n_nodes;
    p->n_congestor_nodes = nc;
    p->n_canary_nodes = n_nodes - nc;
    p->order = malloc(sizeof(int) * (size_t)n_nodes);
    p->is_congestor = calloc((size_t)n_nodes, sizeof(int));
    p->kernel_offset = malloc(sizeof(int) * ((size_t)n_nodes + 1));

    rng_t rng;
    rng_init(&rng, rng_seed_mix(seed, 0x6e6f646573ULL /* "nodes" */, 0));
    for (int i = 0; i < n_nodes; i++)
        p->order[i] = i;
    rng_shuffle(&rng, p->order, n_nodes);
    for (int i = 0; i < nc; i++)
        p->is_congestor[p->order[i]] = 1;

    int max_ppn = 0, total = 0;
    for (int n = 0; n < n_nodes; n++) {
        p->kernel_offset[n] = total;
        total += ppn[n];
        if (ppn[n] > max_ppn)
            max_ppn = ppn[n];
    }
    p->kernel_offset[n_nodes] = total;
    p->kernel_of = malloc(sizeof(int) * (size_t)(total > 0 ? total : 1));
    for (int i = 0; i < total; i++)
        p->kernel_of[i] = -1;

    /* The dealing cycle: kernel k appears weights[k] times. */
    int cycle_len = 0;
    for (int k = 0; k < n_kernels; k++)
        cycle_len += weights ? weights[k] : 1;
    int *cycle = malloc(sizeof(int) * (size_t)cycle_len);
    for (int k = 0, c = 0; k < n_kernels; k++)
        for (int w = 0; w < (weights ? weights[k] : 1); w++)
            cycle[c++] = k;

    /* Slice s holds local rank s of every congestor node that has one; its
     * members are shuffled and dealt round-robin, so a kernel's ranks within a
     * slice are on distinct nodes (no on-node congestor traffic). */
    int *members = malloc(sizeof(int) * (size_t)nc);
    for (int s = 0; s < max_ppn; s++) {
        int m = 0;
        for (int i = 0; i < nc; i++)
            if (ppn[p->order[i]] > s)
                members[m++] = p->order[i];
        rng_init(&rng, rng_seed_mix(seed, 0x736c696365ULL /* "slice" */, (uint64_t)s));
        rng_shuffle(&rng, members, m);
        for (int i = 0; i < m; i++)
            p->kernel_of[p->kernel_offset[members[i]] + s] = cycle[i % cycle_len];
    }
    free(members);
    free(cycle);
    return 0;
}

void placement_free(placement_t *p)
{
    free(p->order);
    free(p->is_congestor);
    free(p->kernel_offset);
    free(p->kernel_of);
    p->order = p->is_congestor = p->kernel_offset = p->kernel_of = NULL;
}
