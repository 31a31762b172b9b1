/* Adaptive stop (--converge TOL, docs/method.md#convergence): are a test's
 * Avg and 99% known to a relative precision TOL?
 *
 * Both are judged by 95% confidence intervals whose half-width, relative
 * to the estimate, must be <= TOL. The samples of a test are not
 * independent (a host or network switches between modes that last many
 * measurements), so both intervals come from batches of consecutive
 * measurements, not from single samples:
 *
 * Batches. A batch is u consecutive measurements, u0 at first (enough for
 * CONVERGE_BATCH_SAMPLES samples: ten expected beyond the 99%). When
 * CONVERGE_MAX_BATCHES are full, neighbours merge and u doubles, so the
 * batches grow with the test and end up longer than the time over which
 * the samples are correlated. Judged once there are >= CONVERGE_MIN_BATCHES.
 *
 * Avg: batch means. Half-width t(b-1) s / sqrt(b), s the standard
 * deviation of the b batch means, times sqrt((1 + r1) / (1 - r1)) when the
 * lag-1 autocorrelation r1 of the batch means is positive (batches still
 * shorter than the modes: never narrower than that, so a slow switch makes
 * the interval wider, not the stop earlier).
 *
 * 99%: distribution-free, from order statistics. With n independent
 * samples the fraction beyond the 99% has variance p(1-p)/n (p = 0.01),
 * and [x(0.99 - t se), x(0.99 + t se)] is a 95% interval of the 99%
 * (x(f): the f quantile of the samples). The samples are correlated, so the
 * variance is measured instead: every batch counts its samples beyond a
 * fixed grid of thresholds around the 99% (cells of CONVERGE_CELL_BUCKETS
 * histogram buckets, CONVERGE_CELLS of them); at the threshold nearest the
 * current 99%, the batch-to-batch variance of that fraction against the
 * binomial one is the variance inflation (>= 1, with the same r1
 * correction). se = sqrt(inflation p(1-p)/n).
 *
 * If the 99% leaves the inner half of the grid (it moved by 2x) the
 * batches restart with a grid around the new value: the test so far was
 * not stationary.
 *
 * Per rank, O(1) memory (about 35 KiB); the loops combine every rank's
 * verdict and worst precision in the agreement they already make. Pure C. */
#ifndef GPCNET_CONVERGE_H
#define GPCNET_CONVERGE_H

#include "infra/histogram.h"

#define CONVERGE_QUANTILE 0.99
#define CONVERGE_MIN_BATCHES 16
#define CONVERGE_MAX_BATCHES 32
#define CONVERGE_BATCH_SAMPLES 1000.0 /* 10 / (1 - 0.99) */
#define CONVERGE_CELL_BUCKETS 32      /* 1/32 octave */
#define CONVERGE_CELLS 128            /* 4 octaves around the 99% */
/* Per batch: samples below the grid, in each cell, above the grid. */
#define CONVERGE_COUNTS (CONVERGE_CELLS + 2)

typedef struct {
    double mean;    /* of its measurement means */
    double samples; /* its samples */
    double counts[CONVERGE_COUNTS];
} converge_batch_t;

typedef struct {
    double tol;
    int higher_is_better;
    int grid_lo;            /* first histogram bucket of the grid; -1: no grid yet */
    long per_batch;         /* measurements per batch (0: not known yet) */
    long measurements;      /* since the (re)start */
    double prev[CONVERGE_COUNTS]; /* the histogram's counts at the last measurement */
    converge_batch_t open;  /* the batch being filled */
    long open_measurements;
    int batches;            /* full batches */
    converge_batch_t batch[CONVERGE_MAX_BATCHES];
    double avg_precision;   /* last relative 95% half-width of the mean (inf: unknown) */
    double tail_precision;  /* same for the 99% */
} converge_t;

void converge_init(converge_t *c, double tol, int higher_is_better);
/* One measurement: its mean value and this rank's samples so far (h);
 * files the measurement and updates both precisions. */
void converge_add_measurement(converge_t *c, double measurement_mean, const hist_t *h);
int converge_done(const converge_t *c);
/* Two-sided 97.5% quantile of Student's t with df degrees of freedom. */
double converge_t975(int df);

#endif
