/* Network counters around each load-test phase: one rank per node (local
 * index 0) reads its node's counters before the phase and after it,
 * outside the timed region; rank 0 gathers the deltas and the phase's JSON
 * entry carries them (docs/results-json.md, "counters"). */
#ifndef GPCNET_PHASE_COUNTERS_H
#define GPCNET_PHASE_COUNTERS_H

#include "infra/json_writer.h"
#include "suite/run_context.h"

/* Local: node leaders sample; the phase's end (suite_phase_end) will
 * gather the deltas. */
void phase_counters_begin(run_t *run);
/* Collective over world: leaders sample again, rank 0 keeps the deltas of
 * every node for the phase's record (run_record_phase). Called by
 * suite_phase_end. */
void phase_counters_end(run_t *run);
void phase_counters_json(json_writer_t *w, const run_t *run, const netctr_sample_t *by_node);
void phase_counters_free(run_t *run);

#endif
