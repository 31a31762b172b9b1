/* Reading a flow list (network_congestor --flows): pure C, no MPI. */
#ifndef GPCNET_FLOW_LIST_H
#define GPCNET_FLOW_LIST_H

#include <stddef.h>

/* Read "SRC DST" lines (node names; '#' starts a comment line) and turn them
 * into node-id pairs. Returns the number of flows, or -1 with a one-line
 * message naming the file and line in err. names: n_nodes names of name_len
 * bytes. Only a regular file is read (a named pipe or device is refused
 * without waiting for it). Bounded: lines of at most 4096 bytes, 64 MiB,
 * 1048576 flows; a NUL byte ends it at once. A flow listed twice is refused
 * with the lines of both. */
int flows_parse(const char *path, const char *names, size_t name_len, int n_nodes,
                int **pairs, char *err, size_t errlen);

#endif
