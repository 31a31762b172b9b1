/* The node-list files of the load test (docs/method.md#placement), named as the
 * reference names them so audit scripts keep working. */
#ifndef GPCNET_NODE_LISTS_H
#define GPCNET_NODE_LISTS_H

#include <stddef.h>

#define NODE_LIST_ALL "allnodes_congestion.dat"
#define NODE_LIST_CONGESTORS "congestors_nodes_congestion.dat"
#define NODE_LIST_CANARIES "network_nodes_congestion.dat"

/* Write names[ids[i]] for i < n, one per line, into a fresh file put in
 * place of dir/file (infra/safe_file.h): an existing file is replaced only
 * when replace is set. Returns 0 or -1 (errno set). */
int node_list_write(const char *dir, const char *file, const char *names, size_t name_len,
                    const int *ids, int n, int replace);

/* The file name of a list in a repetition: the name itself in the first,
 * "<stem>_r<N>.dat" in the N-th after it. As snprintf. */
int node_list_name(char *buf, size_t len, const char *file, int repetition);

/* Does any list of repetitions 1..repetitions exist in dir already? 1 with
 * its path in found, else 0. */
int node_lists_existing(const char *dir, int repetitions, char *found, size_t found_len);

#endif
