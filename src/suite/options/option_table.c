/* The option table (option_table.h): every option of the three programs,
 * in the order --help lists them. */
#include "suite/options/option_table.h"

#include <stdint.h>

/* offsetof of a field, refused at compile time unless it has type T. */
#define OPT_FIELD(f, T) (offsetof(options_t, f) + 0 * sizeof(_Generic(((options_t *)0)->f, T: 1)))
#define GIVEN(f) OPT_FIELD(f, int)
#define NONE .given = OPT_NO_FIELD
/* A setting the run takes as given: its member of options_t.set, which
 * the plan copies whole (suite/run_settings.h). */
#define SET(f, T) OPT_FIELD(set.f, T)
#define PATH(f) .type = OT_PATH, .field = SET(f, char *), NONE

static const char *const placements[] = {"split", "colocated", NULL};
static const char *const placement_text[] = {
    "split (congestors on their own nodes)",
    "colocated (canaries and congestors share every node)", NULL};

#define SEED_HELP_TAIL " (default: time on rank 0)"
#define CONGESTORS_HELP "kernels and weights, e.g. a2a,rma_bcast:2\n" \
                        "(default: a2a,p2p_incast,rma_incast,rma_bcast)"
#define TESTS_HELP_TAIL "), of:\n{tests}"

