/* Bounded-error streaming histogram (log-linear buckets).
 *
 * Each power of two is split into HIST_SUB equal-width buckets, so a bucket
 * is at most 1/HIST_SUB of its lower edge wide and its midpoint is within
 * 1/(2 HIST_SUB) = 0.78% of any value in it. The range 2^-40 .. 2^40 covers
 * 1 ns .. 1000 s in usec and any bandwidth in MiB/s. Memory is fixed
 * (about 41 KB) whatever the number of samples, and the whole struct is
 * doubles so one MPI reduction merges it (counts stay exact below 2^53).
 * Pure C: no MPI here. */
#ifndef GPCNET_HISTOGRAM_H
#define GPCNET_HISTOGRAM_H

#include <stddef.h>

#define HIST_SUB 64
#define HIST_EXP_MIN (-39) /* frexp exponent of the lowest octave: 2^-40 .. 2^-39 */
#define HIST_EXP_MAX 40    /* exponent of the highest octave: 2^39 .. 2^40 */
#define HIST_OCTAVES (HIST_EXP_MAX - HIST_EXP_MIN + 1)
#define HIST_BUCKETS (HIST_OCTAVES * HIST_SUB + 2) /* + underflow, overflow */
#define HIST_MAX_RELATIVE_ERROR (1.0 / (2.0 * HIST_SUB))

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
/* Edges of bucket b; underflow is [0, 2^-40), overflow [2^40, inf). */
void hist_bucket_edges(int b, double *lower, double *upper);
/* Value of the k-th smallest (from_high = 0) or k-th largest (from_high = 1)
 * sample, 1 <= k <= count: the bucket midpoint clamped to [min, max]. */
double hist_kth(const hist_t *h, double k, int from_high);
/* Tail value the way GPCNeT reports it: q in (0,1), e.g. 0.99. For a
 * lower-is-better metric the value below which a fraction q of samples lie;
 * for higher-is-better the value above which q lie. NaN when empty. */
double hist_tail(const hist_t *h, double q, int higher_is_better);
double hist_median(const hist_t *h);

#endif
