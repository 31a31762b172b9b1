/* Nodes and node-slice communicators (docs/method.md#terms,
 * docs/method.md#emulated-nodes).
 *
 * A node is the set of ranks sharing a host (MPI_COMM_TYPE_SHARED), or, when
 * emulating, every K consecutive ranks / N equal groups of ranks. Nodes are
 * numbered in sorted host-name order, as the reference numbers them (nodes
 * of one host, when emulated, by their lowest world rank); ranks within a
 * node by world rank. */
#ifndef GPCNET_NODES_H
#define GPCNET_NODES_H

#include <mpi.h>

#define NODE_NAME_LEN 96

typedef struct {
    int n_nodes;
    int my_node;
    int my_local;       /* my index within my node */
    int *ppn;           /* ranks per node, [n_nodes] */
    int *node_of_rank;  /* [world size] */
    int *local_of_rank; /* [world size] */
    int ppn_min, ppn_max;
    int emulated;
    /* Rank 0 only: */
    char (*names)[NODE_NAME_LEN]; /* node names, [n_nodes] */
    int n_hosts;
    char hostname[NODE_NAME_LEN];
} nodes_t;

/* Collective over world. emulate_ppn > 0: K ranks per node;
 * emulate_nodes > 0: N equal groups. Returns 0, or -1 when emulate_nodes
 * exceeds the number of ranks (every rank returns the same). */
int nodes_discover(nodes_t *nd, MPI_Comm world, int emulate_ppn, int emulate_nodes);
void nodes_free(nodes_t *nd);

/* Node-slice communicator k of the given nodes: local rank k of every node
 * in the set, ordered by the node's position in the set. Collective over
 * world; ranks outside the set get MPI_COMM_NULL. position_of_node[n] is the
 * node's position in the set, or -1 when n is not in it. */
MPI_Comm nodes_slice_comm(const nodes_t *nd, MPI_Comm world, const int *position_of_node);

/* Every node leader's (local rank 0's) `count` doubles, `mine` (read on
 * leaders only), to world rank 0 at its node's place (world rank 0 need
 * not lead node 0): returns rank 0's [n_nodes * count] array, xmalloc'd;
 * NULL elsewhere. Collective over world. */
double *nodes_gather_leaders(const nodes_t *nd, MPI_Comm world, const double *mine, int count);

#endif
