/* A test-only kernel declaration, as a kernel's file would write it
 * (infra/option_row.h): its parameter struct, its defaults as designated
 * initialisers (one field with no option, to see the whole struct start as
 * its defaults), two option rows and a canary kernel declaring them; a
 * congestor declaring one. Installed after the real kernels'
 * rows by the option tests, so every check of the table covers kernel rows
 * too (test_option_table.c) and the way to the plan is checked
 * (test_kernel_options.c). */
#ifndef GPCNET_TEST_KERNEL_OPTION_FIXTURE_H
#define GPCNET_TEST_KERNEL_OPTION_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>

#include "canary/canary.h"
#include "suite/options/kernel_options.h"
#include "suite/options/option_table.h"

typedef struct {
    long message_bytes;
    int depth;
    double not_an_option;
} fixture_params_t;

static const fixture_params_t fixture_defaults = {
    .message_bytes = 64, .depth = 3, .not_an_option = 2.5};

static const opt_row_t fixture_rows[] = {
    {"--fixture-bytes", NULL, OPT_MEASURING, OT_LONG,
     KERNEL_FIELD(fixture_params_t, message_bytes, long), .given = OPT_NO_FIELD, .lo = 8,
     .hi = 1 << 20, .multiple = 8, .metavar = "N",
     .help = "message size of the fixture kernel (default {default})",
     .key = "fixture_bytes", .official = OPT_ANY, .config = OPT_MEASURING,
     .label = "fixture message", .unit = " B"},
    {"--fixture-depth", NULL, OPT_ANY, OT_INT, KERNEL_FIELD(fixture_params_t, depth, int),
     .given = OPT_NO_FIELD, .lo = 1, .hi = 16, .metavar = "N",
     .help = "depth of the fixture kernel (default {default})", .key = "fixture_depth",
     .config = OPT_ANY},
};

static long fixture_size(const canary_params_t *p)
{
    return CANARY_OWN(p, fixture_params_t)->message_bytes;
}

/* Never set up or run: only its declaration and its printed name are. */
static const canary_kernel_t fixture_kernel = {
    .id = "fixture",
    .label = "Fixture Lat",
    .size_bytes = fixture_size,
    .unit = "usec",
    .loop = LOOP_RANDOM_RING,
    .limits = {.measurements = 1, .rings = 1, .iterations = 1, .warmup = 0},
    .options = KERNEL_OPTIONS(fixture_defaults, fixture_rows),
};

/* A congestor declaring one option of its own. */
typedef struct {
    long burst_bytes;
} fixture_congestor_params_t;

static const fixture_congestor_params_t fixture_congestor_defaults = {.burst_bytes = 512};

static const opt_row_t fixture_congestor_rows[] = {
    {"--fixture-congestor-bytes", NULL, OPT_LT | OPT_NC, OT_LONG,
     KERNEL_FIELD(fixture_congestor_params_t, burst_bytes, long), .given = OPT_NO_FIELD,
     .lo = 8, .hi = 1 << 20, .metavar = "N",
     .help = "its message size (default {default})",
     .key = "fixture_congestor_bytes", .official = OPT_LT, .config = OPT_LT},
};

static long fixture_congestor_size(const congestor_params_t *p)
{
    return CONGESTOR_OWN(p, fixture_congestor_params_t)->burst_bytes;
}

static const congestor_kernel_t fixture_congestor = {
    .id = "fixture_congestor",
    .label = "Fixture Congestor",
    .message_bytes = fixture_congestor_size,
    .options = KERNEL_OPTIONS(fixture_congestor_defaults, fixture_congestor_rows),
};

/* The real kernels' rows, then the fixtures'; exits on a refusal. */
static void install_kernel_rows_and_fixture(void)
{
    static const kernel_options_t *sets[258];
    static const char *kernels[258];
    char err[256];
    if (kernel_options_install(err, sizeof(err)) != 0) {
        fprintf(stderr, "the kernels' option rows: %s\n", err);
        exit(1);
    }
    int n = kernel_options_sets(sets, kernels, 256);
    if (n < 0) {
        fprintf(stderr, "too many kernels for the fixture\n");
        exit(1);
    }
    kernels[n] = fixture_kernel.id;
    sets[n++] = &fixture_kernel.options;
    kernels[n] = fixture_congestor.id;
    sets[n++] = &fixture_congestor.options;
    if (option_rows_install(sets, kernels, n, err, sizeof(err)) != 0) {
        fprintf(stderr, "the fixture's option rows: %s\n", err);
        exit(1);
    }
}

#endif
