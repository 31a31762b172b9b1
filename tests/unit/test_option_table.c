/* The option table itself: every row parses a good value and refuses one
 * past its limits, the defaults come from the table, --help lists every
 * option, the official-default check names every measurement option, and
 * the settings lines and JSON config carry every recorded option, the
 * rows kernels declare (a test-only one: kernel_option_fixture.h) as the
 * table's own. Links
 * the MPI core for the kernel tables and run_t; calls no MPI. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "suite/options/option_report.h"
#include "suite/options/option_table.h"
#include "suite/run_plan.h"
#include "capture_report.h"
#include "kernel_option_fixture.h"

#define STR_(x) #x
#define STR(x) STR_(x)

static const char *test_ids[OPT_MAX_LIST], *cong_ids[OPT_MAX_LIST];
static name_catalog_t tests, congs;
static const program_t programs[] = {PROGRAM_NETWORK_TEST, PROGRAM_NETWORK_LOAD_TEST,
                                     PROGRAM_NETWORK_CONGESTOR};

/* The bytes of a setting's value of type. */
static size_t setting_size(opt_type_t type)
{
    return type == OT_PATH ? OPT_PATH_MAX : opt_number_size(type);
}

/* A value the row accepts (its lower limit, or the first name) and one it
 * refuses (past its upper limit), or NULL when there is none. */
static void values(const opt_row_t *r, char *good, char *bad, size_t len)
{
    bad[0] = '\0';
    switch (r->type) {
    case OT_TESTS:
        snprintf(good, len, "%s", test_ids[1]);
        snprintf(bad, len, "no_such_test");
        break;
    case OT_CONGESTORS:
        snprintf(good, len, "%s:3", cong_ids[1]);
        snprintf(bad, len, "%s:0", cong_ids[1]);
        break;
    case OT_CHOICE:
        snprintf(good, len, "%s", r->choices[1]);
        snprintf(bad, len, "%s-not", r->choices[0]);
        break;
    case OT_PATH:
        snprintf(good, len, "some/path");
        break;
    case OT_FLAG:
        good[0] = '\0';
        break;
    case OT_BURST:
        snprintf(good, len, "50ms,200ms");
        snprintf(bad, len, "0,0");
        break;
    case OT_BURST_SWEEP:
        snprintf(good, len, "ON=10ms;OFF=50ms");
        snprintf(bad, len, "ON=;OFF=50ms");
        break;
    case OT_DOUBLE:
        /* Not the default, so the value is seen to land. */
        snprintf(good, len, "%.17g", r->hi_open || r->hi == r->def ? (r->lo + r->hi) / 2 : r->hi);
        snprintf(bad, len, "%.17g", r->hi * 2 + 1);
        break;
    default:
        snprintf(good, len, "%ld", (long)r->hi);
        snprintf(bad, len, "%ld", (long)r->hi + 1);
    }
}

/* An option that is refused without another (--burst-jitter without
 * --burst, --fault-probe without --deadline) is given with it. */
static const char *companion(const char *name)
{
    if (strcmp(name, "--fault-probe") == 0)
        return "--deadline=10000000";
    return strcmp(name, "--burst-jitter") == 0 ? "--burst=50ms,200ms" : NULL;
}

static opt_status_t parse2(options_t *o, program_t p, const char *a, const char *b, char *err)
{
    const char *with = companion(a);
    char *argv[] = {"prog", (char *)a, (char *)b, NULL, NULL};
    int argc = b ? 3 : 2;
    if (with)
        argv[argc++] = (char *)with;
    return options_parse(o, p, argc, argv, &tests, &congs, err, 512);
}

