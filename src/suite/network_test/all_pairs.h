/* The all-pairs matrix (network_test --all-pairs; docs/method.md#all-pairs):
 * after the published tests, one rank of every node (a node-level matrix)
 * takes part in N - 1 shifts. In shift k node i sends to (i + k) mod N and
 * receives from (i - k) mod N, all nodes at once, so every pair is
 * measured while every other node streams too, the pattern of LLNL's
 * mpiGraph. Each receiver times its incoming messages (the bandwidth of
 * sender -> receiver) and each sender the round trip of a small message
 * to its receiver (the latency of the pair).
 *
 * Memory on world rank 0: up to ALL_PAIRS_MATRIX_MAX nodes the two N x N
 * matrices (16 N^2 bytes, 16 MiB at the cap); above it only per-node means
 * and the ALL_PAIRS_WORST slowest pairs, which is also all the results
 * document then holds (at 10,000 nodes the matrix would be 10^8 cells). */
#ifndef GPCNET_ALL_PAIRS_H
#define GPCNET_ALL_PAIRS_H

#include "infra/json_writer.h"
#include "suite/run_context.h"

#define ALL_PAIRS_MESSAGES 4     /* bandwidth messages in flight per pair and repetition */
#define ALL_PAIRS_REPS 3         /* timed repetitions per shift; the median is kept */
#define ALL_PAIRS_LAT_BYTES 8    /* the latency message */
#define ALL_PAIRS_LAT_REPS 5     /* timed round trips per shift; the median is kept */
#ifndef ALL_PAIRS_MATRIX_MAX /* a build may lower it (-D) to try the path above it */
#define ALL_PAIRS_MATRIX_MAX 1024 /* above: per-node means and the slowest pairs only */
#endif
#define ALL_PAIRS_WORST 32       /* slowest pairs kept (by bandwidth) */

typedef struct {
    int from, to;
    double mib_s, usec;
} all_pairs_cell_t;

typedef struct {
    int n_nodes, full;
    long bytes;
    double wall_s;
    /* World rank 0, after the run: */
    double *mib_s, *usec;          /* [from * n + to], diagonal NaN; NULL unless full */
    double *send_mib_s, *recv_mib_s; /* per node: mean over its row (sends) and column */
    double *send_usec, *recv_usec;
    double min_mib_s, max_mib_s, min_usec, max_usec;
    all_pairs_cell_t worst[ALL_PAIRS_WORST]; /* slowest first */
    int n_worst;
} all_pairs_t;

/* Collective over world: runs the shifts when --all-pairs was given (else
 * returns at once), keeps the results on world rank 0, records the phase
 * "all_pairs" and prints its summary (all_pairs_print). */
void all_pairs_run(run_t *run, all_pairs_t *ap);
/* The "all_pairs" member of the results document (a run_json_section_t;
 * ctx is the all_pairs_t): written once the matrix was measured. */
void all_pairs_json(json_writer_t *w, const run_t *run, const void *ctx);
/* The summary on stdout, 80 columns at most whatever N: min, median and
 * max of the pairs and the slowest pairs by name. World rank 0. */
void all_pairs_print(FILE *f, const run_t *run, const all_pairs_t *ap);
void all_pairs_free(all_pairs_t *ap);

#endif
