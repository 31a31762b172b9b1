/* Recovery time after bursts (docs/method.md#recovery-time): how long after
 * an ON period ends the canary's rolling value takes to come back within a
 * tolerance of its isolated value. Pure; tests/unit/test_burst_recovery.c
 * checks it on synthetic series with known answers. */
#ifndef GPCNET_BURST_RECOVERY_H
#define GPCNET_BURST_RECOVERY_H

/* The isolated value is reached again when the rolling value is within
 * this share of it (10%). */
#define RECOVERY_TOLERANCE 0.10
/* Bins in the rolling window. */
#define RECOVERY_WINDOW 3

typedef struct {
    int bursts;    /* bursts with samples in the OFF period after them */
    int recovered; /* of those, the ones that came back before the next ON period */
    /* Over the recovered bursts, in seconds (NaN when none): the median,
     * the quartiles and the extremes. */
    double median_s, p25_s, p75_s, min_s, max_s;
} recovery_t;

/* Bins b = 0..n_bins-1 cover [b * width, (b + 1) * width) and hold the mean
 * and the count of the samples that started there. Burst j ends at ends[j]
 * and the next ON period starts at next_starts[j]. The rolling value at bin
 * b is the sample-weighted mean of bins b .. b + window - 1 that end by the
 * next ON period; burst j recovers at the first bin b starting at or after
 * ends[j] whose rolling value is within tolerance of reference (latency:
 * <= reference * (1 + tolerance); higher_is_better: >= reference * (1 -
 * tolerance)); its recovery time is the start of b minus ends[j] (so the
 * resolution is one bin). */
void recovery_estimate(const double *mean, const double *count, int n_bins, double width,
                       double reference, int higher_is_better, double tolerance, int window,
                       const double *ends, const double *next_starts, int n_bursts,
                       recovery_t *out);

/* The q-quantile (0..1) of sorted[0..n-1], linearly interpolated; NaN if n == 0. */
double recovery_quantile(const double *sorted, int n, double q);

#endif
