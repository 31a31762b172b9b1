/* The pure parts of node discovery (infra/nodes.c), without MPI, so that
 * bench/setup_bench.c can time them at a million ranks (docs/scale.md).
 *
 * Nodes are numbered in sorted host-name order; nodes with the same name
 * (emulated nodes of one host) keep their given order. */
#ifndef GPCNET_NODE_GROUPS_H
#define GPCNET_NODE_GROUPS_H

#include <stddef.h>

/* names: n NUL-terminated node names in node-leader order, one every stride
 * bytes. Fills id_of[i] with leader i's node number (its rank in sorted
 * (name, i) order) and, when sorted is not NULL, sorted[j] with the leader
 * numbered j. Returns the number of distinct names (hosts), or -1 when
 * n < 1 or memory runs out. O(n log n) time, O(n) memory. */
int node_ids_by_name(const char *names, size_t stride, int n, int *id_of, int *sorted);

/* pairs: per world rank r, (leader[r], node id of r when r is a leader).
 * Fills node_of_rank[size] and local_of_rank[size] (ranks of a node in rank
 * order); *ppn gets a malloc'ed array of ranks per node. Returns the node
 * count, or -1 on bad input or no memory. O(size) time. */
int node_map_ranks(const int *pairs, int size, int *node_of_rank, int *local_of_rank, int **ppn);

#endif
