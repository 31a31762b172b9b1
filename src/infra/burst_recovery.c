#include "infra/burst_recovery.h"

#include <math.h>
#include <stdlib.h>

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double recovery_quantile(const double *sorted, int n, double q)
{
    if (n <= 0)
        return NAN;
    double pos = q * (double)(n - 1);
    int lo = (int)floor(pos);
    int hi = lo + 1 < n ? lo + 1 : lo;
    return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - (double)lo);
}

static int within(double v, double reference, int higher_is_better, double tolerance)
{
    return higher_is_better ? v >= reference * (1.0 - tolerance)
                            : v <= reference * (1.0 + tolerance);
}

void recovery_estimate(const double *mean, const double *count, int n_bins, double width,
                       double reference, int higher_is_better, double tolerance, int window,
                       const double *ends, const double *next_starts, int n_bursts,
                       recovery_t *out)
{
    double *times = malloc(sizeof(double) * (size_t)(n_bursts > 0 ? n_bursts : 1));
    out->bursts = out->recovered = 0;
    for (int j = 0; j < n_bursts && times; j++) {
        int first = (int)ceil(ends[j] / width - 1e-9);
        /* Bins that end by the next ON period. */
        int last = (int)floor(next_starts[j] / width + 1e-9) - 1;
        if (last >= n_bins)
            last = n_bins - 1;
        int seen = 0, found = -1;
        for (int b = first; b <= last && found < 0; b++) {
            double sum = 0.0, n = 0.0;
            for (int w = b; w < b + window && w <= last; w++) {
                sum += mean[w] * count[w];
                n += count[w];
            }
            if (count[b] > 0.0)
                seen = 1;
            if (n > 0.0 && within(sum / n, reference, higher_is_better, tolerance))
                found = b;
        }
        if (!seen && found < 0)
            continue;
        out->bursts++;
        if (found >= 0) {
            double t = (double)found * width - ends[j];
            times[out->recovered++] = t > 0.0 ? t : 0.0;
        }
    }
    int n = out->recovered;
    if (times)
        qsort(times, (size_t)n, sizeof(double), by_value);
    out->median_s = recovery_quantile(times, n, 0.5);
    out->p25_s = recovery_quantile(times, n, 0.25);
    out->p75_s = recovery_quantile(times, n, 0.75);
    out->min_s = recovery_quantile(times, n, 0.0);
    out->max_s = recovery_quantile(times, n, 1.0);
    free(times);
}
