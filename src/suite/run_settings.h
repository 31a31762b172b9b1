/* The settings a run takes as given: each is one option's value, parsed
 * straight into options_t.set by the option's row (its .field names the
 * member, suite/options/option_table.c) and copied whole into the run plan
 * (run_plan_t.set), where the programs read it. So a general option the
 * run takes as given is its row, its member here and the code that reads
 * plan->set (docs/design.md#adding-an-option). Pure: types only. */
#ifndef GPCNET_RUN_SETTINGS_H
#define GPCNET_RUN_SETTINGS_H

#define OPT_PATH_MAX 4096

typedef enum { PLACEMENT_SPLIT, PLACEMENT_COLOCATED } placement_kind_t;

typedef struct {
    /* Every test and pass. */
    double time_limit;
    double converge_tol; /* --converge (0: off) */
    /* network_test's extra tests (beside the doubles: test_option_table
     * allows less than a double's padding). */
    long all_pairs_bytes; /* --all-pairs: bytes of its bandwidth messages */
    long ebb_bytes;       /* --ebb: bytes each way per pair and matching */
    double link_rate;     /* --link-rate, Gbit/s (0: not known) */

    /* The load sequence. */
    int repeat;          /* >= 1 */
    int congestor_sweep; /* each congestor alone, then all together */
    int timeline;        /* --timeline */
    int node_probe;      /* rounds of the per-node probe (0: none) */
    int ebb;             /* matchings of the effective bisection bandwidth (0: none) */
    int all_pairs;       /* network_test: the all-pairs matrix (0: none) */
    placement_kind_t placement;
    double canary_fraction;

    /* network_congestor. */
    double duration;
    double report_interval;
    double congestor_job_settle; /* s from the start file to the loaded tests */
    char start_file[OPT_PATH_MAX];
    char stop_file[OPT_PATH_MAX];
    char flows_file[OPT_PATH_MAX]; /* --flows (empty: the kernels) */

    /* network_load_test beside a congestor job of its own (empty: none). */
    char congestor_job_start[OPT_PATH_MAX];
    char congestor_job_stop[OPT_PATH_MAX];

    /* Output and the run's surroundings. */
    int verbose, quiet, force;
    int nics_per_node;
    char output_dir[OPT_PATH_MAX];
    char json_path[OPT_PATH_MAX]; /* as given (empty: <output_dir>/<program>.json) */
    int emulate_ppn, emulate_nodes;
    double deadline, fault_probe;
} run_settings_t;

#endif
