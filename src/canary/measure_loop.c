/* The two measurement loops around every canary kernel (docs/method.md#loops). */
#include <math.h>
#include <stdlib.h>

#include "canary/canary.h"
#include "canary/timeline.h"
#include "infra/converge.h"
#include "infra/fatal.h"
#include "infra/progress.h"
#include "infra/ring.h"
#include "infra/turns.h"

#define MIB (1024.0 * 1024.0)

/* What one iteration of `seconds` reports: computed once per test, so the
 * timed loop only multiplies or divides. */
typedef struct {
    int bandwidth;
    double factor; /* latency: usec per second per operation; bandwidth: MiB per iteration */
} value_scale_t;

static value_scale_t value_scale(const canary_kernel_t *k, void *state)
{
    double per = k->per_iteration(state);
    value_scale_t v = {k->higher_is_better, k->higher_is_better ? per / MIB : 1.0e6 / per};
    return v;
}

static inline double value_of(value_scale_t v, double seconds)
{
    return v.bandwidth ? v.factor / seconds : v.factor * seconds;
}

/* Warm-up, then iters timed iterations. The timed loop does only the
 * kernel and its two timer reads, as the reference: the raw durations are
 * kept and turned into samples after the loop (add_samples). Returns the
 * bulk time of the timed iterations; *begin is their start. */
static double timed_iterations(const canary_kernel_t *k, void *state, int left, int right,
                               int warmup, int iters, double *durations, double *begin)
{
    for (int i = 0; i < warmup; i++)
        k->iterate(state, left, right);
    double bt1 = MPI_Wtime();
    *begin = bt1;
    for (int i = 0; i < iters; i++) {
        double t1 = MPI_Wtime();
        k->iterate(state, left, right);
        durations[i] = MPI_Wtime() - t1;
    }
    return MPI_Wtime() - bt1;
}

static void add_samples(stats_acc_t *acc, value_scale_t scale, const double *durations,
                        int iters)
{
    for (int i = 0; i < iters; i++)
        stats_add_sample(acc, value_of(scale, durations[i]));
}

/* --timeline, after a timed loop: each iteration's start is rebuilt from
 * the loop's start and the durations before it, the time between two
 * iterations (the timer reads) spread evenly, so the loop itself stores
 * nothing more than without --timeline. */
static void add_timeline(timeline_t *tl, value_scale_t scale, double begin, double bulk_time,
                         const double *durations, int iters)
{
    double kernel_time = 0.0;
    for (int i = 0; i < iters; i++)
        kernel_time += durations[i];
    double gap = iters > 0 ? (bulk_time - kernel_time) / iters : 0.0;
    double t = begin - tl->t0;
    for (int i = 0; i < iters; i++) {
        timeline_add(tl, t, value_of(scale, durations[i]));
        t += durations[i] + (gap > 0.0 ? gap : 0.0);
    }
}

/* What the ranks of a test agree on before every measurement, in the one
 * MPI_Allreduce(MIN) the loop makes anyway (the time-limit check of
 * docs/method.md#loops):
 *  - the elapsed time (MIN: the test ends once every rank has passed the
 *    limit);
 *  - with --converge, whether every rank's Avg and 99% have settled (MIN of
 *    a 0/1 flag) and the worst precision of any rank (MIN of -precision);
 *  - the previous measurement's bulk values, so Avg(Worst) costs no extra
 *    message and no per-measurement storage: MIN of v for bandwidth (worst
 *    = lowest), MIN of -v for latency (worst = highest). */
enum { AGREE_ELAPSED, AGREE_CONVERGED, AGREE_AVG_PRECISION, AGREE_TAIL_PRECISION, AGREE_HEADER };

typedef struct {
    double *values; /* AGREE_HEADER entries, then n_pending bulk values */
    int n_pending;
    /* With --converge only (NULL without): about 35 KiB, so not on the
     * stack of every run (under SimGrid every rank's stack is resident). */
    converge_t *conv;
} agreement_t;

