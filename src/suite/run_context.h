/* Everything one run knows, in four parts: what set-up fixes (env: the
 * options, the nodes, the run plan of run_plan.h, the output path), the
 * few things that change while the phases run (the repetition, the
 * placement, the status), on world rank 0 the record of the results so
 * far (record: run_record.h, saved after every phase by phase_end.h), and
 * the network counters around phases (counters: phase_counters.h).
 * The types only: their life is in run_lifecycle.h. */
#ifndef GPCNET_RUN_CONTEXT_H
#define GPCNET_RUN_CONTEXT_H

#include <mpi.h>
#include <stdint.h>
#include <time.h>

#include "infra/json_writer.h"
#include "infra/net_counters.h"
#include "infra/nodes.h"
#include "suite/options/options.h"
#include "infra/placement.h"
#include "infra/result.h"
#include "suite/run_plan.h"

#define RUN_MAX_ROWS 16
#define RUN_MAX_JSON_SECTIONS 8 /* the load test registers up to 4 today */
/* Congestor set of an impact entry measured under every congestor (a
 * --congestor-sweep cell names its one kernel instead). */
#define IMPACT_ALL_CONGESTORS "all"

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

/* The record of the results so far (world rank 0 only; grows as results
 * arrive): stored by run_record.c, written by results_json.c. */
typedef struct {
    int n_tables, cap_tables;
    run_table_t *tables;
    int n_impact, cap_impact;
    run_impact_t *impact;
    int n_phases, cap_phases;
    run_phase_t *phases;
    placement_t *rep_placement; /* [plan->set.repeat] placement of each repetition */
} run_record_t;

/* Network counters around phases: owned by suite/record/phase_counters.c. */
typedef struct {
    MPI_Comm leaders;
    int split;
    netctr_sample_t before;
    int counting;             /* between phase_counters_begin and the phase end */
    netctr_sample_t *pending; /* rank 0: deltas for the next phase */
} phase_counters_t;

struct run;
/* A member of the results document that a suite adds (the load test's
 * summaries, network_congestor's report): written after "impact". */
typedef struct {
    void (*write)(json_writer_t *w, const struct run *run, const void *ctx);
    const void *ctx;
} run_json_section_t;

/* What set-up establishes (run_init in run_lifecycle.c, and the suites'
 * set-up before their first phase): fixed once set-up ends, read-only
 * during the phases. */
typedef struct {
    /* The command line as parsed: read only by option handling (run_init,
     * option_report.c) and run_plan_build; everything else reads plan. */
    options_t opt;
    program_t program;
    MPI_Comm world;
    int rank, size;
    nodes_t nodes;
    double t0;
    time_t started;

    const run_plan_t *plan; /* built once in run_init, read-only after */

    char json_path[OPT_PATH_MAX];
    char mpi_library[MPI_MAX_LIBRARY_VERSION_STRING]; /* first line kept */
    char mpi_standard[16];
    const char *mpi_thread_level; /* MPI_Query_thread: "single" ... "multiple" */
    double setup_s; /* MPI_Init to the end of set-up; < 0 until then */
    int n_json_sections;
    run_json_section_t json_sections[RUN_MAX_JSON_SECTIONS];
} run_env_t;

typedef struct run {
    run_env_t env; /* fixed once set-up ends */

    /* What changes while the phases run. */
    int repetition; /* 1-based, of plan->set.repeat: run_seed() is its seed */
    /* Load test placement (every rank computes it; rank 0 reports it). */
    int have_placement;
    placement_t placement;
    const char *status;
    time_t finished;
    run_record_t record;       /* world rank 0 only */
    phase_counters_t counters; /* suite/record/phase_counters.h */
} run_t;

/* The placement seed of the current repetition (resolved in the plan). */
static inline uint64_t run_seed(const run_t *run)
{
    return run->env.plan->seeds[run->repetition - 1];
}

#endif
