#include "canary/timeline.h"

#include <stdlib.h>
#include <string.h>

#include "infra/fatal.h"

double timeline_first_width(const burst_shape_t *s)
{
    if (burst_is_steady(s))
        return 1e-3;
    double shorter = s->off_s > 0.0 && s->off_s < s->on_s ? s->off_s : s->on_s;
    double w = shorter / 10.0;
    return w < 1e-4 ? 1e-4 : w > 1e-2 ? 1e-2 : w;
}

timeline_t *timeline_new(const burst_shape_t *s, uint64_t seed, double t0)
{
    timeline_t *tl = xcalloc(1, sizeof(*tl));
    burst_clock_init(&tl->clock, s, seed);
    tl->t0 = t0;
    tl->width = timeline_first_width(s);
    stats_init(&tl->during);
    stats_init(&tl->between);
    return tl;
}

void timeline_free(timeline_t *tl) { free(tl); }

static void halve(timeline_t *tl)
{
    for (int b = 0; b < TIMELINE_BINS / 2; b++) {
        tl->sum[b] = tl->sum[2 * b] + tl->sum[2 * b + 1];
        tl->count[b] = tl->count[2 * b] + tl->count[2 * b + 1];
    }
    memset(tl->sum + TIMELINE_BINS / 2, 0, sizeof(double) * TIMELINE_BINS / 2);
    memset(tl->count + TIMELINE_BINS / 2, 0, sizeof(double) * TIMELINE_BINS / 2);
    tl->width *= 2.0;
}

void timeline_add(timeline_t *tl, double t, double value)
{
    stats_acc_t *phase = burst_phase_at(&tl->clock, t, NULL) ? &tl->during : &tl->between;
    stats_add_sample(phase, value);
    /* Every value also as a bulk value: the Avg of a phase is the mean of
     * its values. */
    stats_add_bulk(phase, value);
    if (t < 0.0)
        t = 0.0;
    while (t >= tl->width * TIMELINE_BINS)
        halve(tl);
    int b = (int)(t / tl->width);
    tl->sum[b] += value;
    tl->count[b] += 1.0;
}

void timeline_coarsen_to(timeline_t *tl, double width)
{
    while (tl->width < width * (1.0 - 1e-9))
        halve(tl);
}

void timeline_reduce(timeline_t *tl, MPI_Comm comm)
{
    double width = tl->width;
    MPI_Allreduce(MPI_IN_PLACE, &width, 1, MPI_DOUBLE, MPI_MAX, comm);
    timeline_coarsen_to(tl, width);
    int me;
    MPI_Comm_rank(comm, &me);
    MPI_Reduce(me == 0 ? MPI_IN_PLACE : tl->sum, tl->sum, TIMELINE_BINS, MPI_DOUBLE, MPI_SUM, 0,
               comm);
    MPI_Reduce(me == 0 ? MPI_IN_PLACE : tl->count, tl->count, TIMELINE_BINS, MPI_DOUBLE, MPI_SUM,
               0, comm);
    stats_reduce(&tl->during, comm);
    stats_reduce(&tl->between, comm);
}
