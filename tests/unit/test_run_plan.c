/* The run plan resolved from options, without MPI (suite/run_plan.h): the
 * default tests and congestors of each program, loop-limit overrides, the
 * official-default bookkeeping, and that every plan entry carries all that
 * its loop reads (time limit, tolerance, ring seed; a congestor's
 * measurements, iterations, weight and parameters), the --burst-sweep cells
 * in their order, and network_congestor's flows kernel. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "suite/run_plan.h"

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
    run_plan_t c;

    /* network_test by default: the 8 published canaries with their
     * published limits, in table order; the extras only when named. */
    options_defaults(&o, PROGRAM_NETWORK_TEST);
    run_plan_build(&c, &o, PROGRAM_NETWORK_TEST, 0);
    CHECK(c.n_tests == 8);
    for (int i = 0; i < canary_kernel_count; i++)
        CHECK(canary_in_default_set[i] == (i < 8));
    for (int i = 0; i < c.n_tests; i++) {
        CHECK(c.tests[i].kernel == canary_kernels[i]);
        CHECK(memcmp(&c.tests[i].limits, &canary_kernels[i]->limits, sizeof(loop_limits_t)) == 0);
    }
    CHECK(c.official_default == 1 && c.non_default[0] == '\0');
    /* The printed names, derived from the parameters: the published ones. */
    static const char *const published[] = {
        "RR Two-sided Lat (8 B)", "RR Get Lat (8 B)", "RR Two-sided BW (131072 B)",
        "RR Put BW (131072 B)", "RR Two-sided BW+Sync (131072 B)", "Nat Two-sided BW (131072 B)",
        "Multiple Allreduce (8 B)", "Multiple Alltoall (4096 B)"};
    for (int i = 0; i < 8; i++)
        CHECK(strcmp(c.tests[i].name, published[i]) == 0);
    /* The canaries' parameter block: the published sizes, set up once here
     * and given to every canary's setup. */
    CHECK(c.tests[0].params.latency_doubles == 1);
    CHECK(c.tests[0].params.bandwidth_bytes == 131072);
    CHECK(c.tests[0].params.bandwidth_outstanding == 8);
    CHECK(c.tests[0].params.allreduce_doubles == 1);
    CHECK(c.tests[0].params.alltoall_doubles == 512);
    CHECK(c.tests[0].params.collective_bytes[0] == 1L << 20);
    CHECK(c.tests[0].params.collective_bytes[1] == 16L << 20);

    /* An extra named in --tests runs, and the run is no longer official. */
    options_defaults(&o, PROGRAM_NETWORK_TEST);
    o.n_tests = 2;
    o.tests[0] = 0;
    o.tests[1] = canary_kernel_count - 1;
    run_plan_build(&c, &o, PROGRAM_NETWORK_TEST, 0);
    CHECK(c.n_tests == 2 && c.tests[1].kernel == canary_kernels[canary_kernel_count - 1]);
    CHECK(!canary_in_default_set[canary_kernel_count - 1] && c.official_default == 0);

    /* The load test: its three canaries and the default four congestors. */
    options_defaults(&o, PROGRAM_NETWORK_LOAD_TEST);
    o.seed = 7; /* a seed that was not given is no override */
    run_plan_build(&c, &o, PROGRAM_NETWORK_LOAD_TEST, 0);
    CHECK(c.n_tests == 3);
    for (int i = 0; i < c.n_tests; i++)
        CHECK(c.tests[i].kernel->load_canary);
    CHECK(c.n_congestors == 4);
    for (int i = 0; i < c.n_congestors; i++)
        CHECK(c.congestors[i].kernel->default_mix && c.weights[i] == 1);
    CHECK(c.congestor_measurements == CONGESTOR_MEASUREMENTS);
    CHECK(c.congestor_iterations == CONGESTOR_BASE_ITERATIONS);
    CHECK(c.official_default == 1);

    /* Loop overrides apply to every test; a collective keeps its one ring. */
    options_defaults(&o, PROGRAM_NETWORK_TEST);
    o.measurements = 3;
    o.rings = 4;
    o.iterations = 20;
    o.warmup = 0;
    run_plan_build(&c, &o, PROGRAM_NETWORK_TEST, 0);
    for (int i = 0; i < c.n_tests; i++) {
        CHECK(c.tests[i].limits.measurements == 3 && c.tests[i].limits.iterations == 20);
        CHECK(c.tests[i].limits.warmup == 0);
        CHECK(c.tests[i].limits.rings == (c.tests[i].kernel->loop == LOOP_COLLECTIVE ? 1 : 4));
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
    run_plan_build(&c, &o, PROGRAM_NETWORK_LOAD_TEST, 0);
    CHECK(c.n_tests == 1 && c.tests[0].kernel == canary_kernels[0]);
    CHECK(c.n_congestors == 2 && c.weights[0] == 2 && c.weights[1] == 1);
    CHECK(strcmp(c.congestors[0].kernel->id, "rma_bcast") == 0);
    CHECK(c.congestor_iterations == 8);
    CHECK(strcmp(c.non_default, "tests, congestors, seed, congestor_iterations") == 0);
    options_defaults(&o, PROGRAM_NETWORK_TEST);
    o.seed_given = 1;
    run_plan_build(&c, &o, PROGRAM_NETWORK_TEST, 0);
    CHECK(c.official_default == 1);

    /* Every entry carries what canary_measure and congestor_pass read. */
    options_defaults(&o, PROGRAM_NETWORK_LOAD_TEST);
    o.set.time_limit = 12.5;
    o.set.converge_tol = 0.05;
    o.ring_seed = 99;
    o.congestor_measurements = 3;
    o.congestor_iterations = 16;
    o.congestor_bytes = 65536;
    run_plan_build(&c, &o, PROGRAM_NETWORK_LOAD_TEST, 0);
    for (int i = 0; i < c.n_tests; i++)
        CHECK(c.tests[i].time_limit == 12.5 && c.tests[i].converge_tol == 0.05 &&
              c.tests[i].ring_seed == 99);
    for (int i = 0; i < c.n_congestors; i++) {
        const congestor_plan_t *e = &c.congestors[i];
        CHECK(e->measurements == 3 && e->base_iterations == 16 && e->weight == c.weights[i]);
        CHECK(e->time_limit == 12.5 && e->converge_tol == 0.05);
        CHECK(e->params.message_bytes == 65536 && burst_is_steady(&e->params.burst));
        /* The printed name follows the size (DL Allreduce keeps its own). */
        CHECK(strstr(e->name, e->kernel->id[0] == 'd' ? "(6553600 B)" : "(65536 B)") != NULL);
    }

    /* The seeds of every repetition are in the plan: --seed's value each
     * time, or the clock's seed plus the repetition's index. */
    options_defaults(&o, PROGRAM_NETWORK_LOAD_TEST);
    o.set.repeat = 3;
    run_plan_build(&c, &o, PROGRAM_NETWORK_LOAD_TEST, 1000);
    CHECK(c.seed_from_time == 1);
    CHECK(c.seeds[0] == 1000 && c.seeds[1] == 1001 && c.seeds[2] == 1002);
    o.seed_given = 1;
    o.seed = 42;
    run_plan_build(&c, &o, PROGRAM_NETWORK_LOAD_TEST, 1000);
    CHECK(c.seed_from_time == 0);
    CHECK(c.seeds[0] == 42 && c.seeds[1] == 42 && c.seeds[2] == 42);
    /* Without --repeat there is one repetition, and its seed. */
    options_defaults(&o, PROGRAM_NETWORK_TEST);
    run_plan_build(&c, &o, PROGRAM_NETWORK_TEST, 7);
    CHECK(c.set.repeat == 1 && c.seeds[0] == 7);

    /* --burst-sweep: one shape per cell, intensity outermost, OFF fastest. */
    options_defaults(&o, PROGRAM_NETWORK_LOAD_TEST);
    o.burst_sweep = (burst_sweep_t){.n_on = 2, .n_off = 3, .n_intensity = 2,
                                    .on = {0.01, 0.02}, .off = {0.1, 0.2, 0.3},
                                    .intensity = {0.5, 1.0}};
    o.burst_jitter = 0.25;
    run_plan_build(&c, &o, PROGRAM_NETWORK_LOAD_TEST, 0);
    CHECK(c.n_burst_cells == 12);
    CHECK(c.burst_cells[0].on_s == 0.01 && c.burst_cells[0].off_s == 0.1 &&
          c.burst_cells[0].intensity == 0.5 && c.burst_cells[0].jitter == 0.25);
    CHECK(c.burst_cells[1].off_s == 0.2 && c.burst_cells[3].on_s == 0.02);
    CHECK(c.burst_cells[6].intensity == 1.0 && c.burst_cells[11].off_s == 0.3);
    /* The published phase stays steady beside the cells. */
    CHECK(burst_is_steady(&c.congestor_params.burst));

    /* network_congestor --flows: the plan's one congestor is the flows kernel. */
    options_defaults(&o, PROGRAM_NETWORK_CONGESTOR);
    snprintf(o.set.flows_file, sizeof(o.set.flows_file), "pairs.txt");
    run_plan_build(&c, &o, PROGRAM_NETWORK_CONGESTOR, 0);
    CHECK(c.flows == 1 && c.n_congestors == 1 && c.weights[0] == 1);
    CHECK(strcmp(c.congestors[0].kernel->id, "flows") == 0);

    return check_report("test_run_plan");
}
