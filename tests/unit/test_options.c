/* Option parsing: defaults, every option, and every kind of bad input. */
#include <string.h>

#include "check.h"
#include "suite/options/option_parse.h"

static const char *tests_ids[] = {"rr_two_sided_lat", "rr_two_sided_bw_sync", "multiple_allreduce"};
static const char *cong_ids[] = {"a2a", "p2p_incast", "rma_incast", "rma_bcast"};
static const name_catalog_t tests = {tests_ids, 3, 0};
static const name_catalog_t congs = {cong_ids, 4, 0};
static char err[512];
static options_t o;

static opt_status_t parse(program_t prog, const char *a1, const char *a2, const char *a3)
{
    char *argv[5] = {"prog", (char *)a1, (char *)a2, (char *)a3, NULL};
    int argc = 1 + (a1 != NULL) + (a2 != NULL) + (a3 != NULL);
    return options_parse(&o, prog, argc, argv, &tests, &congs, err, sizeof(err));
}

#define LOAD PROGRAM_NETWORK_LOAD_TEST
#define NET PROGRAM_NETWORK_TEST
#define CONG PROGRAM_NETWORK_CONGESTOR
#define BAD(prog, a, b, c, needle)                                   \
    do {                                                             \
        CHECK(parse(prog, a, b, c) == OPT_ERROR);                    \
        if (!strstr(err, needle))                                    \
            fprintf(stderr, "message '%s' lacks '%s'\n", err, needle); \
        CHECK(strstr(err, needle) != NULL);                          \
    } while (0)

