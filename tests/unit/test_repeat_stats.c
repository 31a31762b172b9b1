/* Run-to-run statistics: mean, min, max, coefficient of variation. */
#include <math.h>

#include "check.h"
#include "infra/repeat_stats.h"

static int near(double a, double b) { return fabs(a - b) <= 1e-12 * (fabs(b) > 1 ? fabs(b) : 1); }

int main(void)
{
    double v[] = {2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0};
    repeat_stats_t s = repeat_stats(v, 8);
    CHECK(s.n == 8 && near(s.mean, 5.0) && s.min == 2.0 && s.max == 9.0);
    /* Sample variance 32 / 7. */
    CHECK(near(s.cv, sqrt(32.0 / 7.0) / 5.0));

    /* Missing repetitions (NaN) are left out. */
    double w[] = {NAN, 10.0, 12.0, NAN};
    s = repeat_stats(w, 4);
    CHECK(s.n == 2 && near(s.mean, 11.0) && s.min == 10.0 && s.max == 12.0);
    CHECK(near(s.cv, sqrt(2.0) / 11.0));

    /* One value: no spread to speak of; none: nothing at all. */
    s = repeat_stats(w + 1, 1);
    CHECK(s.n == 1 && s.mean == 10.0 && isnan(s.cv));
    s = repeat_stats(w, 1);
    CHECK(s.n == 0 && isnan(s.mean) && isnan(s.min) && isnan(s.cv));

    /* Identical values: CV 0. Negative mean: CV stays positive. */
    double c[] = {3.0, 3.0, 3.0};
    CHECK(repeat_stats(c, 3).cv == 0.0);
    double neg[] = {-1.0, -3.0};
    CHECK(repeat_stats(neg, 2).cv > 0.0);
    return check_report("test_repeat_stats");
}