static void every_row_parses(void)
{
    char good[64], bad[64], err[512];
    options_t o, d;
    for (int i = 0; i < option_count(); i++) {
        const opt_row_t *row = option_row(i);
        const opt_row_t *r = row->variant ? option_find(row->name) : row;
        CHECK(r != NULL && row->help && row->help[0]);
        if (!r || r->type == OT_HELP || r->type == OT_VERSION)
            continue;
        for (int p = 0; p < 3; p++) {
            if (!(row->scope & option_program_bit(programs[p])))
                continue;
            values(r, good, bad, sizeof(good));
            options_defaults(&d, programs[p]);
            opt_status_t st = parse2(&o, programs[p], row->name, r->metavar ? good : NULL, err);
            if (st != OPT_RUN)
                fprintf(stderr, "%s %s: %s\n", row->name, good, err);
            CHECK(st == OPT_RUN);
            /* The value landed in the row's field. */
            CHECK(memcmp(option_field(&o, r), option_field(&d, r), 8) != 0 ||
                  r->type == OT_TESTS || r->type == OT_CONGESTORS);
            /* A setting taken as given is in the plan as parsed. */
            size_t in_set = r->field - offsetof(options_t, set);
            if (r->field >= offsetof(options_t, set) && in_set < sizeof(run_settings_t)) {
                static run_plan_t plan;
                run_plan_build(&plan, &o, programs[p], 0);
                CHECK(memcmp((char *)&plan.set + in_set, option_field(&o, r),
                             setting_size(r->type)) == 0);
            }
            if (r->type == OT_TESTS)
                CHECK(o.n_tests == 1 && o.tests[0] == 1);
            if (r->type == OT_CONGESTORS)
                CHECK(o.n_congestors == 1 && o.congestor_weights[0] == 3);
            if (bad[0]) {
                CHECK(parse2(&o, programs[p], row->name, bad, err) == OPT_ERROR);
                if (strncmp(err, row->name, strlen(row->name)) != 0)
                    fprintf(stderr, "%s %s: %s\n", row->name, bad, err);
                CHECK(strncmp(err, row->name, strlen(row->name)) == 0);
            }
            if (row->alias)
                CHECK(parse2(&o, programs[p], row->alias, NULL, err) == OPT_RUN);
        }
        /* Outside its programs it is refused, naming them. */
        for (int p = 0; p < 3; p++)
            if (!(option_scope(row->name) & option_program_bit(programs[p]))) {
                CHECK(parse2(&o, programs[p], row->name, "1", err) == OPT_ERROR);
                CHECK(strstr(err, " applies to ") != NULL);
            }
    }
}

static void defaults_from_the_table(void)
{
    options_t o;
    for (int p = 0; p < 3; p++) {
        options_defaults(&o, programs[p]);
        for (int i = 0; i < option_count(); i++) {
            const opt_row_t *r = option_row(i);
            if (r->variant || r->field == OPT_NO_FIELD || r->type == OT_TESTS ||
                r->type == OT_CONGESTORS)
                continue;
            CHECK(!option_differs(&o, r));
            /* A default inside the limits is accepted by them; outside
             * (-1, 0) it means "not given". */
            if (r->type == OT_DOUBLE || r->type == OT_LONG || r->type == OT_INT)
                CHECK((r->def >= r->lo && r->def <= r->hi) || r->def == -1 || r->def == 0);
        }
    }
    /* Defaults that the kernels also know: the same numbers. */
    CHECK(option_find("--congestor-bytes")->def == CONGESTOR_DEFAULT_BYTES);
    CHECK(strstr(option_find("--congestor-measurements")->help, STR(CONGESTOR_MEASUREMENTS)));
    const opt_row_t *iter = NULL;
    for (int i = 0; i < option_count(); i++)
        if (strcmp(option_row(i)->name, "--congestor-iterations") == 0 && option_row(i)->variant)
            iter = option_row(i);
    CHECK(iter && strstr(iter->help, STR(CONGESTOR_BASE_ITERATIONS)));
}

static void help_lists_every_option(void)
{
    static char usage[16384];
    for (int p = 0; p < 3; p++) {
        options_usage(programs[p], &tests, &congs, usage, sizeof(usage));
        int bit = option_program_bit(programs[p]);
        for (int i = 0; i < option_count(); i++) {
            const opt_row_t *r = option_row(i);
            char col[96];
            snprintf(col, sizeof(col), "%s%s%s ", r->name, r->metavar ? " " : "",
                     r->metavar ? r->metavar : "");
            CHECK(!strstr(usage, col) == !(option_scope(r->name) & bit));
        }
        for (char *line = usage; line; line = strchr(line, '\n')) {
            line += *line == '\n';
            size_t n = strcspn(line, "\n");
            CHECK(n <= 80);
            if (!line[n])
                break;
        }
    }
}

