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
#include "suite/option_parse.h"

#define PLAN_MAX_BURST_CELLS (BURST_SWEEP_MAX * BURST_SWEEP_MAX * BURST_SWEEP_MAX)

typedef struct {
    program_t program;

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

    /* Every test and pass. */
    double time_limit;
    double converge_tol;

    /* The load sequence. */
    int repeat;           /* >= 1 */
    int congestor_sweep;  /* each congestor alone, then all together */
    int timeline;         /* --timeline */
    int node_probe;       /* rounds of the per-node probe (0: none) */
    placement_kind_t placement;
    double canary_fraction;
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

    /* network_congestor. */
    double duration;
    double report_interval;
    char start_file[OPT_PATH_MAX];
    char stop_file[OPT_PATH_MAX];
    char flows_file[OPT_PATH_MAX];

    /* Output and the run's surroundings. */
    int verbose, quiet, force;
    int nics_per_node;
    char output_dir[OPT_PATH_MAX];
    char json_path[OPT_PATH_MAX]; /* as given (empty: <output_dir>/<program>.json) */
    int emulate_ppn, emulate_nodes;
    double deadline, fault_probe;

    int official_default;
    char non_default[512]; /* comma-separated setting names */
} run_plan_t;

/* Fills p from o for program (o as options_parse left it). clock_seed is
 * the placement seed when --seed is not given: rank 0's clock, which the
 * caller reads and broadcasts (the plan itself needs no MPI). */
void run_plan_build(run_plan_t *p, const options_t *o, program_t program, uint64_t clock_seed);

/* 1 when the kernel that declared set (infra/option_row.h) runs in p: a
 * test or a congestor of the plan. */
int run_plan_runs_kernel(const run_plan_t *p, const kernel_options_t *set);

/* 0, or -1 with one line in err when o sets an option of a kernel p does
 * not run: a run that does not select a kernel is the run of a build
 * without it, where the option is unknown. */
int run_plan_check_kernel_options(const run_plan_t *p, const options_t *o, char *err,
                                  size_t errlen);

#endif
