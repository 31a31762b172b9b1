/* Everything one run knows: options, nodes, the selected kernels, and (on
 * world rank 0) the results recorded so far, which results_json.c writes
 * out after every phase. */
#ifndef GPCNET_RUN_CONTEXT_H
#define GPCNET_RUN_CONTEXT_H

#include <mpi.h>
#include <stdint.h>
#include <time.h>

#include "canary/canary.h"
#include "congestor/congestor.h"
#include "infra/net_counters.h"
#include "infra/nodes.h"
#include "infra/options.h"
#include "infra/placement.h"
#include "infra/result.h"

#define RUN_MAX_ROWS 16
#define RUN_MAX_REPEAT 1000

typedef struct {
    char id[96];
    char title[160];
    int repetition; /* 1-based */
    int n_rows;
    result_t *rows[RUN_MAX_ROWS];
} run_table_t;

typedef struct {
    char test_id[32];
    char name[64];
    char congestor[32]; /* "all", or the one kernel of a --congestor-sweep cell */
    int repetition;
    double avg, p99, avg_printed, p99_printed;
} run_impact_t;

typedef struct {
    char name[160];
    int repetition;
    double wall_s;
    netctr_sample_t *counters; /* load test: per node, [n_nodes]; NULL elsewhere */
} run_phase_t;

typedef struct {
    options_t opt;
    program_t program;
    MPI_Comm world;
    int rank, size;
    nodes_t nodes;
    double t0;
    time_t started, finished;

    int n_tests;
    const canary_kernel_t *tests[OPT_MAX_LIST];
    loop_limits_t limits[OPT_MAX_LIST];

    int n_congestors;
    const congestor_kernel_t *congestors[OPT_MAX_LIST];
    int weights[OPT_MAX_LIST];
    int congestor_measurements;
    int congestor_iterations;

    uint64_t seed;
    int seed_from_time;
    int official_default;
    char non_default[512]; /* comma-separated setting names */
    char json_path[OPT_PATH_MAX];
    char mpi_library[MPI_MAX_LIBRARY_VERSION_STRING]; /* first line kept */
    char mpi_standard[16];

    /* Load test placement (every rank computes it; rank 0 reports it). */
    int have_placement;
    placement_t placement;
    int repetition;        /* 1-based, of opt.repeat */

    /* World rank 0 only; grow as results arrive. */
    int n_tables, cap_tables;
    run_table_t *tables;
    int n_impact, cap_impact;
    run_impact_t *impact;
    int n_phases, cap_phases;
    run_phase_t *phases;
    uint64_t *rep_seeds;        /* [opt.repeat] placement seed of each repetition */
    placement_t *rep_placement; /* [opt.repeat] placement of each repetition */
    double setup_s; /* MPI_Init to the end of set-up; < 0 until then */
    const char *status;
    struct congestor_run *congestor_run; /* network_congestor, rank 0 */
    /* Network counters around phases (suite/phase_counters.h). */
    MPI_Comm ctr_leaders;
    int ctr_split;
    netctr_sample_t ctr_before;
    netctr_sample_t *ctr_pending; /* rank 0: deltas for the next phase */
} run_t;

/* MPI_Init, options (exit 2 on bad usage, 0 after --help/--version), nodes,
 * output checks. Returns only when the run should go ahead. */
void run_init(run_t *run, program_t program, int *argc, char ***argv);
/* Print the preamble and settings (rank 0). */
void run_print_preamble(const run_t *run, const char *const *extra_lines, int n_extra);
/* Record a result in table id of the current repetition (rank 0);
 * returns the stored copy. */
result_t *run_record(run_t *run, const char *table_id, const char *title, const result_t *r);
/* In the given repetition (1-based). */
const result_t *run_find_in(const run_t *run, int repetition, const char *table_id,
                            const char *test_id);
/* In the current repetition. */
const result_t *run_find(const run_t *run, const char *table_id, const char *test_id);
/* Set-up is over (nodes, placement, communicators, windows): collective
 * over world; rank 0 notes the time since MPI_Init (simulated under SMPI),
 * the figure bench/scale.sh and the scale test follow (docs/scale.md). */
void run_setup_done(run_t *run);
/* Record a Congestion Impact entry (rank 0). */
run_impact_t *run_add_impact(run_t *run);
/* A phase finished: note its wall time and rewrite the JSON (rank 0). */
void run_phase_done(run_t *run, const char *name, double wall_s);
void run_finish(run_t *run);

/* Result skeleton for a canary or congestor (name, unit, direction). */
void result_for_canary(result_t *r, const canary_kernel_t *k, loop_limits_t lim);
void result_for_congestor(result_t *r, const congestor_kernel_t *k);

#endif
