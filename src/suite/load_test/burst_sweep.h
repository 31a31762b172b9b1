/* --burst-sweep (docs/experiments.md#burst-sweep): the canaries
 * under every ON x OFF x intensity cell of a grid, each cell one loaded
 * phase with that burst shape, before the published steady phase; the
 * Congestion Impact matrix by burst shape, printed and in the results
 * JSON ("burst_matrix", docs/results-json.md). */
#ifndef GPCNET_BURST_SWEEP_H
#define GPCNET_BURST_SWEEP_H

#include <stdio.h>

#include "suite/load_test/load_phase.h"

/* Collective over world: one loaded phase per cell, in the order intensity,
 * ON, OFF (the last varying fastest), each with the cell's burst shape
 * (run_plan_t.burst_cells). Nothing without a grid. */
void burst_sweep_run(run_t *run, roles_t *ro, const load_sync_t *sync, stats_acc_t *acc,
                     load_timeline_t *timeline);

/* World rank 0: the matrix "Congestion Impact by Burst Shape" (80 columns),
 * the mean over repetitions; nothing without a grid. */
void burst_sweep_print_matrix(FILE *f, const run_t *run);

/* The results document's "burst_matrix" member (run_json_section_t). */
void burst_sweep_json(json_writer_t *w, const run_t *run, const void *unused);

#endif
