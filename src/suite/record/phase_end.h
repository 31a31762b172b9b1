/* Saving a run, the same way in every suite: after each phase the suite
 * ends it here (counters, record, results file), so the JSON on disk always
 * holds every finished phase; at the end, the final file and the exit
 * status. World rank 0 writes; the others only take part in the counters. */
#ifndef GPCNET_PHASE_END_H
#define GPCNET_PHASE_END_H

#include "suite/run_context.h"

/* A phase finished: if phase_counters_begin started counters, their deltas
 * are gathered (collective over world); rank 0 records the phase (name,
 * wall time, deltas) and rewrites the results file. */
void suite_phase_end(run_t *run, const char *name, double wall_s);
/* Rank 0 rewrites the results file (e.g. a new periodic report). */
void suite_save(run_t *run);
/* The run is complete: the final results file, a line saying where it is,
 * then run_finish; exit status 1 when the file could not be written. */
void suite_finish(run_t *run);

#endif
