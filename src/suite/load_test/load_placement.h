/* The load test's placement for each repetition (docs/method.md#placement):
 * the node count check, the placement itself, and the node-list files. */
#ifndef GPCNET_LOAD_PLACEMENT_H
#define GPCNET_LOAD_PLACEMENT_H

#include "suite/run_context.h"

/* Too few nodes, or ranks per node, for the chosen placement: exit 1 on
 * every rank with the minimum. */
void load_check_node_count(run_t *run);
/* Placement of the current repetition (run_seed()); kept on rank 0 for the
 * JSON. Exits when a kernel would get fewer than two nodes. */
void load_place(run_t *run);
/* The reference's node-list files; later repetitions get "_r<N>" files. */
void load_write_node_lists(run_t *run);

#endif
