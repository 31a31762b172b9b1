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

/* Shuffle the node list; the first nc nodes will run congestors. */
static void shuffle_nodes(placement_t *p, uint64_t seed, int n_nodes, int nc)
{
    p->n_nodes = n_nodes;
    p->n_congestor_nodes = nc;
    p->order = malloc(sizeof(int) * (size_t)n_nodes);
    p->is_congestor = calloc((size_t)n_nodes, sizeof(int));
    p->kernel_of_node = malloc(sizeof(int) * (size_t)n_nodes);
    rng_t rng;
    rng_init(&rng, rng_seed_mix(seed, 0x6e6f646573ULL /* "nodes" */, 0));
    for (int i = 0; i < n_nodes; i++) {
        p->order[i] = i;
        p->kernel_of_node[i] = -1;
    }
    rng_shuffle(&rng, p->order, n_nodes);
    for (int i = 0; i < nc; i++)
        p->is_congestor[p->order[i]] = 1;
}

/* As the reference: the positions of the congestor nodes are shuffled and
 * dealt round-robin, so every kernel gets an even share of nodes spread
 * over the list, and every rank of a node runs the same kernel. A kernel
 * of weight w appears w times in the dealing cycle. */
static void deal_kernels(placement_t *p, uint64_t seed, int n_kernels, const int *weights)
{
    int nc = p->n_congestor_nodes;
    int cycle_len = 0;
    for (int k = 0; k < n_kernels; k++)
        cycle_len += weights ? weights[k] : 1;
    int *cycle = malloc(sizeof(int) * (size_t)cycle_len);
    for (int k = 0, c = 0; k < n_kernels; k++)
        for (int w = 0; w < (weights ? weights[k] : 1); w++)
            cycle[c++] = k;
    int *position = malloc(sizeof(int) * (size_t)(nc > 0 ? nc : 1));
    for (int i = 0; i < nc; i++)
        position[i] = i;
    rng_t rng;
    rng_init(&rng, rng_seed_mix(seed, 0x6b65726e656cULL /* "kernel" */, 0));
    rng_shuffle(&rng, position, nc);
    for (int i = 0; i < nc; i++)
        p->kernel_of_node[p->order[position[i]]] = cycle[i % cycle_len];
    free(position);
    free(cycle);
}

int placement_compute(placement_t *p, uint64_t seed, int n_nodes, double canary_fraction,
                      int n_kernels, const int *weights)
{
    int nc = placement_congestor_nodes(n_nodes, canary_fraction);
    if (nc < 2 * n_kernels || n_nodes - nc < 2)
        return -1;
    shuffle_nodes(p, seed, n_nodes, nc);
    p->n_canary_nodes = n_nodes - nc;
    p->colocated = 0;
    deal_kernels(p, seed, n_kernels, weights);
    return 0;
}

int placement_compute_given(placement_t *p, uint64_t seed, int n_nodes, const int *is_congestor,
                            int n_kernels, const int *weights)
{
    int nc = 0;
    for (int i = 0; i < n_nodes; i++)
        nc += is_congestor[i] != 0;
    if (nc < 2 * n_kernels || n_nodes - nc < 2)
        return -1;
    shuffle_nodes(p, seed, n_nodes, 0);
    /* Stable partition of the shuffled list: congestor nodes first. */
    int *shuffled = malloc(sizeof(int) * (size_t)n_nodes);
    for (int i = 0; i < n_nodes; i++)
        shuffled[i] = p->order[i];
    int c = 0, k = nc;
    for (int i = 0; i < n_nodes; i++) {
        int node = shuffled[i];
        if (is_congestor[node]) {
            p->order[c++] = node;
            p->is_congestor[node] = 1;
        } else {
            p->order[k++] = node;
        }
    }
    free(shuffled);
    p->n_congestor_nodes = nc;
    p->n_canary_nodes = n_nodes - nc;
    p->colocated = 0;
    deal_kernels(p, seed, n_kernels, weights);
    return 0;
}

int placement_min_nodes_colocated(int n_kernels)
{
    return 2 * n_kernels > 2 ? 2 * n_kernels : 2;
}

int placement_compute_colocated(placement_t *p, uint64_t seed, int n_nodes, int n_kernels,
                                const int *weights)
{
    if (n_nodes < placement_min_nodes_colocated(n_kernels))
        return -1;
    shuffle_nodes(p, seed, n_nodes, n_nodes);
    p->n_canary_nodes = n_nodes;
    p->colocated = 1;
    deal_kernels(p, seed, n_kernels, weights);
    return 0;
}

int placement_compute_all(placement_t *p, uint64_t seed, int n_nodes, int n_kernels,
                          const int *weights)
{
    if (n_nodes < 2 * n_kernels)
        return -1;
    shuffle_nodes(p, seed, n_nodes, n_nodes);
    p->n_canary_nodes = 0;
    p->colocated = 0;
    deal_kernels(p, seed, n_kernels, weights);
    return 0;
}

const int *placement_canary_list(const placement_t *p)
{
    return p->colocated ? p->order : p->order + p->n_congestor_nodes;
}

int placement_kernel_nodes(const placement_t *p, int k)
{
    int count = 0;
    for (int i = 0; i < p->n_congestor_nodes; i++)
        count += p->kernel_of_node[p->order[i]] == k;
    return count;
}

void placement_free(placement_t *p)
{
    free(p->order);
    free(p->is_congestor);
    free(p->kernel_of_node);
    p->order = p->is_congestor = p->kernel_of_node = NULL;
}
