/* A kernel's own options (infra/option_row.h), declared in its file, reach
 * everything the option table makes: parsing and its error lines, --help,
 * the official-default check, the settings lines, the JSON config, and the
 * parameter block the run plan gives the kernel, with its printed name.
 * Uses the test-only kernel of kernel_option_fixture.h. Links the MPI core
 * for the kernel tables and run_t; calls no MPI. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "capture_report.h"
#include "kernel_option_fixture.h"
#include "suite/options/option_report.h"
#include "suite/run_plan.h"

static const char *test_ids[] = {"a", "b"}, *cong_ids[] = {"c"};
static const name_catalog_t tests = {test_ids, 2, 0}, congs = {cong_ids, 1, 0};

static opt_status_t parse(options_t *o, program_t p, char **args, char *err)
{
    char *argv[8] = {"prog"};
    int argc = 1;
    while (args[argc - 1])
        argv[argc] = args[argc - 1], argc++;
    return options_parse(o, p, argc, argv, &tests, &congs, err, 512);
}

static const fixture_params_t *values(const options_t *o)
{
    return option_kernel_values(o, &fixture_kernel.options);
}

static void parse_and_defaults(void)
{
    options_t o;
    char err[512];
    options_defaults(&o, PROGRAM_NETWORK_TEST);
    CHECK(values(&o) && memcmp(values(&o), &fixture_defaults, sizeof(fixture_defaults)) == 0);
    CHECK(option_find("--fixture-bytes") && option_find("--fixture-bytes")->def == 64);
    CHECK(parse(&o, PROGRAM_NETWORK_TEST, (char *[]){"--fixture-bytes", "256", "--fixture-depth=5",
                                                     NULL}, err) == OPT_RUN);
    CHECK(values(&o)->message_bytes == 256 && values(&o)->depth == 5 &&
          values(&o)->not_an_option == 2.5);
    CHECK(parse(&o, PROGRAM_NETWORK_TEST, (char *[]){"--fixture-bytes", "12", NULL}, err) ==
          OPT_ERROR);
    CHECK(strcmp(err, "--fixture-bytes: expected a multiple of 8 from 8 to 1048576, got '12'") ==
          0);
    CHECK(parse(&o, PROGRAM_NETWORK_CONGESTOR, (char *[]){"--fixture-bytes", "16", NULL}, err) ==
          OPT_ERROR);
    CHECK(strstr(err, "applies to network_test and network_load_test only") != NULL);
    CHECK(parse(&o, PROGRAM_NETWORK_CONGESTOR, (char *[]){"--fixture-depth", "2", NULL}, err) ==
          OPT_RUN);
}

static void help(void)
{
    static char usage[16384];
    options_usage(PROGRAM_NETWORK_LOAD_TEST, &tests, &congs, usage, sizeof(usage));
    CHECK(strstr(usage, "      --fixture-bytes N      message size of the fixture kernel "
                        "(default 64)\n") != NULL);
    CHECK(strstr(usage, "--fixture-depth N") != NULL);
    options_usage(PROGRAM_NETWORK_CONGESTOR, &tests, &congs, usage, sizeof(usage));
    CHECK(!strstr(usage, "--fixture-bytes") && strstr(usage, "--fixture-depth N"));
}

static void official(void)
{
    options_t o;
    char err[512], names[512];
    CHECK(parse(&o, PROGRAM_NETWORK_TEST, (char *[]){"--fixture-bytes", "64", NULL}, err) ==
          OPT_RUN);
    CHECK(options_non_default(&o, PROGRAM_NETWORK_TEST, 1, 1, NULL, names, 512) == 0);
    CHECK(parse(&o, PROGRAM_NETWORK_TEST, (char *[]){"--fixture-bytes", "128", NULL}, err) ==
          OPT_RUN);
    CHECK(options_non_default(&o, PROGRAM_NETWORK_TEST, 1, 1, NULL, names, 512) == 1);
    CHECK(strcmp(names, "fixture_bytes") == 0);
}

static int every_kernel_runs(const void *ctx, const kernel_options_t *set) { return 1; }

/* Printed, recorded and counted only in a run of the kernel: a run
 * without it reads as a run of a build without it, and refuses its
 * options as that build would. */
