/* The summaries of the congestion studies (docs/method.md#sweep), as 80-column
 * text tables and as JSON: the impact matrix of --congestor-sweep and the
 * run-to-run statistics of --repeat. Computed on world rank 0 from the
 * results recorded in the run. */
#ifndef GPCNET_STUDY_REPORT_H
#define GPCNET_STUDY_REPORT_H

#include <stdio.h>

#include "infra/json_writer.h"
#include "suite/run_record.h"

void study_print_matrix(FILE *f, const run_t *run);
void study_print_repeats(FILE *f, const run_t *run);
/* JSON members "impact_matrix" and "repeats" (nothing when not asked for):
 * the load test adds it to the results document (run_add_json_section). */
void study_json(json_writer_t *w, const run_t *run, const void *unused);

#endif