static void agreement_init(agreement_t *a, int n_pending, double tol, int higher_is_better)
{
    a->n_pending = n_pending;
    a->values = xmalloc(sizeof(double) * (size_t)(AGREE_HEADER + n_pending));
    for (int i = 0; i < AGREE_HEADER + n_pending; i++)
        a->values[i] = INFINITY;
    a->conv = NULL;
    if (tol > 0.0) {
        a->conv = xmalloc(sizeof(*a->conv));
        converge_init(a->conv, tol, higher_is_better);
    }
}

/* Collective over test_comm. Returns the agreed elapsed time; sets
 * *all_converged when every rank's statistics have settled. */
static double agree(agreement_t *a, double elapsed, int higher_is_better, MPI_Comm test_comm,
                    stats_acc_t *acc, int *all_converged)
{
    double *v = a->values;
    v[AGREE_ELAPSED] = elapsed;
    v[AGREE_CONVERGED] = a->conv && converge_done(a->conv) ? 1.0 : 0.0;
    v[AGREE_AVG_PRECISION] = a->conv ? -a->conv->avg_precision : -INFINITY;
    v[AGREE_TAIL_PRECISION] = a->conv ? -a->conv->tail_precision : -INFINITY;
    MPI_Allreduce(MPI_IN_PLACE, v, AGREE_HEADER + a->n_pending, MPI_DOUBLE, MPI_MIN, test_comm);
    for (int r = AGREE_HEADER; r < AGREE_HEADER + a->n_pending; r++) {
        if (isinf(v[r]))
            continue;
        acc->worst_sum += higher_is_better ? v[r] : -v[r];
        acc->worst_count += 1.0;
        v[r] = INFINITY;
    }
    if (a->conv) {
        acc->avg_precision = -v[AGREE_AVG_PRECISION];
        acc->tail_precision = -v[AGREE_TAIL_PRECISION];
    }
    *all_converged = v[AGREE_CONVERGED] > 0.0;
    return v[AGREE_ELAPSED];
}

/* After measurement m: its batch mean and this rank's samples so far. */
static void agreement_batch(agreement_t *a, double batch_mean, const stats_acc_t *acc)
{
    if (!a->conv)
        return;
    converge_add_measurement(a->conv, batch_mean, &acc->hist);
}

static void agreement_free(agreement_t *a)
{
    free(a->values);
    free(a->conv);
}

/* Before measurement m: end the test on the time limit or convergence. */
static int should_stop(double elapsed, double limit, int converged, stats_acc_t *acc)
{
    progress_heartbeat(elapsed);
    if (elapsed >= limit) {
        acc->timed_out = 1.0;
        return 1;
    }
    if (converged) {
        acc->converged = 1.0;
        return 1;
    }
    return 0;
}

static void ring_loop(const canary_kernel_t *k, void *state, loop_limits_t lim, double limit,
                      double tol, MPI_Comm slice, int slice_index, MPI_Comm test_comm,
                      unsigned long long ring_seed, stats_acc_t *acc, timeline_t *tl)
{
    int me, n;
    MPI_Comm_rank(slice, &me);
    MPI_Comm_size(slice, &n);
    int *order = xmalloc(sizeof(int) * (size_t)n);
    int *left = xmalloc(sizeof(int) * (size_t)lim.rings);
    int *right = xmalloc(sizeof(int) * (size_t)lim.rings);
    /* Rings are fixed for the whole test: compute them once, outside the
     * timed region. */
    for (int r = 0; r < lim.rings; r++) {
        ring_order(ring_seed, slice_index, r, k->loop == LOOP_NATURAL_RING, n, order);
        ring_neighbours(order, n, me, &left[r], &right[r]);
    }
    free(order);

    int iters = lim.iterations;
    double *durations = xmalloc(sizeof(double) * (size_t)iters);
    agreement_t ag;
    agreement_init(&ag, lim.rings, tol, k->higher_is_better);
    value_scale_t scale = value_scale(k, state);
    double t0 = MPI_Wtime();
    int converged = 0;
    long m;
    for (m = 0; m < lim.measurements; m++) {
        double elapsed = agree(&ag, MPI_Wtime() - t0, k->higher_is_better, test_comm, acc,
                               &converged);
        if (should_stop(elapsed, limit, converged, acc))
            break;
        double batch = 0.0;
        for (int r = 0; r < lim.rings; r++) {
            if (k->ring_begin)
                k->ring_begin(state, left[r], right[r]);
            MPI_Barrier(test_comm);
            double begin;
            double bulk_time = timed_iterations(k, state, left[r], right[r], lim.warmup, iters,
                                                durations, &begin);
            add_samples(acc, scale, durations, iters);
            if (tl)
                add_timeline(tl, scale, begin, bulk_time, durations, iters);
            double bulk = value_of(scale, bulk_time / iters);
            stats_add_bulk(acc, bulk);
            batch += bulk;
            ag.values[AGREE_HEADER + r] = k->higher_is_better ? bulk : -bulk;
            MPI_Barrier(slice);
            if (k->ring_end)
                k->ring_end(state, left[r], right[r]);
        }
        agreement_batch(&ag, batch / lim.rings, acc);
    }
    acc->measurements = (double)m;
    /* The last measurement's worst values have not travelled yet. */
    agree(&ag, 0.0, k->higher_is_better, test_comm, acc, &converged);
    agreement_free(&ag);
    free(durations);
    free(left);
    free(right);
}

