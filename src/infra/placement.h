/* Load-test placement (docs/method.md#placement): which nodes run congestors, which run
 * canaries, and which congestor kernel every congestor node runs.
 *
 * A pure function of (seed, node count, fraction, kernel weights): every
 * rank computes the same answer without communicating, and the answer does
 * not depend on which rank computes it. O(N) time and memory. */
#ifndef GPCNET_PLACEMENT_H
#define GPCNET_PLACEMENT_H

#include <stdint.h>

typedef struct {
    int n_nodes;
    int *order;            /* n_nodes node ids, shuffled */
    int n_congestor_nodes; /* order[0 .. n_congestor_nodes-1] run congestors */
    int n_canary_nodes;    /* the rest run canaries */
    int *is_congestor;     /* per node id: 1 congestor, 0 canary */
    /* Per node id: the congestor kernel every rank of the node runs (the
     * paper and the reference deal kernels to whole nodes), -1 on canary
     * nodes. */
    int *kernel_of_node;
    /* --placement colocated: every node runs canaries on half its ranks and
     * its congestor kernel on the other half; then every node is in both
     * lists (n_congestor_nodes = n_canary_nodes = n_nodes). */
    int colocated;
} placement_t;

/* Nodes needed for n_kernels congestors (2 nodes each) and 2 canary nodes
 * when a fraction f of the nodes runs canaries. */
int placement_min_nodes(double canary_fraction, int n_kernels);
int placement_congestor_nodes(int n_nodes, double canary_fraction);

/* Returns 0, or -1 when there are too few nodes (nothing allocated).
 * weights: n_kernels positive integers, or NULL for equal shares; a kernel
 * of weight w gets w shares of the congestor nodes. */
int placement_compute(placement_t *p, uint64_t seed, int n_nodes, double canary_fraction,
                      int n_kernels, const int *weights);
/* Roles the launch gave (docs/method.md#roles-from-the-launch):
 * is_congestor[n] says whether node n runs congestors. The node list is
 * shuffled with the seed as placement_compute shuffles it, the congestor
 * nodes then taken first in that order, and the kernels dealt as there.
 * Returns -1 (nothing allocated) when fewer than 2 nodes run canaries or
 * fewer than 2 per kernel run congestors. */
int placement_compute_given(placement_t *p, uint64_t seed, int n_nodes, const int *is_congestor,
                            int n_kernels, const int *weights);
/* Colocated placement: all n_nodes nodes run canaries and congestors
 * (docs/method.md#knobs). Returns -1 when n_nodes < max(2, 2 n_kernels). */
int placement_compute_colocated(placement_t *p, uint64_t seed, int n_nodes, int n_kernels,
                                const int *weights);
int placement_min_nodes_colocated(int n_kernels);
/* Every node runs a congestor, none a canary (network_congestor). Returns
 * -1 when n_nodes < 2 n_kernels. */
int placement_compute_all(placement_t *p, uint64_t seed, int n_nodes, int n_kernels,
                          const int *weights);
/* The canary nodes in list order (placement_canary_count of them). */
const int *placement_canary_list(const placement_t *p);
/* Congestor nodes that run kernel k. */
int placement_kernel_nodes(const placement_t *p, int k);
void placement_free(placement_t *p);

#endif
