/* The option table's rows of the phases network_test and network_load_test
 * can add after their published tests (--node-probe, --all-pairs): kept
 * here so option_table.c stays one screenful per concern. Included by
 * option_table.c only, inside its table and after its OPT_FIELD, NONE and
 * PLAN, which the rows use; --help lists them where the macro stands. */
#ifndef GPCNET_OPTION_ROWS_AFTER_TESTS_H
#define GPCNET_OPTION_ROWS_AFTER_TESTS_H

#define OPTION_ROWS_AFTER_TESTS \
    {"--node-probe", NULL, OPT_NT | OPT_LT, OT_INT, OPT_FIELD(node_probe, int), NONE, .lo = 1, \
     .hi = 1000, .metavar = "ROUNDS", \
     .help = "after the tests, time every node against others\n" \
             "in ROUNDS rounds of disjoint pairs, to name a slow\n" \
             "node (results JSON node_probe; default: off)", \
     PLAN(node_probe, int)}, \
    {"--all-pairs", NULL, OPT_NT, OT_FLAG, OPT_FIELD(all_pairs, int), NONE, \
     .help = "after the tests, the N x N node matrix of\n" \
             "bandwidth and latency, each pair measured while\n" \
             "all others stream (shift pattern; results JSON\n" \
             "all_pairs; default: off)", \
     PLAN(all_pairs, int)}, \
    {"--all-pairs-bytes", NULL, OPT_NT, OT_LONG, OPT_FIELD(all_pairs_bytes, long), NONE, \
     .lo = 8, .hi = 1073741824.0, .def = 1048576, .def_text = "1048576", .metavar = "B", \
     .help = "bytes of each --all-pairs bandwidth message\n(default {default})", \
     PLAN(all_pairs_bytes, long)},

#endif
