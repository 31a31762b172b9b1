/* Fuzz the command-line parser (options_parse, options_usage).
 *
 * Input: byte 0 picks the program; the rest is argv, split at NUL bytes.
 * Whatever the arguments, the parser must not crash, must leave every
 * setting it accepts within its documented range (docs/reliability.md),
 * and must explain every refusal. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_check.h"
#include "suite/options/option_parse.h"

static const char *test_ids[] = {"rr_two_sided_lat", "rr_get_lat", "rr_two_sided_bw",
                                 "rr_put_bw", "rr_two_sided_bw_sync", "nat_two_sided_bw",
                                 "multiple_allreduce", "multiple_alltoall"};
static const char *congestor_ids[] = {"a2a", "p2p_incast", "rma_incast",
                                      "rma_bcast", "dl_allreduce", "p2p_bcast"};
static const name_catalog_t tests = {test_ids, 8, 0};
static const name_catalog_t congestors = {congestor_ids, 6, 0};

#define MAX_ARGS 64

static void check_list(const int *idx, const int *weights, int n, int catalogue_size)
{
    FUZZ_CHECK(n >= 0 && n <= OPT_MAX_LIST);
    for (int i = 0; i < n; i++) {
        FUZZ_CHECK(idx[i] >= 0 && idx[i] < catalogue_size);
        for (int j = 0; j < i; j++)
            FUZZ_CHECK(idx[i] != idx[j]);
        if (weights)
            FUZZ_CHECK(weights[i] >= 1 && weights[i] <= 64);
    }
}

static void check_accepted(const options_t *o, program_t program)
{
    FUZZ_CHECK(o->program == program);
    FUZZ_CHECK(isfinite(o->set.time_limit) && o->set.time_limit > 0.0 &&
               o->set.time_limit <= 86400.0);
    FUZZ_CHECK(isfinite(o->set.canary_fraction) && o->set.canary_fraction > 0.0 &&
               o->set.canary_fraction <= 0.9);
    FUZZ_CHECK(isfinite(o->set.deadline) && o->set.deadline >= 0.0 && o->set.deadline <= 1e7);
    check_list(o->tests, NULL, o->n_tests, tests.count);
    check_list(o->congestors, o->congestor_weights, o->n_congestors, congestors.count);
    FUZZ_CHECK(o->measurements == -1 || (o->measurements >= 1 && o->measurements <= 10000000L));
    FUZZ_CHECK(o->rings == -1 || (o->rings >= 1 && o->rings <= 100000L));
    FUZZ_CHECK(o->iterations == -1 || (o->iterations >= 1 && o->iterations <= 10000000L));
    FUZZ_CHECK(o->warmup == -1 || (o->warmup >= 0 && o->warmup <= 10000000L));
    FUZZ_CHECK(o->congestor_measurements == -1 ||
               (o->congestor_measurements >= 1 && o->congestor_measurements <= 10000000L));
    FUZZ_CHECK(o->congestor_iterations == -1 ||
               (o->congestor_iterations >= 1 && o->congestor_iterations <= 10000000L));
    FUZZ_CHECK(o->set.nics_per_node >= 1 && o->set.nics_per_node <= 1024);
    FUZZ_CHECK(o->set.emulate_ppn >= 0 && o->set.emulate_ppn <= 1000000);
    FUZZ_CHECK(o->set.emulate_nodes >= 0 && o->set.emulate_nodes <= 1000000);
    FUZZ_CHECK(!(o->set.emulate_ppn && o->set.emulate_nodes));
    FUZZ_CHECK(o->seed <= 2147483647ULL && o->ring_seed <= 2147483647ULL);
    FUZZ_CHECK(memchr(o->set.output_dir, '\0', sizeof(o->set.output_dir)) != NULL);
    FUZZ_CHECK(o->set.output_dir[0] != '\0');
    FUZZ_CHECK(memchr(o->set.json_path, '\0', sizeof(o->set.json_path)) != NULL);
    FUZZ_CHECK(o->set.repeat >= 1 && o->set.repeat <= 1000);
    FUZZ_CHECK(o->set.converge_tol == 0.0 ||
               (o->set.converge_tol > 0.0 && o->set.converge_tol < 1.0));
    FUZZ_CHECK(o->congestor_bytes >= 8 && o->congestor_bytes <= 64L * 1024 * 1024 &&
               o->congestor_bytes % 8 == 0);
    FUZZ_CHECK(o->set.placement == PLACEMENT_SPLIT || o->set.placement == PLACEMENT_COLOCATED);
    FUZZ_CHECK(isfinite(o->set.duration) && o->set.duration >= 0.0);
    FUZZ_CHECK(isfinite(o->set.report_interval) && o->set.report_interval > 0.0);
    FUZZ_CHECK(!(o->set.flows_file[0] && o->n_congestors));
    if (program != PROGRAM_NETWORK_CONGESTOR) {
        /* network_congestor's own settings keep their defaults. */
        FUZZ_CHECK(o->set.duration == 0.0 && o->set.report_interval == 5.0);
        FUZZ_CHECK(!o->set.start_file[0] && !o->set.stop_file[0] && !o->set.flows_file[0]);
    } else {
        FUZZ_CHECK(o->n_tests == 0 && o->set.converge_tol == 0.0 && o->set.repeat == 1);
    }
    if (program == PROGRAM_NETWORK_TEST) {
        /* Load-test-only settings keep their defaults. */
        FUZZ_CHECK(o->n_congestors == 0 && !o->seed_given && o->set.canary_fraction == 0.2);
        FUZZ_CHECK(o->congestor_measurements == -1 && o->congestor_iterations == -1);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 16384)
        return 0;
    static const program_t programs[] = {PROGRAM_NETWORK_TEST, PROGRAM_NETWORK_LOAD_TEST,
                                         PROGRAM_NETWORK_CONGESTOR};
    program_t program = programs[data[0] % 3];
    size_t len = size - 1;
    char *buf = malloc(len + 1);
    memcpy(buf, data + 1, len);
    buf[len] = '\0';

    char *argv[MAX_ARGS + 2];
    int argc = 0;
    argv[argc++] = "fuzz";
    for (char *p = buf; p <= buf + len && argc <= MAX_ARGS; p += strlen(p) + 1)
        argv[argc++] = p;
    argv[argc] = NULL;

    static options_t o;
    char err[512];
    memset(err, 'x', sizeof(err));
    opt_status_t st = options_parse(&o, program, argc, argv, &tests, &congestors, err,
                                    sizeof(err));
    FUZZ_CHECK(st == OPT_RUN || st == OPT_HELP || st == OPT_VERSION || st == OPT_ERROR);
    FUZZ_CHECK(memchr(err, '\0', sizeof(err)) != NULL);
    if (st == OPT_ERROR)
        FUZZ_CHECK(err[0] != '\0'); /* every refusal says why */
    else
        FUZZ_CHECK(err[0] == '\0');
    if (st == OPT_RUN)
        check_accepted(&o, program);

    /* Usage text into a buffer of any size must stay inside it. */
    size_t ulen = 1 + (size_t)data[0] * 40;
    char *usage = malloc(ulen);
    options_usage(program, &tests, &congestors, usage, ulen);
    FUZZ_CHECK(memchr(usage, '\0', ulen) != NULL);
    free(usage);
    free(buf);
    return 0;
}
