/* The node-list files of the load test (SPEC A.4 step 4), named as the
 * reference names them so audit scripts keep working. */
#ifndef GPCNET_NODE_LISTS_H
#define GPCNET_NODE_LISTS_H

#include <stddef.h>

#define NODE_LIST_ALL "allnodes_congestion.dat"
#define NODE_LIST_CONGESTORS "congestors_nodes_congestion.dat"
#define NODE_LIST_CANARIES "network_nodes_congestion.dat"

/* Write names[ids[i]] for i < n, one per line. Returns 0 or -1 (errno set). */
int node_list_write(const char *dir, const char *file, const char *names, size_t name_len,
                    const int *ids, int n);

#endif
