/* The per-node probe (--node-probe ROUNDS; docs/method.md#naming-a-slow-node):
 * after the published phases, one rank of every node exchanges messages
 * with one other node in rounds of disjoint pairs (infra/pair_rounds.h).
 * The pairs of a round do not wait on each other, so a pair's time depends
 * on its two nodes only: a slow node makes every one of its pairs slow,
 * another node only the round it meets the slow one. The median over a
 * node's rounds therefore points at the slow node, where the canaries'
 * rings, which pace every member to the slowest, cannot.
 *
 * Memory: world rank 0 keeps one double per node per round; the other
 * ranks one per round (leaders) or nothing. */
#ifndef GPCNET_NODE_PROBE_H
#define GPCNET_NODE_PROBE_H

#include "infra/json_writer.h"
#include "suite/run_context.h"

#define NODE_PROBE_BYTES 131072 /* each way, per exchange */
#define NODE_PROBE_EXCHANGES 5  /* timed, after one untimed; a round keeps their median */

typedef struct {
    int rounds, n_nodes;
    double wall_s;
    double *usec; /* rank 0, after the probe: [node * rounds + round], NaN: sat out */
} node_probe_t;

/* Collective over world: runs the probe when --node-probe was given (else
 * returns at once), keeps the times on rank 0 and records the phase
 * "node_probe" (suite_phase_end). */
void node_probe_run(run_t *run, node_probe_t *probe);
/* The "node_probe" member of the results document (a run_json_section_t;
 * ctx is the node_probe_t): written once the probe ran. */
void node_probe_json(json_writer_t *w, const run_t *run, const void *ctx);
void node_probe_free(node_probe_t *probe);

#endif