static void official_check(void)
{
    options_t o;
    char err[512], names[512];
    options_defaults(&o, PROGRAM_NETWORK_LOAD_TEST);
    CHECK(options_non_default(&o, PROGRAM_NETWORK_LOAD_TEST, 1, 1, NULL, names, 512) == 0);
    CHECK(names[0] == '\0');
    CHECK(options_non_default(&o, PROGRAM_NETWORK_LOAD_TEST, 0, 0, NULL, names, 512) == 2);
    CHECK(strcmp(names, "tests, congestors") == 0);
    /* Every official row, changed alone, is named by its key. */
    for (int i = 0; i < option_count(); i++) {
        const opt_row_t *r = option_row(i);
        char good[64], bad[64];
        if (r->variant || !r->official || r->type == OT_TESTS || r->type == OT_CONGESTORS)
            continue;
        values(r, good, bad, sizeof(good));
        CHECK(parse2(&o, PROGRAM_NETWORK_LOAD_TEST, r->name, r->metavar ? good : NULL, err) ==
              OPT_RUN);
        /* A companion counts when it is official itself (--burst, not
         * --deadline). */
        const char *with = companion(r->name);
        int with_official = with && strncmp(with, "--burst", 7) == 0;
        char expect[128];
        snprintf(expect, sizeof(expect), "%s%s", with_official ? "burst, " : "", r->key);
        CHECK(options_non_default(&o, PROGRAM_NETWORK_LOAD_TEST, 1, 1, NULL, names, 512) ==
              (with_official ? 2 : 1));
        CHECK(strcmp(names, expect) == 0);
    }
    /* Giving the default value keeps a run official; the seed is the
     * exception: its default is the clock. */
    CHECK(parse2(&o, PROGRAM_NETWORK_LOAD_TEST, "--time-limit", "10", err) == OPT_RUN);
    CHECK(options_non_default(&o, PROGRAM_NETWORK_LOAD_TEST, 1, 1, NULL, names, 512) == 0);
    CHECK(parse2(&o, PROGRAM_NETWORK_LOAD_TEST, "--seed", "time", err) == OPT_RUN);
    CHECK(options_non_default(&o, PROGRAM_NETWORK_LOAD_TEST, 1, 1, NULL, names, 512) == 0);
    /* network_congestor places no canaries: its seed changes no measurement. */
    CHECK(parse2(&o, PROGRAM_NETWORK_CONGESTOR, "--seed", "4", err) == OPT_RUN);
    CHECK(options_non_default(&o, PROGRAM_NETWORK_CONGESTOR, 1, 1, NULL, names, 512) == 0);
}

/* The settings lines and the config of a run of program with o. */
static void records(program_t program, const options_t *o, char *settings, char *config,
                    size_t len)
{
    static run_t run;
    static run_plan_t plan;
    json_writer_t w;
    memset(&run, 0, sizeof(run));
    run.env.program = program;
    run.env.opt = *o;
    run_plan_build(&plan, &run.env.opt, program, 0);
    run.env.plan = &plan;
    run.env.nodes.ppn_max = run.env.nodes.ppn_min = 1;
    snprintf(config, len, "%s", captured(NULL, &run, &w));
    snprintf(settings, len, "%s", captured(options_print_settings, &run, NULL));
}

/* The records of a run carry row r as they should: a row shown only when
 * set (.show_set, .config_set) only when given, and a kernel's own option
 * only in runs of its kernel (the fixtures' kernels are in no plan). */
static void carries(const opt_row_t *r, program_t program, const options_t *o,
                    const char *settings, const char *config, int given)
{
    static run_plan_t plan;
    char key[96];
    run_plan_build(&plan, o, program, 0);
    const kernel_options_t *set = option_row_kernel(r, NULL);
    int runs = !set || run_plan_runs_kernel(&plan, set);
    int bit = option_program_bit(program);
    int in_config = runs && (given || !r->config_set || r->config_null);
    snprintf(key, sizeof(key), "\"%s\": ", r->key);
    if ((r->config & bit) && !strstr(config, key) != !in_config)
        fprintf(stderr, "%s config: %s %s\n", program_name(program), in_config ? "lacks" : "has",
                key);
    if (r->config & bit)
        CHECK(!strstr(config, key) == !in_config);
    snprintf(key, sizeof(key), "   %s = ", r->label ? r->label : "");
    if (r->label && (option_scope(r->name) & bit))
        CHECK(!strstr(settings, key) == !(runs && (given || !r->show_set)));
}

/* At the defaults the records carry every key but those shown only when
 * set (.show_set, .config_set); given alone, each of those is carried. */
