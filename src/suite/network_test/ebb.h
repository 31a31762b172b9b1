/* The effective bisection bandwidth (--ebb MATCHINGS;
 * docs/method.md#effective-bisection-bandwidth): after the published
 * tests, one rank of every node takes part; in each of MATCHINGS random
 * perfect matchings of the nodes (infra/matching.h, from --ring-seed) every
 * pair exchanges --ebb-bytes both ways at once, all pairs together. A
 * pair's bandwidth is the bytes over the slower side's time; a matching's
 * value is the mean over its pairs and the eBB the mean over the matchings
 * (Hoefler, Schneider and Lumsdaine, Cluster 2008). With --link-rate the
 * eBB is also printed as a fraction of it.
 *
 * Memory: world rank 0 keeps one double per node per matching; the other
 * leaders one per matching. */
#ifndef GPCNET_EBB_H
#define GPCNET_EBB_H

#include "infra/json_writer.h"
#include "suite/run_context.h"

/* The most pairs (matchings x nodes / 2) one run records: each is an
 * object of 3 values in the results document, whose reader takes at most
 * 2 million values outside its long lists
 * (python/gpcnet/results_json/results_limits.py); 300,000 pairs leave room
 * for the rest of the document. 20 matchings of 10,600 nodes are 106,000. */
#define EBB_MAX_PAIRS 300000L

typedef struct {
    int matchings, n_nodes;
    long bytes;
    unsigned long long seed;
    double link_rate_gbit; /* 0: not known */
    double wall_s;
    double *sec; /* rank 0, after the phase: [node * matchings + m], the node's exchange time */
} ebb_t;

/* Before anything runs: --ebb on an odd number of nodes, or with more
 * pairs than EBB_MAX_PAIRS in all, ends the run, one line, exit 2 (a
 * perfect matching needs every node paired). Collective. */
void ebb_check_nodes(const run_t *run);
/* Collective over world: runs the matchings when --ebb was given (else
 * returns at once), prints the table on rank 0 and records the phase
 * "ebb" (suite_phase_end). */
void ebb_run(run_t *run, ebb_t *ebb);
/* The "ebb" member of the results document (a run_json_section_t; ctx is
 * the ebb_t): written once the phase ran. */
void ebb_json(json_writer_t *w, const run_t *run, const void *ctx);
void ebb_free(ebb_t *ebb);

#endif