const opt_row_t option_table[] = {
    {"--help", "-h", OPT_ANY, OT_HELP, OPT_NO_FIELD, NONE, .help = "show this help and exit"},
    {"--version", NULL, OPT_ANY, OT_VERSION, OPT_NO_FIELD, NONE,
     .help = "show the version and exit"},
    {"--verbose", "-v", OPT_NT, OT_FLAG, SET(verbose, int), NONE,
     .help = "verbose tables: Min, Max, Avg(Worst), 99.9%", .key = "verbose",
     .config = OPT_ANY, .label = "verbose",
     .at = {.settings = 21, .config = 11}},
    {"--verbose", "-v", OPT_LT, .variant = 1,
     .help = "verbose tables: Min, Max, Avg(Worst), 99.9%,\nand the isolated congestor baselines"},
    {"--quiet", "-q", OPT_ANY, OT_FLAG, SET(quiet, int), NONE,
     .help = "no progress lines on stderr"},
    {"--tests", NULL, OPT_NT, OT_TESTS, OPT_FIELD(tests, int *), NONE, .metavar = "LIST",
     .help = "tests to run in order (default: all {n_tests}" TESTS_HELP_TAIL, .key = "tests",
     .official = OPT_ANY,
     .at = {.official = 1, .settings = 18, .config = 8}},
    {"--tests", NULL, OPT_LT, .variant = 1, .metavar = "LIST",
     .help = "tests to run in order (default: 3 canaries" TESTS_HELP_TAIL},
    {"--congestors", NULL, OPT_NC, OT_CONGESTORS, OPT_FIELD(congestors, int *), NONE,
     .metavar = "LIST", .help = CONGESTORS_HELP, .key = "congestors", .official = OPT_ANY,
     .at = {.official = 2, .settings = 5, .config = 5}},
    {"--seed", NULL, OPT_NC, OT_U64, OPT_FIELD(seed, uint64_t), GIVEN(seed_given), .lo = 0,
     .hi = 2147483647.0, .keyword = "time", .metavar = "N|time",
     .help = "seed of the node dealing" SEED_HELP_TAIL, .key = "seed", .official = OPT_LT,
     .at = {.official = 3, .settings = 2, .config = 2}},
    {"--seed", NULL, OPT_LT, .variant = 1, .metavar = "N|time",
     .help = "placement seed" SEED_HELP_TAIL},
    {"--canary-fraction", NULL, OPT_LT, OT_DOUBLE, SET(canary_fraction, double),
     GIVEN(canary_fraction_given), .lo = 0.0, .lo_open = 1, .hi = 0.9, .def = 0.2,
     .metavar = "F", .help = "share of nodes running canaries (default {default})",
     .key = "canary_fraction", .official = OPT_LT, .config = OPT_LT,
     .config_null = CONFIG_NULL_ELSEWHERE,
     .label = "canary fraction",
     .at = {.official = 5, .settings = 4, .config = 4}},
    {"--congestors", NULL, OPT_LT, .variant = 1, .metavar = "LIST",
     .help = "congestor " CONGESTORS_HELP},
    /* Loop overrides: -1 keeps each kernel's own loops (congestor.h, the
     * canaries' tables): the help says which. */
    {"--congestor-measurements", NULL, OPT_LT, OT_LONG,
     OPT_FIELD(congestor_measurements, long), NONE, .lo = 1, .hi = 1e7, .def = -1,
     .metavar = "N", .help = "measurements per congestor pass (default 256)",
     .key = "congestor_measurements", .official = OPT_ANY,
     .at = {.official = 11, .settings = 6, .config = 6}},
    {"--congestor-iterations", NULL, OPT_LT, OT_LONG,
     OPT_FIELD(congestor_iterations, long), NONE, .lo = 1, .hi = 1e7, .def = -1,
     .metavar = "N", .help = "override iterations per congestor measurement",
     .key = "congestor_iterations", .official = OPT_ANY,
     .at = {.official = 12, .settings = 8, .config = 7}},
    {"--congestor-bytes", NULL, OPT_LT | OPT_NC, OT_LONG, OPT_FIELD(congestor_bytes, long),
     NONE, .lo = 8, .hi = 64.0 * 1024 * 1024, .multiple = 8, .note = " (bytes of doubles)",
     .def = 4096, .metavar = "N", .help = "message size of every congestor (default {default})",
     .key = "congestor_bytes", .official = OPT_ANY, .config = OPT_LT,
     .label = "congestor message", .unit = " B",
     .at = {.official = 16, .settings = 7, .config = 17}},
    /* Bursts: recorded in the config by one hook ("burst", option_report.c),
     * only when given, so a steady run's config is the published one. */
    {"--burst", NULL, OPT_LT | OPT_NC, OT_BURST, OPT_FIELD(burst, double *), NONE,
     .metavar = "ON,OFF",
     .help = "bursty congestors: congest ON, pause OFF, repeat\n"
             "(e.g. 50ms,200ms; units us, ms, s; default: steady)",
     .key = "burst", .official = OPT_LT | OPT_NC},
    {"--burst-intensity", NULL, OPT_LT | OPT_NC, OT_DOUBLE, OPT_FIELD(burst_intensity, double),
     NONE, .lo = 0.0, .lo_open = 1, .hi = 1.0, .what = "a share of the full rate", .def = 1.0,
     .metavar = "F",
     .help = "congestors inject at F of their full rate while ON,\n"
             "paced by gaps between iterations (default {default})",
     .key = "burst_intensity", .official = OPT_LT | OPT_NC},
    {"--burst-jitter", NULL, OPT_LT | OPT_NC, OT_DOUBLE, OPT_FIELD(burst_jitter, double), NONE,
     .lo = 0.0, .hi = 1.0, .hi_open = 1, .what = "a relative variation", .def = 0.0,
     .metavar = "F",
     .help = "vary every ON and OFF by up to +-F of its length,\n"
             "the same from the same seed (needs --burst or\n"
             "--burst-sweep; default {default})",
     .key = "burst_jitter", .official = OPT_LT | OPT_NC},
    {"--burst-sweep", NULL, OPT_LT, OT_BURST_SWEEP, OPT_FIELD(burst_sweep, burst_sweep_t), NONE,
     .metavar = "GRID",
     .help = "a loaded phase per ON x OFF x intensity cell, e.g.\n"
             "'ON=10ms,50ms;OFF=50ms,200ms;INTENSITY=0.5,1'\n"
             "(quoted; INTENSITY default 1; up to 8 values\n"
             "each), then the steady one; prints the impact\n"
             "matrix by burst shape",
     .key = "burst_sweep", .official = OPT_LT, .config = OPT_LT, .config_set = 1,
     .label = "burst sweep", .show_set = 1},
    {"--timeline", NULL, OPT_LT, OT_FLAG, SET(timeline, int), NONE,
     .help = "record the canaries' values over time and their\n"
             "Avg and 99% during and between bursts, and the\n"
             "recovery time after bursts, in the results JSON",
     .key = "timeline", .config = OPT_LT, .config_set = 1, .label = "timeline", .show_set = 1},
    {"--congestor-iterations", NULL, OPT_NC, .variant = 1, .metavar = "N",
     .help = "iterations per pass (default 512, scaled)"},
    {"--duration", NULL, OPT_NC, OT_DOUBLE, SET(duration, double), NONE, .lo = 0.0,
     .lo_open = 1, .hi = 1e7, .metavar = "SEC",
     .help = "stop after SEC seconds (default: no limit)", .key = "duration",
     .at = {.settings = 9}},
    {"--stop-file", NULL, OPT_NC, PATH(stop_file), .metavar = "PATH",
     .help = "stop once PATH exists (checked every pass)", .key = "stop_file",
     .label = "stop file", .show_set = 1,
     .at = {.settings = 10}},
    {"--start-file", NULL, OPT_NC, PATH(start_file), .metavar = "PATH",
     .help = "wait until PATH exists before congesting", .key = "start_file",
     .label = "start file", .show_set = 1,
     .at = {.settings = 11}},
    {"--report-interval", NULL, OPT_NC, OT_DOUBLE, SET(report_interval, double), NONE,
     .lo = 0.0, .lo_open = 1, .hi = 86400.0, .def = 5.0, .metavar = "SEC",
     .help = "seconds between bandwidth lines (default {default})", .key = "report_interval",
     .label = "report interval", .unit = " s",
     .at = {.settings = 12}},
    {"--flows", NULL, OPT_NC, PATH(flows_file), .metavar = "FILE",
     .help = "instead of the kernels: point-to-point traffic\n"
             "along 'SRC DST' node-name lines (bullies)"},
    {"--congestor-job-start", NULL, OPT_LT, PATH(congestor_job_start), .metavar = "PATH",
     .help = "congestors in a separate job: every node\n"
             "runs canaries; create PATH (network_congestor\n"
             "--start-file) after the isolated tests",
     .key = "congestor_job_start", .config = OPT_LT, .config_set = 1,
     .label = "congestor job start file", .show_set = 1},
    {"--congestor-job-stop", NULL, OPT_LT, PATH(congestor_job_stop), .metavar = "PATH",
     .help = "create PATH (network_congestor --stop-file)\n"
             "at the end, also when aborted",
     .key = "congestor_job_stop", .config = OPT_LT, .config_set = 1,
     .label = "congestor job stop file", .show_set = 1},
    {"--congestor-job-settle", NULL, OPT_LT, OT_DOUBLE, SET(congestor_job_settle, double), NONE,
     .lo = 0.0, .hi = 3600.0, .def = 2.0, .metavar = "SEC",
     .help = "seconds from the start file to the loaded\n"
             "tests (default {default})",
     .key = "congestor_job_settle_s", .config = OPT_LT, .config_set = 1,
     .label = "congestor job settle", .unit = " s", .show_set = 1},
    {"--placement", NULL, OPT_LT, OT_CHOICE, SET(placement, placement_kind_t), NONE,
     .choices = placements, .metavar = "KIND",
     .help = "split: congestors on 80% of the nodes, canaries on\n"
             "the rest (default, published); colocated: both on\n"
             "every node, half the ranks each (shared NICs)",
     .key = "placement", .official = OPT_ANY, .config = OPT_LT, .label = "placement",
     .choice_text = placement_text,
     .at = {.official = 17, .settings = 13, .config = 18}},
    {"--congestor-sweep", NULL, OPT_LT, OT_FLAG, SET(congestor_sweep, int), NONE,
     .help = "canaries under each congestor alone, then all\ntogether; prints the impact matrix",
     .key = "congestor_sweep", .official = OPT_ANY, .config = OPT_LT,
     .label = "congestor sweep", .show_note = " (each congestor alone, then all together)",
     .show_set = 1,
     .at = {.official = 14, .settings = 14, .config = 15}},
    {"--repeat", NULL, OPT_LT, OT_INT, SET(repeat, int), NONE, .lo = 1, .hi = OPT_MAX_REPEAT,
     .def = 1, .metavar = "N",
     .help = "repeat the whole run N times (fresh placement\n"
             "seed each unless --seed); prints mean, min, max\n"
             "and coefficient of variation of every value",
     .key = "repeat", .config = OPT_LT,
     .at = {.settings = 15, .config = 16}},
    {"--node-probe", NULL, OPT_NT | OPT_LT, OT_INT, SET(node_probe, int), NONE, .lo = 1,
     .hi = 1000, .metavar = "ROUNDS",
     .help = "after the tests, time every node against others\n"
             "in ROUNDS rounds of disjoint pairs, to name a slow\n"
             "node (results JSON node_probe; default: off)"},
    {"--ebb", NULL, OPT_NT, OT_INT, SET(ebb, int), NONE, .lo = 1, .hi = 100000,
     .metavar = "MATCHINGS",
     .help = "after the tests, the effective bisection bandwidth:\n"
             "MATCHINGS random perfect matchings of the nodes\n"
             "(from --ring-seed), every pair exchanging at once\n"
             "(results JSON ebb; even node count; default: off)"},
    {"--ebb-bytes", NULL, OPT_NT, OT_LONG, SET(ebb_bytes, long), NONE, .lo = 1,
     .hi = 1073741824.0, .def = 1048576, .metavar = "BYTES",
     .help = "--ebb: bytes each way per pair (default 1048576)"},
    {"--link-rate", NULL, OPT_NT, OT_DOUBLE, SET(link_rate, double), NONE, .lo = 0.0,
     .lo_open = 1, .hi = 1.0e6, .what = "a rate in Gbit/s", .note = " (e.g. 100)",
     .metavar = "GBIT",
     .help = "--ebb: the nodes' link rate in Gbit/s, to print\n"
             "eBB as its fraction (default: not known)"},
    {"--all-pairs", NULL, OPT_NT, OT_FLAG, SET(all_pairs, int), NONE,
     .help = "after the tests, the N x N node matrix of\n"
             "bandwidth and latency, each pair measured while\n"
             "all others stream (shift pattern; results JSON\n"
             "all_pairs; default: off)"},
    {"--all-pairs-bytes", NULL, OPT_NT, OT_LONG, SET(all_pairs_bytes, long), NONE, .lo = 8,
     .hi = 1073741824.0, .def = 1048576, .def_text = "1048576", .metavar = "B",
     .help = "bytes of each --all-pairs bandwidth message\n(default {default})"},
    {"--time-limit", NULL, OPT_MEASURING, OT_DOUBLE, SET(time_limit, double),
     GIVEN(time_limit_given), .lo = 0.0, .lo_open = 1, .hi = 86400.0, .def = 10.0,
     .metavar = "SEC", .help = "time limit per test (default {default})", .key = "time_limit_s",
     .official = OPT_ANY, .config = OPT_ANY, .label = "time limit", .unit = " s per test",
     .at = {.official = 6, .settings = 17, .config = 9}},
    {"--converge", NULL, OPT_MEASURING, OT_DOUBLE, SET(converge_tol, double), NONE,
     .lo = 0.0, .lo_open = 1, .hi = 1.0, .hi_open = 1, .what = "a relative tolerance",
     .note = " (e.g. 0.05)", .metavar = "TOL",
     .help = "end a test once its Avg and 99% are known to the\n"
             "relative tolerance TOL (95% confidence, e.g. 0.05);\n"
             "the time limit stays the cap (default: off)",
     .key = "converge", .official = OPT_ANY, .config = OPT_ANY,
     .config_null = CONFIG_NULL_AT_DEFAULT,
     .label = "converge",
     .show_note = " (a test ends once its Avg and 99% are known to this)", .show_set = 1,
     .at = {.official = 15, .settings = 16, .config = 14}},
    {"--measurements", NULL, OPT_MEASURING, OT_LONG, OPT_FIELD(measurements, long), NONE,
     .lo = 1, .hi = 1e7, .def = -1, .metavar = "N",
     .help = "override measurements per test (nM)", .key = "measurements", .official = OPT_ANY,
     .at = {.official = 7}},
    {"--rings", NULL, OPT_MEASURING, OT_LONG, OPT_FIELD(rings, long), NONE, .lo = 1,
     .hi = 100000, .def = -1, .metavar = "N",
     .help = "override random rings per measurement (nR)", .key = "rings", .official = OPT_ANY,
     .at = {.official = 8}},
    {"--iterations", NULL, OPT_MEASURING, OT_LONG, OPT_FIELD(iterations, long), NONE, .lo = 1,
     .hi = 1e7, .def = -1, .metavar = "N", .help = "override timed iterations per ring (nI)",
     .key = "iterations", .official = OPT_ANY,
     .at = {.official = 9}},
    {"--warmup", NULL, OPT_MEASURING, OT_LONG, OPT_FIELD(warmup, long), NONE, .lo = 0,
     .hi = 1e7, .def = -1, .metavar = "N", .help = "override warm-up iterations",
     .key = "warmup", .official = OPT_ANY,
     .at = {.official = 10}},
    {"--ring-seed", NULL, OPT_MEASURING, OT_U64, OPT_FIELD(ring_seed, uint64_t),
     GIVEN(ring_seed_given), .lo = 0, .hi = 2147483647.0, .def = 1000, .metavar = "N",
     .help = "base seed of the random rings (default {default})", .key = "ring_seed",
     .official = OPT_ANY, .config = OPT_ANY, .label = "ring seed",
     .at = {.official = 4, .settings = 3, .config = 3}},
    {"--nics-per-node", NULL, OPT_MEASURING, OT_INT, SET(nics_per_node, int), NONE,
     .lo = 1, .hi = 1024, .def = 1, .metavar = "N",
     .help = "NICs per node, to report ranks per port (default {default})",
     .key = "nics_per_node", .config = OPT_ANY,
     .at = {.settings = 20, .config = 12}},
    /* Both emulations are one setting of the record: "emulated_nodes". */
    {"--emulate-nodes", NULL, OPT_ANY, OT_INT, SET(emulate_ppn, int), NONE, .lo = 1,
     .hi = 1e6, .metavar = "K", .help = "treat every K consecutive ranks as one node",
     .key = "emulated_nodes", .official = OPT_ANY,
     .at = {.official = 13, .settings = 19, .config = 13}},
    {"--emulate-node-count", NULL, OPT_ANY, OT_INT, SET(emulate_nodes, int), NONE,
     .lo = 1, .hi = 1e6, .metavar = "N",
     .help = "split the ranks into N equal nodes\n"
             "(default: nodes are the real shared-memory hosts)",
     .key = "emulated_nodes", .official = OPT_ANY},
    {"--output-dir", NULL, OPT_ANY, PATH(output_dir), .def_text = ".", .metavar = "DIR",
     .help = "where results and node lists go (default {default})", .key = "output_dir",
     .config = OPT_ANY,
     .at = {.config = 19}},
    {"--json", NULL, OPT_ANY, PATH(json_path), .metavar = "FILE",
     .help = "results JSON (default DIR/{program}.json)", .key = "json",
     .at = {.settings = 23, .config = 20}},
    {"--force", NULL, OPT_ANY, OT_FLAG, SET(force, int), NONE,
     .help = "overwrite existing result files"},
    {"--deadline", NULL, OPT_ANY, OT_DOUBLE, SET(deadline, double), NONE, .lo = 0.0,
     .lo_open = 1, .hi = 1e7, .metavar = "SEC",
     .help = "abort the whole job after SEC seconds"},
    /* Unofficial: MPI runs with MPI_THREAD_MULTIPLE, not as the reference. */
    {"--fault-probe", NULL, OPT_ANY, OT_DOUBLE, SET(fault_probe, double), NONE, .lo = 0.5,
     .hi = 1e6, .metavar = "SEC", .key = "fault_probe", .official = OPT_ANY,
     .help = "SEC s before --deadline, name the hosts whose\n"
             "ranks do not answer rank 0 (MPI then runs\n"
             "with MPI_THREAD_MULTIPLE)"},
};

const int option_table_count = (int)(sizeof(option_table) / sizeof(option_table[0]));
