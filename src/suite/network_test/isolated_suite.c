/* network_test: the isolated suite (docs/method.md#network-test). The
 * canary result collection it shares with network_load_test is
 * canary_collect.c. */
#include <stdio.h>
#include <stdlib.h>

#include "infra/fatal.h"
#include "infra/progress.h"
#include "infra/report.h"
#include "suite/network_test/all_pairs.h"
#include "suite/node_probe.h"
#include "suite/canary_collect.h"
#include "suite/network_test/ebb.h"
#include "suite/network_test/isolated_suite.h"
#include "suite/record/phase_end.h"
#include "suite/preamble.h"
#include "suite/run_lifecycle.h"
#include "suite/record/run_record.h"

int network_test_main(int argc, char **argv)
{
    run_t run;
    run_init(&run, PROGRAM_NETWORK_TEST, &argc, &argv);
    node_probe_t probe = {0};
    run_add_json_section(&run, (run_json_section_t){node_probe_json, &probe});
    ebb_t ebb = {0};
    run_add_json_section(&run, (run_json_section_t){ebb_json, &ebb});
    all_pairs_t pairs = {0};
    run_add_json_section(&run, (run_json_section_t){all_pairs_json, &pairs});
    if (run.env.plan->set.all_pairs && run.env.nodes.n_nodes < 2)
        exit_all(2,
                 "network_test: --all-pairs needs at least 2 nodes, found %d (%d ranks). Run "
                 "on more nodes (one rank per node is enough), or leave --all-pairs out.\n",
                 run.env.nodes.n_nodes, run.env.size);
    if (run.env.nodes.n_nodes < 2) {
        /* The reference's line, which wrappers (e.g. SuperBench) look for. */
        if (run.env.rank == 0)
            printf("ERROR: this application must be run on at least 2 nodes\n");
        exit_all(1,
                 "network_test: needs at least 2 nodes, found %d (%d ranks). Run on more "
                 "nodes, or emulate nodes on one host with --emulate-nodes K.\n",
                 run.env.nodes.n_nodes, run.env.size);
    }
    ebb_check_nodes(&run);

    int *all = xmalloc(sizeof(int) * (size_t)run.env.nodes.n_nodes);
    for (int n = 0; n < run.env.nodes.n_nodes; n++)
        all[n] = n;
    MPI_Comm slice = nodes_slice_comm(&run.env.nodes, run.env.world, all);
    free(all);
    MPI_Comm test_comm = suite_test_comm(run.env.world, slice);
    run_setup_done(&run);

    run_print_preamble(&run, NULL, 0);
    progress_init(run.env.rank == 0 && !run.env.plan->set.quiet, run.env.t0, run.env.plan->n_tests);
    if (run.env.rank == 0)
        report_table_begin(stdout, "Isolated Network Tests", run.env.plan->set.verbose);

    for (int t = 0; t < run.env.plan->n_tests; t++) {
        const canary_kernel_t *k = run.env.plan->tests[t].kernel;
        progress_step("isolated", run.env.plan->tests[t].name, run.env.plan->set.time_limit);
        stats_acc_t *acc = xmalloc(sizeof(*acc));
        stats_init(acc);
        MPI_Barrier(run.env.world);
        double start = MPI_Wtime();
        if (test_comm != MPI_COMM_NULL)
            canary_measure(&run.env.plan->tests[t], slice, run.env.nodes.my_local, test_comm, acc, NULL);
        double wall = MPI_Wtime() - start;
        suite_collect_canary(&run, t, acc, test_comm, wall, "isolated", "Isolated Network Tests",
                             1);
        free(acc);
        char phase[96];
        snprintf(phase, sizeof(phase), "isolated:%s", k->id);
        suite_phase_end(&run, phase, wall);
    }

    ebb_run(&run, &ebb);          /* --ebb: after the published tests */
    node_probe_run(&run, &probe); /* --node-probe: after the published tests */
    all_pairs_run(&run, &pairs);   /* --all-pairs: after them too */
    if (test_comm != MPI_COMM_NULL)
        MPI_Comm_free(&test_comm);
    if (slice != MPI_COMM_NULL)
        MPI_Comm_free(&slice);
    suite_finish(&run);
    node_probe_free(&probe);
    ebb_free(&ebb);
    all_pairs_free(&pairs);
    return 0;
}
