/* The --timeline accumulator (canary/timeline.h): the split of values
 * during and between bursts, the bins and their bounded size. No MPI call
 * (the merge across ranks is checked by the integration tests). */
#include <math.h>

#include "canary/timeline.h"
#include "check.h"

static const burst_shape_t shape = {.on_s = 0.05, .off_s = 0.2, .intensity = 1.0, .jitter = 0.0};

static void during_and_between(void)
{
    timeline_t *tl = timeline_new(&shape, 9, 0.0);
    CHECK_NEAR(tl->width, 0.005, 1e-12); /* a tenth of the shorter period */
    /* 0.25 s cycles: 10 values of 8 in each ON, 40 of 2 in each OFF. */
    for (int k = 0; k < 8; k++) {
        double c = 0.25 * k;
        for (int i = 0; i < 10; i++)
            timeline_add(tl, c + 0.0049 * i, 8.0);
        for (int i = 0; i < 40; i++)
            timeline_add(tl, c + 0.05 + 0.0049 * i, 2.0);
    }
    CHECK(tl->during.hist.count == 80.0 && tl->between.hist.count == 320.0);
    CHECK_NEAR(tl->during.bulk_sum / tl->during.bulk_count, 8.0, 1e-12);
    CHECK_NEAR(tl->between.bulk_sum / tl->between.bulk_count, 2.0, 1e-12);
    /* A value at a boundary belongs to the period it starts. */
    timeline_add(tl, 0.05, 100.0);
    CHECK(tl->between.hist.max == 100.0);
    timeline_add(tl, 0.25, 200.0);
    CHECK(tl->during.hist.max == 200.0);
    double n = 0.0;
    for (int b = 0; b < TIMELINE_BINS; b++)
        n += tl->count[b];
    CHECK(n == 402.0);
    CHECK(tl->count[0] == 2.0 && tl->sum[0] == 16.0); /* 0 and 0.0049 */
    timeline_free(tl);
}

static void bounded_whatever_the_length(void)
{
    timeline_t *tl = timeline_new(&shape, 9, 0.0);
    double first = tl->width, total = 0.0;
    /* A value every 1 ms for 1000 s: the bins double their width, the
     * memory stays TIMELINE_BINS bins. */
    for (long i = 0; i < 1000000; i++)
        timeline_add(tl, i * 1e-3, 1.0);
    for (int b = 0; b < TIMELINE_BINS; b++)
        total += tl->count[b];
    CHECK(total == 1e6);
    CHECK(tl->width * TIMELINE_BINS > 999.999);
    CHECK(tl->width <= 2.0 * 1000.0 / TIMELINE_BINS);
    double ratio = log2(tl->width / first);
    CHECK(fabs(ratio - round(ratio)) < 1e-9); /* the first width times a power of two */
    /* Coarsening to a common width keeps every value. */
    timeline_coarsen_to(tl, tl->width * 4);
    total = 0.0;
    for (int b = 0; b < TIMELINE_BINS; b++)
        total += tl->count[b];
    CHECK(total == 1e6);
    timeline_free(tl);
}

static void first_widths(void)
{
    burst_shape_t steady = BURST_SHAPE_STEADY;
    CHECK_NEAR(timeline_first_width(&steady), 1e-3, 1e-12);
    burst_shape_t tiny = {.on_s = 1e-4, .off_s = 1e-4, .intensity = 1.0};
    CHECK_NEAR(timeline_first_width(&tiny), 1e-4, 1e-12);
    burst_shape_t big = {.on_s = 5.0, .off_s = 10.0, .intensity = 1.0};
    CHECK_NEAR(timeline_first_width(&big), 1e-2, 1e-12);
    burst_shape_t endless = {.on_s = INFINITY, .off_s = 0.0, .intensity = 0.5};
    CHECK_NEAR(timeline_first_width(&endless), 1e-2, 1e-12);
}

int main(void)
{
    during_and_between();
    bounded_whatever_the_length();
    first_widths();
    return check_report("test_timeline");
}