static void settings_and_config(void)
{
    static run_t run;
    static run_plan_t plan;
    char err[512], names[512];
    json_writer_t w;
    run.env.program = PROGRAM_NETWORK_LOAD_TEST;
    CHECK(parse(&run.env.opt, run.env.program, (char *[]){"--fixture-bytes", "256", NULL}, err) ==
          OPT_RUN);
    run_plan_build(&plan, &run.env.opt, run.env.program, 0);
    run.env.plan = &plan;
    run.env.nodes.ppn_max = run.env.nodes.ppn_min = 1;
    CHECK(!run_plan_runs_kernel(&plan, &fixture_kernel.options));
    CHECK(run_plan_check_kernel_options(&plan, &run.env.opt, err, sizeof(err)) == -1);
    CHECK(strcmp(err, "--fixture-bytes is an option of the test fixture, which this run does "
                      "not run (name it in --tests)") == 0);
    const char *settings = captured(options_print_settings, &run, NULL);
    CHECK(!strstr(settings, "fixture"));
    static char config[16384];
    snprintf(config, sizeof(config), "%s", captured(NULL, &run, &w));
    CHECK(!strstr(config, "fixture"));
    CHECK(plan.official_default == 1);

    /* The fixture runs: its options are printed, recorded and counted. */
    plan.tests[0].kernel = &fixture_kernel;
    CHECK(run_plan_runs_kernel(&plan, &fixture_kernel.options));
    CHECK(run_plan_check_kernel_options(&plan, &run.env.opt, err, sizeof(err)) == 0);
    settings = captured(options_print_settings, &run, NULL);
    CHECK(strstr(settings, "\n   fixture message = 256 B\n") != NULL);
    snprintf(config, sizeof(config), "%s", captured(NULL, &run, &w));
    CHECK(strstr(config, "\"fixture_bytes\": 256") != NULL);
    CHECK(strstr(config, "\"fixture_depth\": 3") != NULL);
    option_runs_t all = {every_kernel_runs, NULL};
    CHECK(options_non_default(&run.env.opt, run.env.program, 1, 1, &all, names, 512) == 1);
    CHECK(strcmp(names, "fixture_bytes") == 0);

    /* A congestor's option names --congestors. */
    CHECK(parse(&run.env.opt, PROGRAM_NETWORK_CONGESTOR,
                (char *[]){"--fixture-congestor-bytes", "16", NULL}, err) == OPT_RUN);
    run_plan_build(&plan, &run.env.opt, PROGRAM_NETWORK_CONGESTOR, 0);
    CHECK(run_plan_check_kernel_options(&plan, &run.env.opt, err, sizeof(err)) == -1);
    CHECK(strstr(err, "of the congestor fixture_congestor") && strstr(err, "--congestors"));
}

/* --help lists a kernel's options under its kernel, after the others. */
static void help_under_the_kernel(void)
{
    static char usage[16384];
    options_usage(PROGRAM_NETWORK_TEST, &tests, &congs, usage, sizeof(usage));
    const char *section = strstr(usage, "\nOptions of one test or congestor (only in runs that "
                                        "select it):\n  fixture:\n      --fixture-bytes N");
    CHECK(section != NULL);
    CHECK(section && strstr(usage, "--fault-probe") < section);
    CHECK(section && !strstr(section, "--time-limit"));
}

