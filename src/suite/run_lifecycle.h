/* A run's life: MPI_Init, options, configuration, nodes and the output
 * checks; the end of set-up; MPI_Finalize. No results are saved here: the
 * suites do that (phase_end.h). */
#ifndef GPCNET_RUN_LIFECYCLE_H
#define GPCNET_RUN_LIFECYCLE_H

#include "suite/run_context.h"

/* MPI_Init, options (exit 2 on bad usage, 0 after --help/--version), nodes,
 * output checks. Returns only when the run should go ahead. */
void run_init(run_t *run, program_t program, int *argc, char ***argv);
/* Set-up is over (nodes, placement, communicators, windows): collective
 * over world; rank 0 notes the time since MPI_Init (simulated under SMPI),
 * the figure bench/scale.sh and the scale test follow (docs/scale.md). */
void run_setup_done(run_t *run);
/* Frees everything, MPI_Finalize, then exit(exit_status) unless it is 0. */
void run_finish(run_t *run, int exit_status);

#endif
