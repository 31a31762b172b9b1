/* Bounded-error streaming histogram (log-linear buckets).
 *
 * Each power of two [2^e, 2^(e+1)) is split into HIST_SUB = 1024 equal-width
 * buckets, so a bucket is at most 1/1024 of its lower edge wide: any value
 * reported inside the bucket of the exact sample is within 1/1024 = 0.098%
 * of it. A bucket index is the double's exponent and top 10 mantissa bits,
 * so an add is a shift, a subtract and two compares.
 *
 * The range 2^-10 .. 2^30 covers 1 ns .. 1000 s in usec (1e-3 .. 1e9) and
 * bandwidths of 1 KiB/s .. 1 PiB/s in MiB/s; values outside it are counted
 * in an underflow or overflow bucket and reported by the min or max seen.
 * Memory is fixed (40 octaves x 1024 doubles, 320 KiB) whatever the number
 * of samples, and the whole struct is doubles so one MPI reduction merges it
 * (counts stay exact below 2^53). Pure C: no MPI here. */
#ifndef GPCNET_HISTOGRAM_H
#define GPCNET_HISTOGRAM_H

#include <stddef.h>

#define HIST_SUB_BITS 10
#define HIST_SUB (1 << HIST_SUB_BITS)
#define HIST_LOW_EXP (-10) /* lowest octave: 2^-10 .. 2^-9 */
#define HIST_HIGH_EXP 30   /* values >= 2^30 overflow */
#define HIST_OCTAVES (HIST_HIGH_EXP - HIST_LOW_EXP)
#define HIST_BUCKETS (HIST_OCTAVES * HIST_SUB + 2) /* + underflow, overflow */
/* Bound on |reported - exact| / exact for any percentile of in-range data. */
#define HIST_MAX_RELATIVE_ERROR (1.0 / HIST_SUB)

typedef struct {
    double count;
    double sum;
    double min; /* +inf when empty */
    double max; /* -inf when empty */
    double bins[HIST_BUCKETS];
} hist_t;

void hist_clear(hist_t *h);
void hist_add(hist_t *h, double value);
/* dst += src */
void hist_merge(hist_t *dst, const hist_t *src);
int hist_bucket_of(double value);
/* Edges of bucket b; underflow is [0, 2^-10), overflow [2^30, inf). */
void hist_bucket_edges(int b, double *lower, double *upper);
/* Value of the k-th smallest (from_high = 0) or k-th largest (from_high = 1)
 * sample, 1 <= k <= count. The bucket holding that sample is exact; inside
 * it the value is interpolated by rank (see hist_kth in histogram.c). */
double hist_kth(const hist_t *h, double k, int from_high);
/* Tail value the way GPCNeT reports it: q in (0,1), e.g. 0.99. For a
 * lower-is-better metric the value below which a fraction q of samples lie;
 * for higher-is-better the value above which q lie. NaN when empty. */
double hist_tail(const hist_t *h, double q, int higher_is_better);
double hist_median(const hist_t *h);

#endif
