/* Adaptive stop: batch means and tail windows (infra/converge.h). */
#include <math.h>

#include "check.h"
#include "infra/converge.h"

/* A deterministic pseudo-random stream (xorshift), uniform in [0, 1). */
static unsigned long long state = 88172645463325252ULL;
static double uniform(void)
{
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return (double)(state >> 11) / 9007199254740992.0;
}

/* Feed batches of `per_batch` samples of a steady distribution until the
 * tracker says converged or `max_batches` pass; return the batch count. */
static long batches_until_done(converge_t *c, hist_t *h, int per_batch, long max_batches,
                               double spread)
{
    for (long b = 1; b <= max_batches; b++) {
        double sum = 0.0;
        for (int i = 0; i < per_batch; i++) {
            double v = 10.0 + spread * uniform();
            hist_add(h, v);
            sum += v;
        }
        converge_add_batch(c, sum / per_batch);
        converge_check_tail(c, h);
        if (converge_done(c))
            return b;
    }
    return -1;
}

static hist_t h;

int main(void)
{
    converge_t c;
    /* A steady distribution converges, but never before the minimum
     * batches and a window of >= 10,000 samples after the first whose 99%
     * moved by <= TOL. */
    converge_init(&c, 0.05, 0);
    hist_clear(&h);
    long b = batches_until_done(&c, &h, 6000, 1000, 5.0);
    CHECK(b >= CONVERGE_MIN_BATCHES);
    CHECK(b > 0 && h.count >= (CONVERGE_STABLE_WINDOWS + 1) * 10000.0);
    CHECK(c.avg_precision <= 0.05 && c.tail_precision <= 0.05);

    /* Small batches: the tail needs its windows, so many more batches. */
    converge_init(&c, 0.05, 1);
    hist_clear(&h);
    b = batches_until_done(&c, &h, 240, 100000, 5.0);
    CHECK(b > 0 && h.count >= (CONVERGE_STABLE_WINDOWS + 1) * 10000.0);

    /* A tighter tolerance never stops earlier. */
    converge_t loose, tight;
    hist_t h2;
    converge_init(&loose, 0.2, 0);
    converge_init(&tight, 0.001, 0);
    hist_clear(&h);
    hist_clear(&h2);
    state = 1234567ULL;
    long b_loose = batches_until_done(&loose, &h, 6000, 2000, 5.0);
    state = 1234567ULL;
    long b_tight = batches_until_done(&tight, &h2, 6000, 2000, 5.0);
    CHECK(b_loose > 0);
    CHECK(b_tight < 0 || b_tight >= b_loose);

    /* A drifting mean does not converge. */
    converge_init(&c, 0.01, 0);
    hist_clear(&h);
    int done = 0;
    for (int m = 1; m <= 200 && !done; m++) {
        double level = 10.0 * m; /* grows every batch */
        for (int i = 0; i < 6000; i++)
            hist_add(&h, level + uniform());
        converge_add_batch(&c, level);
        converge_check_tail(&c, &h);
        done = converge_done(&c);
    }
    CHECK(!done);

    /* Unknown precision until there is something to judge. */
    converge_init(&c, 0.05, 0);
    CHECK(isinf(c.avg_precision) && isinf(c.tail_precision) && !converge_done(&c));
    return check_report("test_converge");
}
