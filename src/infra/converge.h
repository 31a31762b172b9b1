/* Adaptive stop (--converge TOL, docs/method.md#convergence): has a test's Avg and 99%
 * settled to a relative tolerance?
 *
 * Each rank judges its own data; the loop combines the verdicts with the
 * MIN reduction it already makes for the time limit, so the decision is
 * collective and the same on every rank. When every rank's mean and tail
 * are stable, so are the global ones: the global Avg is the mean of the
 * ranks' means (every rank completes the same measurements) and the global
 * 99% is a quantile of the mixture of the ranks' distributions.
 *
 * Avg: batch means. One batch = one measurement (its rings for ring
 * tests, its iterations for collectives). Converged once there are at
 * least CONVERGE_MIN_BATCHES batches and the 95% confidence half-width of
 * the mean, 1.96 s / sqrt(b) / |mean| (s: standard deviation of the batch
 * means), is <= TOL.
 *
 * 99%: windows of at least 100 / (1 - 0.99) = 10,000 samples. At the end
 * of every window the 99% of all samples so far is compared with its value
 * at the end of the previous window; converged once CONVERGE_STABLE_WINDOWS
 * successive windows each moved it by <= TOL (relative): with 1, at least
 * two windows (20,000 samples) per rank.
 *
 * Pure C, O(1) memory. */
#ifndef GPCNET_CONVERGE_H
#define GPCNET_CONVERGE_H

#include "infra/histogram.h"

#define CONVERGE_MIN_BATCHES 10
#define CONVERGE_STABLE_WINDOWS 1
#define CONVERGE_QUANTILE 0.99

typedef struct {
    double tol;
    int higher_is_better;
    double window;      /* samples per tail window */
    long batches;
    double sum, sum_sq; /* of the batch means */
    double next_window; /* sample count that ends the current window */
    double tail_prev;   /* 99% at the end of the previous window (NaN: none) */
    int stable_windows;
    double avg_precision;  /* last relative half-width of the mean (inf: unknown) */
    double tail_precision; /* last relative change of the 99% (inf: unknown) */
} converge_t;

void converge_init(converge_t *c, double tol, int higher_is_better);
/* The mean value of one batch (measurement) of this rank. */
void converge_add_batch(converge_t *c, double batch_mean);
/* After a batch: look at the tail if a window has ended (h: this rank's
 * samples so far). */
void converge_check_tail(converge_t *c, const hist_t *h);
/* 1 when both the mean and the tail have settled. */
int converge_done(const converge_t *c);

#endif
