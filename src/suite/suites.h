/* The two suites and what they share. */
#ifndef GPCNET_SUITES_H
#define GPCNET_SUITES_H

#include "suite/phase_end.h"
#include "suite/run_context.h"
#include "suite/run_lifecycle.h"
#include "suite/run_record.h"

int network_test_main(int argc, char **argv);
int network_load_test_main(int argc, char **argv);
int network_congestor_main(int argc, char **argv);

/* Print the preamble and settings (rank 0; preamble.c). */
void run_print_preamble(const run_t *run, const char *const *extra_lines, int n_extra);

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
