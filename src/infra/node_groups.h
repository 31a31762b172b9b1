/* Ranks grouped into nodes by host name, without MPI (SPEC B.4).
 *
 * Nodes are numbered in sorted host-name order and the ranks of a node in
 * rank order, so the numbering does not depend on how the launcher laid
 * ranks out. O(n log n) time and O(n) memory for n ranks: the grouping
 * itself must not be what limits the scale (docs/scale.md). */
#ifndef GPCNET_NODE_GROUPS_H
#define GPCNET_NODE_GROUPS_H

#include <stddef.h>

/* names: n NUL-terminated host names, one every stride bytes (rank order).
 * Fills node_of_rank[n] and local_of_rank[n]; *ppn gets a malloc'ed array
 * of ranks per node. Returns the node count, or -1 when n < 1 or memory
 * runs out (nothing allocated then). */
int node_groups_by_name(const char *names, size_t stride, int n, int *node_of_rank,
                        int *local_of_rank, int **ppn);

#endif
