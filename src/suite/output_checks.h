/* Before anything is measured, world rank 0 checks that the results can be
 * saved: the output directory exists or can be made, accepts files, the
 * results file can be written, is not a pipe, device or directory (refused
 * even with --force) and is not replaced without --force, nor
 * (load test) an earlier run's node lists. A failure ends the job with one
 * line and exit 1. Collective over world. */
#ifndef GPCNET_OUTPUT_CHECKS_H
#define GPCNET_OUTPUT_CHECKS_H

#include "suite/run_context.h"

/* Also sets run->env.json_path. */
void output_checks_run(run_t *run);

#endif
