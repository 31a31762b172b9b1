/* The run plan: everything a run will do, resolved from the options once,
 * before anything is measured, and read-only after (docs/design.md#run-plan).
 *
 * The suites, the measurement loop (canary_measure) and the congestor loop
 * (congestor_pass) read the plan, never the options: a canary test is one
 * canary_plan_t (kernel, parameter block, loop limits, time limit,
 * --converge tolerance, ring seed), a congestor one congestor_plan_t
 * (kernel, parameter block, weight, measurements, base iterations, time
 * limit, tolerance), a --burst-sweep cell one burst shape. The options are
 * read only by option handling (parsing, the printed settings, the JSON
 * config) and by run_plan_build.
 *
 * Pure: the same options give the same plan on every rank, without MPI
 * (tests/unit/test_run_plan.c). */
#ifndef GPCNET_RUN_PLAN_H
#define GPCNET_RUN_PLAN_H

#include <stdint.h>

#include "canary/canary.h"
#include "congestor/congestor.h"
#include "suite/options/option_parse.h"
#include "suite/run_settings.h"

#define PLAN_MAX_BURST_CELLS (BURST_SWEEP_MAX * BURST_SWEEP_MAX * BURST_SWEEP_MAX)

typedef struct {
    program_t program;
    /* The settings taken as given (time limit, tolerance, the load
     * sequence's switches, network_congestor's files, output and
     * surroundings), each copied from its option by its row. */
    run_settings_t set;

    /* The canary tests in the order they run. */
    int n_tests;
    canary_plan_t tests[OPT_MAX_LIST];

    /* The congestors in the order of --congestors (or the default mix);
     * weights[] repeats each entry's weight for the placement. */
    int n_congestors;
    congestor_plan_t congestors[OPT_MAX_LIST];
    int weights[OPT_MAX_LIST];
    /* What every congestor entry carries, printed once in the settings. */
    int congestor_measurements;
    int congestor_iterations;
    congestor_params_t congestor_params; /* steady, or the --burst shape */
    int flows;                           /* network_congestor --flows: the one kernel is flows */

    /* The placement seed of each repetition, as resolved: --seed's value
     * every time, or (the reference default) rank 0's clock at start plus
     * the repetition's index, a fresh placement each repetition. */
    int seed_from_time;
    uint64_t seeds[OPT_MAX_REPEAT];

    /* --burst-sweep: the grid and each cell's shape, intensity outermost,
     * OFF fastest (burst_sweep.c runs one loaded phase per cell). */
    burst_sweep_t burst_grid;
    double burst_jitter;
    int n_burst_cells;
    burst_shape_t burst_cells[PLAN_MAX_BURST_CELLS];

    int official_default;
    char non_default[512]; /* comma-separated setting names */
    /* An MPMD launch gives the roles (suite/launch_roles.h): the canary
     * share is the launch's, not the published draw's. */
    int roles_from_launch;
} run_plan_t;

/* Fills p from o for program (o as options_parse left it). clock_seed is
 * the placement seed when --seed is not given: rank 0's clock, which the
 * caller reads and broadcasts (the plan itself needs no MPI). */
void run_plan_build(run_plan_t *p, const options_t *o, program_t program, uint64_t clock_seed);

/* The load test of an MPMD launch takes its roles from the launch: the
 * canary share is not the published one, so the run is not official
 * ("canary_fraction" among the settings that differ). Called right after
 * run_plan_build, before the plan is shared. */
void run_plan_roles_from_launch(run_plan_t *p);

/* 1 when the kernel that declared set (infra/option_row.h) runs in p: a
 * test or a congestor of the plan. */
int run_plan_runs_kernel(const run_plan_t *p, const kernel_options_t *set);

/* 0, or -1 with one line in err when o sets an option of a kernel p does
 * not run: a run that does not select a kernel is the run of a build
 * without it, where the option is unknown. */
int run_plan_check_kernel_options(const run_plan_t *p, const options_t *o, char *err,
                                  size_t errlen);

#endif
