/* The run configuration resolved from options, without MPI: the default
 * tests and congestors of each program, loop-limit overrides, and the
 * official-default bookkeeping (suite/run_config.h). */
#include <string.h>

#include "check.h"
#include "suite/run_config.h"

static int index_of_congestor(const char *id)
{
    for (int i = 0; i < congestor_kernel_count; i++)
        if (strcmp(congestor_kernels[i]->id, id) == 0)
            return i;
    return -1;
}

int main(void)
{
    options_t o;
    run_config_t c;

    /* network_test by default: the 8 published canaries with their
     * published limits, in table order; the extras only when named. */
    options_defaults(&o, PROGRAM_NETWORK_TEST);
    run_config_resolve(&c, &o, PROGRAM_NETWORK_TEST);
    CHECK(c.n_tests == 8);
    for (int i = 0; i < canary_kernel_count; i++)
        CHECK(canary_kernels[i]->extra == (i >= 8));
    for (int i = 0; i < c.n_tests; i++) {
        CHECK(c.tests[i] == canary_kernels[i]);
        CHECK(memcmp(&c.limits[i], &canary_kernels[i]->limits, sizeof(loop_limits_t)) == 0);
    }
    CHECK(c.official_default == 1 && c.non_default[0] == '\0');
    /* The canaries' parameter block: the published sizes, set up once here
     * and given to every canary's setup. */
    CHECK(c.canary_params.latency_doubles == 1);
    CHECK(c.canary_params.bandwidth_bytes == 131072);
    CHECK(c.canary_params.bandwidth_outstanding == 8);
    CHECK(c.canary_params.allreduce_doubles == 1);
    CHECK(c.canary_params.alltoall_doubles == 512);
    CHECK(c.canary_params.collective_bytes[0] == 1L << 20);
    CHECK(c.canary_params.collective_bytes[1] == 16L << 20);

    /* An extra named in --tests runs, and the run is no longer official. */
    options_defaults(&o, PROGRAM_NETWORK_TEST);
    o.n_tests = 2;
    o.tests[0] = 0;
    o.tests[1] = canary_kernel_count - 1;
    run_config_resolve(&c, &o, PROGRAM_NETWORK_TEST);
    CHECK(c.n_tests == 2 && c.tests[1] == canary_kernels[canary_kernel_count - 1]);
    CHECK(c.tests[1]->extra && c.official_default == 0);

    /* The load test: its three canaries and the default four congestors. */
    options_defaults(&o, PROGRAM_NETWORK_LOAD_TEST);
    o.seed = 7; /* a seed that was not given is no override */
    run_config_resolve(&c, &o, PROGRAM_NETWORK_LOAD_TEST);
    CHECK(c.n_tests == 3);
    for (int i = 0; i < c.n_tests; i++)
        CHECK(c.tests[i]->load_canary);
    CHECK(c.n_congestors == 4);
    for (int i = 0; i < c.n_congestors; i++)
        CHECK(c.congestors[i]->default_mix && c.weights[i] == 1);
    CHECK(c.congestor_measurements == CONGESTOR_MEASUREMENTS);
    CHECK(c.congestor_iterations == CONGESTOR_BASE_ITERATIONS);
    CHECK(c.official_default == 1);

    /* Loop overrides apply to every test; a collective keeps its one ring. */
    options_defaults(&o, PROGRAM_NETWORK_TEST);
    o.measurements = 3;
    o.rings = 4;
    o.iterations = 20;
    o.warmup = 0;
    run_config_resolve(&c, &o, PROGRAM_NETWORK_TEST);
    for (int i = 0; i < c.n_tests; i++) {
        CHECK(c.limits[i].measurements == 3 && c.limits[i].iterations == 20);
        CHECK(c.limits[i].warmup == 0);
        CHECK(c.limits[i].rings == (c.tests[i]->loop == LOOP_COLLECTIVE ? 1 : 4));
    }
    CHECK(c.official_default == 0);
    CHECK(strcmp(c.non_default, "measurements, rings, iterations, warmup") == 0);

    /* A chosen subset of tests and a weighted congestor mix are overrides;
     * the placement seed is one for the load test only. */
    options_defaults(&o, PROGRAM_NETWORK_LOAD_TEST);
    o.n_tests = 1;
    o.tests[0] = 0;
    o.n_congestors = 2;
    o.congestors[0] = index_of_congestor("rma_bcast");
    o.congestor_weights[0] = 2;
    o.congestors[1] = index_of_congestor("a2a");
    o.congestor_weights[1] = 1;
    o.seed_given = 1;
    o.congestor_iterations = 8;
    run_config_resolve(&c, &o, PROGRAM_NETWORK_LOAD_TEST);
    CHECK(c.n_tests == 1 && c.tests[0] == canary_kernels[0]);
    CHECK(c.n_congestors == 2 && c.weights[0] == 2 && c.weights[1] == 1);
    CHECK(strcmp(c.congestors[0]->id, "rma_bcast") == 0);
    CHECK(c.congestor_iterations == 8);
    CHECK(strcmp(c.non_default, "tests, congestors, seed, congestor_iterations") == 0);
    options_defaults(&o, PROGRAM_NETWORK_TEST);
    o.seed_given = 1;
    run_config_resolve(&c, &o, PROGRAM_NETWORK_TEST);
    CHECK(c.official_default == 1);

    return check_report("test_run_config");
}