int main(void)
{
    /* Defaults are the published ones (docs/method.md#official-defaults). */
    CHECK(parse(LOAD, NULL, NULL, NULL) == OPT_RUN);
    CHECK(o.set.time_limit == 10.0 && o.set.canary_fraction == 0.2 && !o.seed_given);
    CHECK(o.n_tests == 0 && o.n_congestors == 0 && o.measurements == -1 && o.warmup == -1);
    CHECK(o.set.emulate_ppn == 0 && o.set.emulate_nodes == 0 && o.set.nics_per_node == 1);
    CHECK(strcmp(o.set.output_dir, ".") == 0 && o.set.json_path[0] == '\0');

    CHECK(parse(LOAD, "--help", NULL, NULL) == OPT_HELP);
    CHECK(parse(LOAD, "-h", "--bogus", NULL) == OPT_ERROR); /* errors win over help */
    CHECK(parse(NET, "--version", NULL, NULL) == OPT_VERSION);

    CHECK(parse(LOAD, "--seed", "42", "--verbose") == OPT_RUN);
    CHECK(o.seed_given && o.seed == 42 && o.set.verbose);
    CHECK(parse(LOAD, "--seed=time", NULL, NULL) == OPT_RUN && !o.seed_given);
    CHECK(parse(LOAD, "--time-limit=0.25", "--quiet", NULL) == OPT_RUN);
    CHECK(o.set.time_limit == 0.25 && o.set.quiet);
    CHECK(parse(LOAD, "--congestors", "rma-bcast:2,a2a", NULL) == OPT_RUN);
    CHECK(o.n_congestors == 2 && o.congestors[0] == 3 && o.congestor_weights[0] == 2 &&
          o.congestors[1] == 0 && o.congestor_weights[1] == 1);
    CHECK(parse(NET, "--tests", "multiple_allreduce,rr_two_sided_lat", NULL) == OPT_RUN);
    CHECK(o.n_tests == 2 && o.tests[0] == 2 && o.tests[1] == 0);
    CHECK(parse(NET, "--emulate-nodes", "4", "--force") == OPT_RUN);
    CHECK(o.set.emulate_ppn == 4 && o.set.force);
    CHECK(parse(NET, "--measurements", "3", "--iterations=5") == OPT_RUN);
    CHECK(o.measurements == 3 && o.iterations == 5);
    CHECK(parse(NET, "--output-dir", "/tmp/x", "--json=/tmp/y.json") == OPT_RUN);
    CHECK(strcmp(o.set.output_dir, "/tmp/x") == 0 && strcmp(o.set.json_path, "/tmp/y.json") == 0);
    CHECK(parse(LOAD, "--canary-fraction", "0.5", "--nics-per-node=2") == OPT_RUN);
    CHECK(o.set.canary_fraction == 0.5 && o.set.nics_per_node == 2);

    BAD(LOAD, "--bogus", NULL, NULL, "unknown option '--bogus'");
    BAD(LOAD, "stray", NULL, NULL, "unexpected argument 'stray'");
    BAD(LOAD, "--time-limit", NULL, NULL, "--time-limit needs a value");
    BAD(LOAD, "--time-limit", "abc", NULL, "--time-limit: expected a number");
    BAD(LOAD, "--time-limit", "0", NULL, "--time-limit");
    BAD(LOAD, "--time-limit", "-1", NULL, "--time-limit");
    BAD(LOAD, "--time-limit", "nan", NULL, "--time-limit");
    BAD(LOAD, "--time-limit", "1e999", NULL, "--time-limit");
    /* A number is written in decimal (suite/options/option_number.h): an exponent
     * is decimal too; hexadecimal, inf, blanks and signs alone are not. */
    CHECK(parse(LOAD, "--time-limit", "1e1", NULL) == OPT_RUN && o.set.time_limit == 10.0);
    CHECK(parse(LOAD, "--time-limit", ".5", NULL) == OPT_RUN && o.set.time_limit == 0.5);
    CHECK(parse(LOAD, "--time-limit", "+2.", NULL) == OPT_RUN && o.set.time_limit == 2.0);
    BAD(LOAD, "--time-limit", "0x10", NULL, "--time-limit: expected a number");
    BAD(LOAD, "--time-limit", "0x1p3", NULL, "--time-limit: expected a number");
    BAD(LOAD, "--time-limit", "inf", NULL, "--time-limit: expected a number");
    BAD(LOAD, "--time-limit", "infinity", NULL, "--time-limit: expected a number");
    BAD(LOAD, "--time-limit", " 5", NULL, "--time-limit: expected a number");
    BAD(LOAD, "--time-limit", "5 ", NULL, "--time-limit: expected a number");
    BAD(LOAD, "--time-limit", "1e", NULL, "--time-limit: expected a number");
    BAD(LOAD, "--time-limit", ".", NULL, "--time-limit: expected a number");
    BAD(LOAD, "--time-limit", "-", NULL, "--time-limit: expected a number");
    BAD(LOAD, "--seed", "0x10", NULL, "--seed: expected a whole number");
    BAD(LOAD, "--seed", " 7", NULL, "--seed: expected a whole number");
    BAD(LOAD, "--burst", "0x10ms,1s", NULL, "--burst: expected ON,OFF durations");
    BAD(LOAD, "--burst", "infms,1s", NULL, "--burst: expected ON,OFF durations");
    BAD(LOAD, "--burst", "50ms, 1s", NULL, "--burst: expected ON,OFF durations");
    CHECK(parse(LOAD, "--burst", "5e1ms,.2s", NULL) == OPT_RUN && o.burst[0] > 0.0499 && o.burst[0] < 0.0501 &&
          o.burst[1] == 0.2);
    BAD(LOAD, "--burst-sweep", "ON=10ms;OFF=0;INTENSITY=0x1", NULL, "--burst-sweep");
    BAD(LOAD, "--seed", "-3", NULL, "--seed: expected a whole number");
    BAD(LOAD, "--seed", "12x", NULL, "--seed");
    BAD(LOAD, "--canary-fraction", "1.5", NULL, "--canary-fraction");
    BAD(LOAD, "--canary-fraction", "0", NULL, "--canary-fraction");
    BAD(LOAD, "--congestors", "a2a,nope", NULL, "unknown name 'nope'");
    BAD(LOAD, "--congestors", "a2a,a2a", NULL, "listed twice");
    BAD(LOAD, "--congestors", "", NULL, "expected a comma-separated list");
    BAD(LOAD, "--congestors", "a2a,", NULL, "expected a comma-separated list");
    BAD(LOAD, "--congestors", "a2a:0", NULL, "from 1 to 64");
    BAD(LOAD, "--congestors", "a2a:", NULL, "bad weight");
    BAD(NET, "--tests", "rr_two_sided_lat:2", NULL, "weights");
    BAD(NET, "--seed", "1", NULL, "--seed applies to network_load_test and network_congestor only");
    BAD(NET, "--congestors", "a2a", NULL, "applies to network_load_test and network_congestor");
    BAD(NET, "--congestor-sweep", NULL, NULL, "--congestor-sweep applies to network_load_test only");
    BAD(NET, "--repeat", "2", NULL, "network_load_test only");
    BAD(LOAD, "--duration", "5", NULL, "--duration applies to network_congestor only");
    BAD(CONG, "--tests", "rr_two_sided_lat", NULL, "network_test and network_load_test only");
    BAD(CONG, "--converge", "0.1", NULL, "network_test and network_load_test only");
    BAD(NET, "--measurements", "0", NULL, "--measurements");
    BAD(NET, "--warmup", "-1", NULL, "--warmup");
    BAD(NET, "--emulate-nodes", "0", NULL, "--emulate-nodes");
    BAD(NET, "--emulate-nodes", "2", "--emulate-node-count=3", "exclude each other");
    BAD(NET, "--verbose=yes", NULL, NULL, "takes no value");
    BAD(NET, "--json", "", NULL, "empty");
    BAD(NET, "--nics-per-node", "0", NULL, "--nics-per-node");
    BAD(NET, "--deadline", "-5", NULL, "--deadline");
    BAD(NET, "--json", "--force", NULL, "--json needs a value (got option '--force' instead)");

    /* Experiments in one job (docs/method.md#sweep) and the knobs. */
    CHECK(parse(LOAD, NULL, NULL, NULL) == OPT_RUN);
    CHECK(o.set.repeat == 1 && !o.set.congestor_sweep && o.set.converge_tol == 0.0 &&
          o.congestor_bytes == 4096 && o.set.placement == PLACEMENT_SPLIT);
    CHECK(parse(LOAD, "--congestor-sweep", "--repeat", "3") == OPT_RUN);
    CHECK(o.set.congestor_sweep && o.set.repeat == 3);
    CHECK(parse(NET, "--converge", "0.05", NULL) == OPT_RUN && o.set.converge_tol == 0.05);
    CHECK(parse(LOAD, "--congestor-bytes", "65536", "--placement=colocated") == OPT_RUN);
    CHECK(o.congestor_bytes == 65536 && o.set.placement == PLACEMENT_COLOCATED);
    CHECK(parse(CONG, "--duration", "2.5", "--quiet") == OPT_RUN && o.set.duration == 2.5);
    CHECK(parse(CONG, "--stop-file", "/tmp/stop", "--start-file=/tmp/go") == OPT_RUN);
    CHECK(strcmp(o.set.stop_file, "/tmp/stop") == 0 && strcmp(o.set.start_file, "/tmp/go") == 0);
    CHECK(parse(CONG, "--report-interval", "0.5", "--congestors=rma_bcast") == OPT_RUN);
    CHECK(o.set.report_interval == 0.5 && o.n_congestors == 1 && o.congestors[0] == 3);
    BAD(LOAD, "--repeat", "0", NULL, "--repeat: expected a whole number from 1 to 1000");
    BAD(LOAD, "--converge", "-1", NULL, "--converge: expected a relative tolerance > 0 and < 1");
    BAD(LOAD, "--converge", "2", NULL, "--converge: expected a relative tolerance");
    BAD(LOAD, "--converge", "1", NULL, "--converge");
    BAD(LOAD, "--congestor-bytes", "0", NULL, "--congestor-bytes: expected a multiple of 8");
    BAD(LOAD, "--congestor-bytes", "100", NULL, "multiple of 8");
    BAD(LOAD, "--placement", "mixed", NULL, "expected 'split' or 'colocated'");
    BAD(CONG, "--duration", "0", NULL, "--duration");
    BAD(CONG, "--report-interval", "0", NULL, "--report-interval");
    BAD(CONG, "--congestors", "nope", NULL, "unknown name 'nope'");

    char usage[8192];
    options_usage(LOAD, &tests, &congs, usage, sizeof(usage));
    CHECK(strstr(usage, "--congestors") && strstr(usage, "--canary-fraction") &&
          strstr(usage, "rma_bcast") && strstr(usage, "Usage: mpirun"));
    options_usage(NET, &tests, &congs, usage, sizeof(usage));
    CHECK(strstr(usage, "--congestors") == NULL && strstr(usage, "--emulate-nodes"));
    options_usage(CONG, &tests, &congs, usage, sizeof(usage));
    CHECK(strstr(usage, "network_congestor") && strstr(usage, "--stop-file") &&
          strstr(usage, "rma_bcast") && strstr(usage, "--tests") == NULL);
    /* Every line of every --help fits 80 columns. */
    program_t progs[] = {NET, LOAD, CONG};
    for (int i = 0; i < 3; i++) {
        options_usage(progs[i], &tests, &congs, usage, sizeof(usage));
        int longest = 0, col = 0;
        for (const char *c = usage; *c; c++) {
            col = *c == '\n' ? 0 : col + 1;
            longest = col > longest ? col : longest;
        }
        CHECK(longest <= 80);
    }
    return check_report("test_options");
}
