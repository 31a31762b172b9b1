/* The two loop structures of SPEC A.1 around every canary kernel. */
#include <math.h>
#include <stdlib.h>

#include "canary/canary.h"
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
 * bulk time of the timed iterations. */
static double timed_iterations(const canary_kernel_t *k, void *state, int left, int right,
                               int warmup, int iters, double *durations)
{
    for (int i = 0; i < warmup; i++)
        k->iterate(state, left, right);
    double bt1 = MPI_Wtime();
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

/* The timeout agreement of every measurement also carries the previous
 * measurement's bulk values, so Avg(Worst) costs no extra message and no
 * per-measurement storage: MIN of v for bandwidth (worst = lowest), MIN of
 * -v for latency (worst = highest). Entry 0 is the elapsed time (MIN: the
 * test ends once every rank has passed the limit). */
static double agree(double elapsed, double *pending, int n_pending, int higher_is_better,
                    MPI_Comm test_comm, stats_acc_t *acc)
{
    pending[0] = elapsed;
    MPI_Allreduce(MPI_IN_PLACE, pending, n_pending + 1, MPI_DOUBLE, MPI_MIN, test_comm);
    for (int r = 1; r <= n_pending; r++) {
        if (isinf(pending[r]))
            continue;
        acc->worst_sum += higher_is_better ? pending[r] : -pending[r];
        acc->worst_count += 1.0;
        pending[r] = INFINITY;
    }
    return pending[0];
}

static void ring_loop(const canary_kernel_t *k, void *state, loop_limits_t lim, double limit,
                      MPI_Comm slice, int slice_index, MPI_Comm test_comm,
                      unsigned long long ring_seed, stats_acc_t *acc)
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

    double *durations = xmalloc(sizeof(double) * (size_t)(lim.iterations > 0 ? lim.iterations : 1));
    double *pending = xmalloc(sizeof(double) * ((size_t)lim.rings + 1));
    for (int r = 0; r <= lim.rings; r++)
        pending[r] = INFINITY;
    int iters = lim.iterations;
    value_scale_t scale = value_scale(k, state);
    double t0 = MPI_Wtime();
    long m;
    for (m = 0; m < lim.measurements; m++) {
        double elapsed = agree(MPI_Wtime() - t0, pending, lim.rings, k->higher_is_better,
                               test_comm, acc);
        progress_heartbeat(elapsed);
        if (elapsed >= limit) {
            acc->timed_out = 1.0;
            break;
        }
        for (int r = 0; r < lim.rings; r++) {
            if (k->ring_begin)
                k->ring_begin(state, left[r], right[r]);
            MPI_Barrier(test_comm);
            double bulk_time = timed_iterations(k, state, left[r], right[r], lim.warmup, iters,
                                                durations);
            add_samples(acc, scale, durations, iters);
            double bulk = value_of(scale, bulk_time / iters);
            stats_add_bulk(acc, bulk);
            pending[r + 1] = k->higher_is_better ? bulk : -bulk;
            MPI_Barrier(slice);
            if (k->ring_end)
                k->ring_end(state, left[r], right[r]);
        }
    }
    acc->measurements = (double)m;
    /* The last measurement's worst values have not travelled yet. */
    agree(0.0, pending, lim.rings, k->higher_is_better, test_comm, acc);
    free(pending);
    free(durations);
    free(left);
    free(right);
}

static void collective_loop(const canary_kernel_t *k, void *state, loop_limits_t lim,
                            double limit, MPI_Comm slice, MPI_Comm test_comm, stats_acc_t *acc)
{
    int n;
    MPI_Comm_size(slice, &n);
    int iters = k->iterations_for ? k->iterations_for(lim.iterations, n) : lim.iterations;
    value_scale_t scale = value_scale(k, state);
    double *durations = xmalloc(sizeof(double) * (size_t)(iters > 0 ? iters : 1));
    double t0 = MPI_Wtime(), bulk_time = 0.0;
    long m, total_iters = 0;
    for (m = 0; m < lim.measurements; m++) {
        double elapsed = MPI_Wtime() - t0;
        MPI_Allreduce(MPI_IN_PLACE, &elapsed, 1, MPI_DOUBLE, MPI_MIN, test_comm);
        progress_heartbeat(elapsed);
        if (elapsed >= limit) {
            acc->timed_out = 1.0;
            break;
        }
        bulk_time += timed_iterations(k, state, -1, -1, lim.warmup, iters, durations);
        add_samples(acc, scale, durations, iters);
        total_iters += iters;
    }
    acc->measurements = (double)m;
    /* As the reference: one bulk value per rank over the whole test. */
    if (total_iters > 0)
        stats_add_bulk(acc, value_of(scale, bulk_time / (double)total_iters));
    free(durations);
    MPI_Barrier(test_comm);
}

typedef struct {
    const canary_kernel_t *k;
    MPI_Comm slice;
    void *state;
} setup_call_t;

static void setup_in_turn(void *arg)
{
    setup_call_t *c = arg;
    c->state = c->k->setup(c->slice);
}

void canary_measure(const canary_kernel_t *k, loop_limits_t limits, double time_limit,
                    MPI_Comm slice, int slice_index, MPI_Comm test_comm,
                    unsigned long long ring_seed, stats_acc_t *acc)
{
    stats_init(acc);
    /* Slices set up one after another (see infra/turns.h). */
    setup_call_t call = {k, slice, NULL};
    take_turns(test_comm, slice_index, setup_in_turn, &call);
    void *state = call.state;
    if (k->loop == LOOP_COLLECTIVE) {
        collective_loop(k, state, limits, time_limit, slice, test_comm, acc);
    } else {
        ring_loop(k, state, limits, time_limit, slice, slice_index, test_comm, ring_seed, acc);
    }
    k->teardown(state);
}
