/* The settings a run takes as given, where their resolved values live in
 * the run plan (run_plan_t.set): each is one option's value, copied from
 * the options by run_plan_build as the option's row says (opt_row_t.plan,
 * suite/option_table.c), so adding such an option is its row, its member
 * here and the code that reads it. Pure: types only. */
#ifndef GPCNET_RUN_SETTINGS_H
#define GPCNET_RUN_SETTINGS_H

#include "suite/options/options.h"

typedef struct {
    /* Every test and pass. */
    double time_limit;
    double converge_tol;

    /* The load sequence. */
    int repeat;          /* >= 1 */
    int congestor_sweep; /* each congestor alone, then all together */
    int timeline;        /* --timeline */
    int node_probe;      /* rounds of the per-node probe (0: none) */
    int all_pairs;       /* network_test: the all-pairs matrix (0: none) */
    long all_pairs_bytes;
    placement_kind_t placement;
    double canary_fraction;

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
} run_settings_t;

#endif
