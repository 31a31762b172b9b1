/* The run's configuration, resolved from the options without MPI: which
 * canary tests run with which loop limits and parameter block, which
 * congestors with which weights, loops and parameter block, and whether the
 * run is the official default one. Pure: the same options give the same
 * configuration on every rank (tests/unit/test_run_config.c). */
#ifndef GPCNET_RUN_CONFIG_H
#define GPCNET_RUN_CONFIG_H

#include "canary/canary.h"
#include "congestor/congestor.h"
#include "suite/option_parse.h"

typedef struct {
    int n_tests;
    const canary_kernel_t *tests[OPT_MAX_LIST];
    loop_limits_t limits[OPT_MAX_LIST];
    canary_params_t canary_params; /* given to every canary's setup */

    int n_congestors;
    const congestor_kernel_t *congestors[OPT_MAX_LIST];
    int weights[OPT_MAX_LIST];
    int congestor_measurements;
    int congestor_iterations;
    congestor_params_t congestor_params; /* given to every congestor's setup */

    int official_default;
    char non_default[512]; /* comma-separated setting names */
} run_config_t;

/* Fills c from o for program (o as options_parse left it). */
void run_config_resolve(run_config_t *c, const options_t *o, program_t program);

#endif
