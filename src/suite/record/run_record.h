/* The record of a run on world rank 0: the result tables, the Congestion
 * Impact entries and the phases, kept in memory as they arrive. Storage
 * only: the suites save it (phase_end.h, results_json.h). */
#ifndef GPCNET_RUN_RECORD_H
#define GPCNET_RUN_RECORD_H

#include "suite/run_context.h"

/* Record a result in table id of the current repetition (rank 0);
 * returns the stored copy. */
result_t *run_record(run_t *run, const char *table_id, const char *title, const result_t *r);
/* In the given repetition (1-based). */
const result_t *run_find_in(const run_t *run, int repetition, const char *table_id,
                            const char *test_id);
/* In the current repetition. */
const result_t *run_find(const run_t *run, const char *table_id, const char *test_id);
/* Record a Congestion Impact entry (rank 0). */
run_impact_t *run_add_impact(run_t *run);
/* The mean over the repetitions of test_id's impact entries under the
 * congestor set `set` ("all", a kernel id, "burst:<cell>"): *avg and *p99,
 * NaN when none was recorded. The summaries' matrices print it. */
void run_impact_mean(const run_t *run, const char *test_id, const char *set, double *avg,
                     double *p99);
/* A phase finished (rank 0): its name, wall time and the counter deltas
 * phase_counters_end left, which the phase now owns. */
void run_record_phase(run_t *run, const char *name, double wall_s);
/* A member the suite adds to the results document (any rank; only rank 0
 * writes). */
void run_add_json_section(run_t *run, run_json_section_t section);
void run_record_free(run_t *run);

/* Result skeleton for a canary or congestor (name, unit, direction). */
void result_for_canary(result_t *r, const canary_plan_t *test);
void result_for_congestor(result_t *r, const congestor_plan_t *c);

#endif
