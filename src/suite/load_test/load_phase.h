/* One loaded phase of network_load_test (docs/method.md#load-sequence):
 * every canary test once with the congestors running. The published
 * sequence runs it once with every congestor; --congestor-sweep once per
 * kernel alone and --burst-sweep (suite/load_test/burst_sweep.h) once per burst
 * shape before that. Defined in load_phase.c. */
#ifndef GPCNET_LOAD_PHASE_H
#define GPCNET_LOAD_PHASE_H

#include "congestor/congestor.h"
#include "infra/stats.h"
#include "suite/load_roles.h"
#include "suite/load_test/load_sync.h"
#include "suite/load_test/load_timeline.h"
#include "suite/run_context.h"

/* What one phase is called in the record and the output. */
typedef struct {
    int kernel;           /* the one congestor kernel of a sweep cell; -1: each node its own */
    int own_table;        /* a sweep cell: one table of its own, no Key Results */
    char table[96];       /* results table id: "loaded", "loaded_by:a2a", ... */
    char title[160];      /* its printed title */
    char cell_id[96];     /* prefix of the congestors' tables: "" or "a2a:" */
    char impact_set[32];  /* congestor set of its impact entries (run_impact_t) */
    char progress[64];    /* the progress lines' phase */
    burst_shape_t burst;  /* the congestors' shape: the plan's (steady or --burst), or a cell's */
} load_phase_t;

/* Collective over world: the canary tests of one loaded phase, their
 * congestors' results, and the Congestion Impact of every test. */
void load_phase_run(run_t *run, roles_t *ro, const load_sync_t *sync, stats_acc_t *acc,
                    const load_phase_t *phase, load_timeline_t *timeline);

/* Rank 0: the phase's Congestion Impact against the isolated table
 * (printed as the Key Results for the published phase, a matrix cell for
 * a sweep's). load_phase_run calls it; a separate congestor job's loaded
 * phase too (congestor_job.h). */
void load_phase_impact(run_t *run, const load_phase_t *ph);

/* Every kernel's congestor result reaches world rank 0 in kernel order
 * (only >= 0: kernel `only` alone); printed when `print`. */
void collect_congestors(run_t *run, roles_t *ro, stats_acc_t *acc, double wall_s,
                        const char *table_id, const char *title, int print, int only);

/* One measured pass of this rank's congestor kernel: with --converge it ends
 * once the kernel's bandwidth has settled, as a canary test does. */
void congestor_pass_of(run_t *run, roles_t *ro, stats_acc_t *acc, burst_run_t *burst);

#endif
