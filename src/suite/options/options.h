/* The settings of one run of the three programs (docs/method.md#options):
 * the types only. One declarative table describes every field
 * (option_table.c) and generates parsing, validation, --help, the
 * official-default check, the printed settings and the JSON config
 * (option_parse.h, option_report.h).
 *
 * Pure C, no MPI: every rank parses the same argv and reaches the same
 * verdict, so a bad option ends every rank the same way without talking.
 * Names of tests and congestors are checked against catalogues the caller
 * passes in, so this file knows nothing about kernels. */
#ifndef GPCNET_OPTIONS_H
#define GPCNET_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "suite/run_settings.h"

#define OPT_MAX_LIST 32
#define OPT_MAX_REPEAT 1000 /* --repeat's bound; the plan keeps a seed per repetition */
#define OPT_KERNEL_VALUES_MAX 1024 /* bytes of every kernel's parameter struct */

typedef enum { PROGRAM_NETWORK_TEST, PROGRAM_NETWORK_LOAD_TEST, PROGRAM_NETWORK_CONGESTOR } program_t;

typedef enum { OPT_RUN, OPT_HELP, OPT_VERSION, OPT_ERROR } opt_status_t;

/* --burst-sweep: the ON x OFF x intensity grid of a load test, every cell
 * one loaded phase (docs/experiments.md#burst-sweep). */
#define BURST_SWEEP_MAX 8
typedef struct {
    int n_on, n_off, n_intensity; /* n_on 0: no sweep */
    double on[BURST_SWEEP_MAX], off[BURST_SWEEP_MAX], intensity[BURST_SWEEP_MAX]; /* s, s, share */
} burst_sweep_t;

typedef struct {
    const char *const *ids; /* e.g. "rr_two_sided_lat" */
    int count;
    /* How many of them run by default (the first ones; the rest are
     * extras run only when named); 0: all. */
    int defaults;
} name_catalog_t;

typedef struct {
    program_t program;

    /* The settings the run takes as given, each parsed here by its row
     * and copied whole into the plan (suite/run_settings.h). */
    run_settings_t set;

    /* What the plan resolves (run_plan_build), and the *_given flags. */
    uint64_t seed;        /* placement seed, when seed_given */
    int seed_given;       /* 0: rank 0's clock (the reference default) */
    uint64_t ring_seed;   /* base seed of the random rings */
    int ring_seed_given;
    int canary_fraction_given;
    int time_limit_given;

    int n_congestors;                 /* 0: the default four */
    int congestors[OPT_MAX_LIST];     /* indices into the congestor catalogue */
    int congestor_weights[OPT_MAX_LIST];

    int n_tests;                      /* 0: the default tests of the program */
    int tests[OPT_MAX_LIST];          /* indices into the test catalogue */

    /* Loop-limit overrides for every selected test; -1 keeps Part A. */
    long measurements, rings, iterations, warmup;
    long congestor_measurements, congestor_iterations;
    long congestor_bytes;             /* message size of every congestor (default 4096) */

    /* Bursty congestion (load test and network_congestor). */
    double burst[2];                  /* --burst ON,OFF in seconds; ON 0: steady (published) */
    double burst_intensity;           /* share of the full injection rate while ON, (0, 1] */
    double burst_jitter;              /* relative random variation of ON and OFF, [0, 1) */
    burst_sweep_t burst_sweep;        /* load test: --burst-sweep grid (n_on 0: none) */

    /* The options kernels declare (infra/option_row.h): each kernel's
     * parameter struct has its place here (option_rows_install), starting
     * as its defaults; only the option table and the run plan read it. */
    union {
        unsigned char bytes[OPT_KERNEL_VALUES_MAX];
        long double align_ld_;
        uint64_t align_u64_;
        void *align_ptr_;
    } kernel_values;
} options_t;

const char *program_name(program_t program);

#endif
