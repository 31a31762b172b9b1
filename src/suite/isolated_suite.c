/* network_test: the isolated suite (docs/method.md#network-test). */
#include <stdio.h>
#include <stdlib.h>

#include "infra/fatal.h"
#include "infra/nic_record.h"
#include "infra/progress.h"
#include "infra/report.h"
#include "suite/node_probe.h"
#include "suite/suites.h"

#define TAG_CANARY_RESULT 4101

MPI_Comm suite_test_comm(MPI_Comm world, MPI_Comm slice)
{
    int n = 0, rank;
    if (slice != MPI_COMM_NULL)
        MPI_Comm_size(slice, &n);
    MPI_Comm_rank(world, &rank);
    MPI_Comm test;
    MPI_Comm_split(world, n >= 2 ? 0 : MPI_UNDEFINED, rank, &test);
    return test;
}

void suite_collect_canary(run_t *run, int test, stats_acc_t *acc, MPI_Comm test_comm,
                          double wall_s, const char *table_id, const char *title, int print)
{
    result_t *r = run->rank == 0 ? xmalloc(sizeof(*r)) : NULL;
    result_t local;
    int holder = 0;
    const canary_kernel_t *k = run->plan->tests[test].kernel;
    /* Per NIC and per rail (only with gpcnet-bind): before acc is merged. */
    nic_record_canary(table_id, run->repetition, k->id, k->unit, k->higher_is_better, acc,
                      test_comm != MPI_COMM_NULL, run->world);
    if (test_comm != MPI_COMM_NULL) {
        stats_reduce(acc, test_comm);
        int trank;
        MPI_Comm_rank(test_comm, &trank);
        holder = trank == 0;
    }
    result_t *mine = r ? r : &local;
    if (holder) {
        result_for_canary(mine, &run->plan->tests[test]);
        stats_to_result(acc, mine);
        /* The holder ran the test; rank 0 may have been a waiting congestor. */
        mine->wall_s = wall_s;
    }
    result_deliver(mine, holder, TAG_CANARY_RESULT, run->world);
    if (run->rank == 0) {
        run_record(run, table_id, title, r);
        if (print)
            report_row(stdout, r, run->plan->verbose);
        free(r);
    }
}

int network_test_main(int argc, char **argv)
{
    run_t run;
    run_init(&run, PROGRAM_NETWORK_TEST, &argc, &argv);
    node_probe_t probe = {0};
    run_add_json_section(&run, (run_json_section_t){node_probe_json, &probe});
    if (run.nodes.n_nodes < 2) {
        /* The reference's line, which wrappers (e.g. SuperBench) look for. */
        if (run.rank == 0)
            printf("ERROR: this application must be run on at least 2 nodes\n");
        exit_all(1,
                 "network_test: needs at least 2 nodes, found %d (%d ranks). Run on more "
                 "nodes, or emulate nodes on one host with --emulate-nodes K.\n",
                 run.nodes.n_nodes, run.size);
    }

    int *all = xmalloc(sizeof(int) * (size_t)run.nodes.n_nodes);
    for (int n = 0; n < run.nodes.n_nodes; n++)
        all[n] = n;
    MPI_Comm slice = nodes_slice_comm(&run.nodes, run.world, all);
    free(all);
    MPI_Comm test_comm = suite_test_comm(run.world, slice);
    run_setup_done(&run);

    run_print_preamble(&run, NULL, 0);
    progress_init(run.rank == 0 && !run.plan->quiet, run.t0, run.plan->n_tests);
    if (run.rank == 0)
        report_table_begin(stdout, "Isolated Network Tests", run.plan->verbose);

    for (int t = 0; t < run.plan->n_tests; t++) {
        const canary_kernel_t *k = run.plan->tests[t].kernel;
        progress_step("isolated", run.plan->tests[t].name, run.plan->time_limit);
        stats_acc_t *acc = xmalloc(sizeof(*acc));
        stats_init(acc);
        MPI_Barrier(run.world);
        double start = MPI_Wtime();
        if (test_comm != MPI_COMM_NULL)
            canary_measure(&run.plan->tests[t], slice, run.nodes.my_local, test_comm, acc, NULL);
        double wall = MPI_Wtime() - start;
        suite_collect_canary(&run, t, acc, test_comm, wall, "isolated", "Isolated Network Tests",
                             1);
        free(acc);
        char phase[96];
        snprintf(phase, sizeof(phase), "isolated:%s", k->id);
        suite_phase_end(&run, phase, wall);
    }

    node_probe_run(&run, &probe); /* --node-probe: after the published tests */
    if (test_comm != MPI_COMM_NULL)
        MPI_Comm_free(&test_comm);
    if (slice != MPI_COMM_NULL)
        MPI_Comm_free(&slice);
    suite_finish(&run);
    node_probe_free(&probe);
    return 0;
}
