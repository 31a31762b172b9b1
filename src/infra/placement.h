/* Load-test placement (SPEC A.4): which nodes run congestors, which run
 * canaries, and which congestor kernel every congestor rank runs.
 *
 * A pure function of (seed, node count, ranks per node, fraction, kernel
 * weights): every rank computes the same answer without communicating, and
 * the answer does not depend on which rank computes it. */
#ifndef GPCNET_PLACEMENT_H
#define GPCNET_PLACEMENT_H

#include <stdint.h>

typedef struct {
    int n_nodes;
    int *order;            /* n_nodes node ids, shuffled */
    int n_congestor_nodes; /* order[0 .. n_congestor_nodes-1] run congestors */
    int n_canary_nodes;    /* the rest run canaries */
    int *is_congestor;     /* per node id: 1 congestor, 0 canary */
    int *kernel_offset;    /* per node id: start of its ranks in kernel_of */
    int *kernel_of;        /* per (node, local rank): kernel index, -1 on canary nodes */
} placement_t;

/* Nodes needed for n_kernels congestors (2 nodes each) and 2 canary nodes
 * when a fraction f of the nodes runs canaries. */
int placement_min_nodes(double canary_fraction, int n_kernels);
int placement_congestor_nodes(int n_nodes, double canary_fraction);

/* Returns 0, or -1 when there are too few nodes (nothing allocated). */
int placement_compute(placement_t *p, uint64_t seed, int n_nodes, const int *ppn,
                      double canary_fraction, int n_kernels, const int *weights);
void placement_free(placement_t *p);

#endif
