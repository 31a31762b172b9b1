/* The canary results of network_test and network_load_test: which ranks
 * take part in a test, and one test's result merged, brought to world
 * rank 0, recorded and printed (canary_collect.h). */
#include "suite/canary_collect.h"

#include <stdlib.h>

#include "infra/fatal.h"
#include "infra/nic_record.h"
#include "infra/report.h"
#include "suite/record/run_record.h"

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
    result_t *r = run->env.rank == 0 ? xmalloc(sizeof(*r)) : NULL;
    result_t local;
    int holder = 0;
    const canary_kernel_t *k = run->env.plan->tests[test].kernel;
    /* Per NIC and per rail (only with gpcnet-bind): before acc is merged. */
    nic_record_canary(table_id, run->repetition, k->id, k->unit, k->higher_is_better, acc,
                      test_comm != MPI_COMM_NULL, run->env.world);
    if (test_comm != MPI_COMM_NULL) {
        stats_reduce(acc, test_comm);
        int trank;
        MPI_Comm_rank(test_comm, &trank);
        holder = trank == 0;
    }
    result_t *mine = r ? r : &local;
    if (holder) {
        result_for_canary(mine, &run->env.plan->tests[test]);
        stats_to_result(acc, mine);
        /* The holder ran the test; rank 0 may have been a waiting congestor. */
        mine->wall_s = wall_s;
    }
    result_deliver(mine, holder, TAG_CANARY_RESULT, run->env.world);
    if (run->env.rank == 0) {
        run_record(run, table_id, title, r);
        if (print)
            report_row(stdout, r, run->env.plan->set.verbose);
        free(r);
    }
}
