#include "infra/burst_schedule.h"

#include <math.h>
#include <stddef.h>

#include "infra/rng.h"

/* Uniform in [-1, 1) from the top 53 bits. */
static double symmetric_unit(rng_t *r)
{
    return (double)(rng_next(r) >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

void burst_cycle(const burst_shape_t *s, uint64_t seed, long k, double *on, double *off)
{
    *on = s->on_s;
    *off = s->off_s;
    if (s->jitter <= 0.0)
        return;
    rng_t r;
    rng_init(&r, rng_seed_mix(seed, (uint64_t)k, 0x6275727374ULL)); /* "burst" */
    *on *= 1.0 + s->jitter * symmetric_unit(&r);
    *off *= 1.0 + s->jitter * symmetric_unit(&r);
}

static void set_cycle(burst_clock_t *c, long k, double start)
{
    c->cycle = k;
    c->cycle_start = start;
    burst_cycle(&c->shape, c->seed, k, &c->on, &c->off);
}

void burst_clock_init(burst_clock_t *c, const burst_shape_t *s, uint64_t seed)
{
    c->shape = *s;
    c->seed = seed;
    set_cycle(c, 0, 0.0);
}

/* Moves the cursor to the cycle holding t (t < 0 counts as cycle 0). */
static void locate(burst_clock_t *c, double t)
{
    if (t < c->cycle_start)
        set_cycle(c, 0, 0.0);
    while (t >= c->cycle_start + c->on + c->off)
        set_cycle(c, c->cycle + 1, c->cycle_start + c->on + c->off);
}

int burst_phase_at(burst_clock_t *c, double t, long *cycle)
{
    if (burst_is_steady(&c->shape)) {
        if (cycle)
            *cycle = 0;
        return 1;
    }
    locate(c, t);
    if (cycle)
        *cycle = c->cycle;
    return t < c->cycle_start + c->on;
}

double burst_pacing_period(const burst_shape_t *s)
{
    double quarter = s->on_s / 4.0;
    return quarter < BURST_PACING_PERIOD_S ? quarter : BURST_PACING_PERIOD_S;
}

/* A wait that moves t: one too small to change t in floating point is a
 * rounding at a boundary, and waiting it would never end. */
static double moving(double t, double wait) { return wait > 0.0 && t + wait > t ? wait : 0.0; }

double burst_wait(burst_clock_t *c, double t, int *in_off)
{
    if (in_off)
        *in_off = 0;
    if (burst_is_steady(&c->shape))
        return 0.0;
    if (!burst_phase_at(c, t, NULL)) {
        if (in_off)
            *in_off = 1;
        return moving(t, c->cycle_start + c->on + c->off - t);
    }
    double f = c->shape.intensity;
    if (f >= 1.0)
        return 0.0;
    double p = burst_pacing_period(&c->shape);
    double into = t - c->cycle_start;
    if (into < 0.0)
        into = 0.0;
    double sub_start = floor(into / p) * p;
    double sub_len = c->on - sub_start < p ? c->on - sub_start : p;
    if (into < sub_start + f * sub_len)
        return 0.0;
    /* Past the active part: the next sub-period starts active (f > 0). A
     * rounding that leaves nothing to wait is that start. */
    return moving(t, sub_start + sub_len - into);
}

int burst_ends(const burst_shape_t *s, uint64_t seed, double from, double to, double *ends,
               double *next_starts, int max)
{
    if (burst_is_steady(s))
        return 0;
    int n = 0;
    double start = 0.0;
    for (long k = 0; n < max; k++) {
        double on, off;
        burst_cycle(s, seed, k, &on, &off);
        double end = start + on;
        if (end >= to)
            break;
        if (end >= from) {
            ends[n] = end;
            next_starts[n] = end + off;
            n++;
        }
        start = end + off;
    }
    return n;
}