static void collective_loop(const canary_kernel_t *k, void *state, loop_limits_t lim,
                            double limit, double tol, MPI_Comm slice, MPI_Comm test_comm,
                            stats_acc_t *acc, timeline_t *tl)
{
    int n;
    MPI_Comm_size(slice, &n);
    int iters = k->iterations_for ? k->iterations_for(lim.iterations, n) : lim.iterations;
    value_scale_t scale = value_scale(k, state);
    double *durations = xmalloc(sizeof(double) * (size_t)(iters > 0 ? iters : 1));
    agreement_t ag;
    agreement_init(&ag, 0, tol, k->higher_is_better);
    double t0 = MPI_Wtime(), bulk_time = 0.0;
    int converged = 0;
    long m, total_iters = 0;
    for (m = 0; m < lim.measurements; m++) {
        double elapsed = agree(&ag, MPI_Wtime() - t0, k->higher_is_better, test_comm, acc,
                               &converged);
        if (should_stop(elapsed, limit, converged, acc))
            break;
        double begin;
        double t = timed_iterations(k, state, -1, -1, lim.warmup, iters, durations, &begin);
        add_samples(acc, scale, durations, iters);
        if (tl)
            add_timeline(tl, scale, begin, t, durations, iters);
        bulk_time += t;
        total_iters += iters;
        agreement_batch(&ag, value_of(scale, t / iters), acc);
    }
    acc->measurements = (double)m;
    if (ag.conv) /* the precision after the last measurement */
        agree(&ag, 0.0, k->higher_is_better, test_comm, acc, &converged);
    /* As the reference: one bulk value per rank over the whole test. */
    if (total_iters > 0)
        stats_add_bulk(acc, value_of(scale, bulk_time / (double)total_iters));
    agreement_free(&ag);
    free(durations);
    MPI_Barrier(test_comm);
}

typedef struct {
    const canary_kernel_t *k;
    const canary_params_t *params;
    MPI_Comm slice;
    void *state;
} setup_call_t;

static void setup_in_turn(void *arg)
{
    setup_call_t *c = arg;
    c->state = c->k->setup(c->slice, c->params);
}

void canary_measure(const canary_plan_t *test, MPI_Comm slice, int slice_index,
                    MPI_Comm test_comm, stats_acc_t *acc, timeline_t *tl)
{
    const canary_kernel_t *k = test->kernel;
    stats_init(acc);
    /* Slices set up one after another (see infra/turns.h). */
    setup_call_t call = {k, &test->params, slice, NULL};
    take_turns(test_comm, slice_index, setup_in_turn, &call);
    void *state = call.state;
    if (k->loop == LOOP_COLLECTIVE) {
        collective_loop(k, state, test->limits, test->time_limit, test->converge_tol, slice,
                        test_comm, acc, tl);
    } else {
        ring_loop(k, state, test->limits, test->time_limit, test->converge_tol, slice,
                  slice_index, test_comm, test->ring_seed, acc, tl);
    }
    k->teardown(state);
}
