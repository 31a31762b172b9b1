/* network_load_test's summaries over several runs of its sequence
 * (docs/method.md#sweep), as 80-column text tables and as JSON: the
 * impact matrix of --congestor-sweep and the run-to-run statistics of
 * --repeat. Computed on world rank 0 from the
 * results recorded in the run. */
#ifndef GPCNET_LOAD_SUMMARY_H
#define GPCNET_LOAD_SUMMARY_H

#include <stdio.h>

#include "infra/json_writer.h"
#include "suite/record/run_record.h"

void load_summary_print_matrix(FILE *f, const run_t *run);
void load_summary_print_repeats(FILE *f, const run_t *run);
/* JSON members "impact_matrix" and "repeats" (nothing when not asked for):
 * the load test adds it to the results document (run_add_json_section). */
void load_summary_json(json_writer_t *w, const run_t *run, const void *unused);

#endif
