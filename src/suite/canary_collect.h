/* The canary results both measuring programs collect (network_test and
 * network_load_test; defined in canary_collect.c). */
#ifndef GPCNET_CANARY_COLLECT_H
#define GPCNET_CANARY_COLLECT_H

#include "infra/stats.h"
#include "suite/run_context.h"

/* After a canary test: merge the accumulator over test_comm (ranks outside
 * it pass MPI_COMM_NULL and their acc is not touched), bring the result to
 * world rank 0, record it in the table and print its row. Collective over
 * test_comm; world rank 0 must call it too. */
void suite_collect_canary(run_t *run, int test, stats_acc_t *acc, MPI_Comm test_comm,
                          double wall_s, const char *table_id, const char *title, int print);

/* Ranks of comm that are in a slice of at least two ranks do the test;
 * others sit it out (uneven ranks per node shrink the slices). */
MPI_Comm suite_test_comm(MPI_Comm world, MPI_Comm slice);

#endif
