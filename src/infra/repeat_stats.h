/* Run-to-run statistics of one value over --repeat repetitions (docs/method.md#repeats).
 * Pure C. */
#ifndef GPCNET_REPEAT_STATS_H
#define GPCNET_REPEAT_STATS_H

typedef struct {
    int n;       /* finite values used */
    double mean, min, max;
    double cv;   /* sample standard deviation (n - 1) / |mean|; NaN below 2 values */
} repeat_stats_t;

/* NaN values (a repetition without that value) are left out. */
repeat_stats_t repeat_stats(const double *values, int count);

#endif