/* The block the plan gives the kernel, and the name derived from it. */
static void plan_params(void)
{
    options_t o;
    char err[512], name[64];
    CHECK(parse(&o, PROGRAM_NETWORK_TEST, (char *[]){"--fixture-bytes", "256", NULL}, err) ==
          OPT_RUN);
    canary_params_t p = kernel_options_canary_params(&fixture_kernel, &o);
    CHECK(CANARY_OWN(&p, fixture_params_t)->message_bytes == 256);
    CHECK(CANARY_OWN(&p, fixture_params_t)->not_an_option == 2.5);
    CHECK(p.latency_doubles == CANARY_PARAMS_DEFAULT.latency_doubles);
    canary_display_name(&fixture_kernel, &p, name, sizeof(name));
    CHECK(strcmp(name, "Fixture Lat (256 B)") == 0);
    p = canary_params_default(&fixture_kernel);
    canary_display_name(&fixture_kernel, &p, name, sizeof(name));
    CHECK(strcmp(name, "Fixture Lat (64 B)") == 0);

    /* A congestor's own struct rides on the run's shared block. */
    CHECK(parse(&o, PROGRAM_NETWORK_CONGESTOR,
                (char *[]){"--fixture-congestor-bytes", "2048", "--congestor-bytes", "64", NULL},
                err) == OPT_RUN);
    congestor_params_t shared = CONGESTOR_PARAMS_DEFAULT;
    shared.message_bytes = 64;
    congestor_params_t c = kernel_options_congestor_params(&fixture_congestor, &o, shared);
    CHECK(CONGESTOR_OWN(&c, fixture_congestor_params_t)->burst_bytes == 2048);
    CHECK(c.message_bytes == 64);
    congestor_display_name(&fixture_congestor, &c, name, sizeof(name));
    CHECK(strcmp(name, "Fixture Congestor (2048 B)") == 0);
    c = congestor_params_default(&fixture_congestor);
    congestor_display_name(&fixture_congestor, &c, name, sizeof(name));
    CHECK(strcmp(name, "Fixture Congestor (512 B)") == 0);
    CHECK(parse(&o, PROGRAM_NETWORK_TEST, (char *[]){"--fixture-congestor-bytes", "16", NULL},
                err) == OPT_ERROR);
}

/* Rows the table cannot take are refused, naming them. */
static void refusals(void)
{
    static const fixture_params_t d = {0};
    static const opt_row_t clash[] = {{"--time-limit", NULL, OPT_NT, OT_INT,
                                       KERNEL_FIELD(fixture_params_t, depth, int),
                                       .given = OPT_NO_FIELD, .help = "x"}};
    static const opt_row_t text[] = {{"--fixture-path", NULL, OPT_NT, OT_PATH, 0,
                                      .given = OPT_NO_FIELD, .help = "x"}};
    static const opt_row_t outside[] = {{"--fixture-far", NULL, OPT_NT, OT_LONG,
                                         sizeof(fixture_params_t), .given = OPT_NO_FIELD,
                                         .help = "x"}};
    const kernel_options_t bad[] = {KERNEL_OPTIONS(d, clash), KERNEL_OPTIONS(d, text),
                                    KERNEL_OPTIONS(d, outside)};
    const char *why[] = {"--time-limit: its name or key is already an option's",
                         "--fixture-path: kernels declare numbers, flags and choices only",
                         "--fixture-far: its field is outside the parameter struct"};
    char err[256];
    for (int i = 0; i < 3; i++) {
        const kernel_options_t *set = &bad[i];
        CHECK(option_rows_install(&set, (const char *[]){"bad"}, 1, err, sizeof(err)) == -1);
        if (!strstr(err, why[i]))
            fprintf(stderr, "refusal: %s\n", err);
        CHECK(strstr(err, why[i]) != NULL);
        CHECK(option_count() == option_table_count);
    }
    install_kernel_rows_and_fixture();
    int kernel_rows = 3; /* the fixtures', after the real kernels' */
    for (int i = 0; i < canary_kernel_count; i++)
        kernel_rows += canary_kernels[i]->options.n_rows;
    for (int i = 0; i < congestor_kernel_count; i++)
        kernel_rows += congestor_kernels[i]->options.n_rows;
    CHECK(option_count() == option_table_count + kernel_rows);
}

int main(void)
{
    install_kernel_rows_and_fixture();
    parse_and_defaults();
    help();
    official();
    settings_and_config();
    help_under_the_kernel();
    plan_params();
    refusals();
    return check_report("test_kernel_options");
}
