#include "infra/repeat_stats.h"

#include <math.h>

repeat_stats_t repeat_stats(const double *values, int count)
{
    repeat_stats_t s = {0, NAN, NAN, NAN, NAN};
    double sum = 0.0;
    for (int i = 0; i < count; i++) {
        double v = values[i];
        if (!isfinite(v))
            continue;
        if (s.n == 0 || v < s.min)
            s.min = v;
        if (s.n == 0 || v > s.max)
            s.max = v;
        sum += v;
        s.n++;
    }
    if (s.n == 0)
        return s;
    s.mean = sum / s.n;
    if (s.n < 2 || s.mean == 0.0)
        return s;
    /* Two passes: the deviations are small next to the mean. */
    double ss = 0.0;
    for (int i = 0; i < count; i++)
        if (isfinite(values[i]))
            ss += (values[i] - s.mean) * (values[i] - s.mean);
    s.cv = sqrt(ss / (s.n - 1)) / fabs(s.mean);
    return s;
}