static void settings_and_config_carry_every_option(void)
{
    static char settings[16384], config[16384];
    char good[64], bad[64], err[512];
    options_t o;
    for (int p = 0; p < 3; p++) {
        CHECK(options_parse(&o, programs[p], 1, (char *[]){"prog", NULL}, &tests, &congs, err,
                            512) == OPT_RUN);
        records(programs[p], &o, settings, config, sizeof(config));
        CHECK(strstr(config, "\"official_default\": true") != NULL);
        for (int i = 0; i < option_count(); i++) {
            const opt_row_t *r = option_row(i);
            if (!r->variant && r->key)
                carries(r, programs[p], &o, settings, config, 0);
        }
        for (int i = 0; i < option_count(); i++) {
            const opt_row_t *r = option_row(i);
            if (r->variant || !r->key || !(r->show_set || r->config_set) ||
                !(option_scope(r->name) & option_program_bit(programs[p])))
                continue;
            values(r, good, bad, sizeof(good));
            CHECK(parse2(&o, programs[p], r->name, r->metavar ? good : NULL, err) == OPT_RUN);
            records(programs[p], &o, settings, config, sizeof(config));
            carries(r, programs[p], &o, settings, config, 1);
            /* The two rows that were hooks print as they did. */
            if (strcmp(r->name, "--timeline") == 0) {
                CHECK(strstr(settings, "   timeline = yes\n") != NULL);
                CHECK(strstr(config, "\"timeline\": true") != NULL);
            }
            if (strcmp(r->name, "--burst-sweep") == 0)
                CHECK(strstr(settings, "   burst sweep = ON (s) 0.01; OFF (s) 0.05; intensity 1; "
                                       "jitter 0\n") != NULL);
        }
    }
}

/* Every setting of the plan's set is one row's field, no two rows sharing
 * a byte and no member left out (a member no row fills would stay zero in
 * every plan): what no row covers is padding, less than a double's
 * alignment. Counts nothing, so a new setting needs no change here. */
static void plan_settings_from_rows(void)
{
    static unsigned char covered[sizeof(run_settings_t)];
    memset(covered, 0, sizeof(covered));
    size_t bytes = 0;
    for (int i = 0; i < option_count(); i++) {
        const opt_row_t *r = option_row(i);
        size_t at = r->field - offsetof(options_t, set);
        if (r->variant || r->field < offsetof(options_t, set) || at >= sizeof(run_settings_t))
            continue;
        size_t n = setting_size(r->type);
        CHECK(n > 0 && at + n <= sizeof(run_settings_t));
        for (size_t b = at; b < at + n && b < sizeof(covered); b++) {
            CHECK(covered[b] == 0);
            covered[b] = 1;
        }
        bytes += n;
    }
    CHECK(bytes <= sizeof(run_settings_t) && sizeof(run_settings_t) - bytes < sizeof(double));
}

static void record_places(void)
{
    for (int i = 0; i < option_count(); i++) {
        const opt_row_t *a = option_row(i);
        if (a->variant || !a->key)
            continue;
        for (int j = i + 1; j < option_count(); j++) {
            const opt_row_t *b = option_row(j);
            if (b->variant || !b->key || strcmp(a->key, b->key) == 0)
                continue;
            CHECK(!a->at.official || a->at.official != b->at.official);
            CHECK(!a->at.settings || a->at.settings != b->at.settings);
            CHECK(!a->at.config || a->at.config != b->at.config);
        }
    }
    const char *keys[OPT_MAX_KEYS];
    int n = option_keys(OPT_ORDER_OFFICIAL, NULL, 0, keys, OPT_MAX_KEYS);
    CHECK(n > 17 && strcmp(keys[0], "tests") == 0 && strcmp(keys[5], "time_limit_s") == 0 &&
          strcmp(keys[16], "placement") == 0);
    for (int i = 0; i < option_count(); i++) {
        int times = 0;
        for (int k = 0; option_row(i)->key && k < n; k++)
            times += strcmp(keys[k], option_row(i)->key) == 0;
        CHECK(!option_row(i)->key || times == 1);
    }
    /* A key that is no option goes in its place among the rows'. */
    const opt_record_key_t extra[] = {{"first", {.config = 1}}, {"loops", {.config = 10}}};
    n = option_keys(OPT_ORDER_CONFIG, extra, 2, keys, OPT_MAX_KEYS);
    CHECK(strcmp(keys[0], "first") == 0 && strcmp(keys[1], "seed") == 0 &&
          strcmp(keys[8], "time_limit_s") == 0 && strcmp(keys[9], "loops") == 0);
}

int main(void)
{
    for (int i = 0; i < canary_kernel_count; i++)
        test_ids[i] = canary_kernels[i]->id;
    for (int i = 0; i < congestor_kernel_count; i++)
        cong_ids[i] = congestor_kernels[i]->id;
    tests = (name_catalog_t){test_ids, canary_kernel_count, 0};
    congs = (name_catalog_t){cong_ids, congestor_kernel_count, 0};
    /* Every check below covers the rows kernels declare too. */
    install_kernel_rows_and_fixture();
    every_row_parses();
    defaults_from_the_table();
    help_lists_every_option();
    official_check();
    settings_and_config_carry_every_option();
    record_places();
    plan_settings_from_rows();
    return check_report("test_option_table");
}
