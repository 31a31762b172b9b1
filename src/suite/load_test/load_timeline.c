#include "suite/load_test/load_timeline.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "infra/fatal.h"
#include "suite/record/run_record.h"

#define TAG_TIMELINE 4301
/* Cycles compared for the schedule check, and bursts looked at per test. */
#define SCHEDULE_CHECK_CYCLES 64
#define MAX_BURSTS 4096
/* What the test root sends world rank 0: width, during and between (Avg,
 * 99%, values), then the sums and the counts of the bins. */
enum { MSG_WIDTH, MSG_DURING, MSG_BETWEEN = MSG_DURING + 3, MSG_SUM = MSG_BETWEEN + 3,
       MSG_COUNT = MSG_SUM + TIMELINE_BINS, MSG_LEN = MSG_COUNT + TIMELINE_BINS };

static uint64_t schedule_seed(const run_t *run) { return run_seed(run); }

/* A fingerprint of the first cycles: equal on every rank that derived the
 * same schedule. */
static double schedule_fingerprint(const burst_shape_t *s, uint64_t seed)
{
    double h = 0.0;
    for (long k = 0; k < SCHEDULE_CHECK_CYCLES && !burst_is_steady(s); k++) {
        double on, off;
        burst_cycle(s, seed, k, &on, &off);
        h += (double)(k + 1) * (isfinite(on) ? on : 1.0) + (double)(k + 1) * (k + 1) * off;
    }
    return h;
}

void load_bursts_begin(run_t *run, const roles_t *ro, const burst_shape_t *shape,
                       load_bursts_t *b)
{
    memset(b, 0, sizeof(*b));
    b->active = run->env.plan->set.timeline || !burst_is_steady(shape);
    if (!b->active)
        return;
    /* The common start: every rank leaves this barrier and reads its own
     * clock; from here on each rank follows the schedule on its clock. */
    MPI_Barrier(run->env.world);
    b->burst.t0 = MPI_Wtime();
    /* The wall clock beside it lets series taken outside the program (the
     * testbed's port counters) be put on the timeline's axis. */
    struct timespec now;
    b->epoch_s = NAN;
    if (run->env.rank == 0 && timespec_get(&now, TIME_UTC) == TIME_UTC)
        b->epoch_s = (double)now.tv_sec + now.tv_nsec * 1e-9;
    burst_clock_init(&b->burst.clock, shape, schedule_seed(run));
    double h = schedule_fingerprint(shape, schedule_seed(run));
    double v[4] = {b->burst.t0, -b->burst.t0, h, -h};
    MPI_Allreduce(MPI_IN_PLACE, v, 4, MPI_DOUBLE, MPI_MAX, run->env.world);
    b->spread_s = v[0] + v[1];
    b->schedule_agreed = v[2] == -v[3];
    if (run->env.plan->set.timeline && ro->canary_test != MPI_COMM_NULL)
        b->tl = timeline_new(shape, schedule_seed(run), b->burst.t0);
}

/* The test root: merged Avg, 99% and count of one phase. */
static void phase_summary(stats_acc_t *acc, const char *id, double *out)
{
    result_t *r = xcalloc(1, sizeof(*r));
    snprintf(r->test_id, sizeof(r->test_id), "%s", id);
    stats_to_result(acc, r);
    int any = acc->hist.count > 0.0;
    out[0] = any ? r->avg : NAN;
    out[1] = any ? r->p99 : NAN;
    out[2] = acc->hist.count;
    free(r);
}

static double on_share(const burst_shape_t *s, uint64_t seed, double from, double width)
{
    burst_clock_t c;
    burst_clock_init(&c, s, seed);
    int on = 0;
    for (int i = 0; i < 8; i++)
        on += burst_phase_at(&c, from + width * (i + 0.5) / 8.0, NULL);
    return on / 8.0;
}

/* World rank 0: the record of one test from the root's message. */
static void record(run_t *run, const load_bursts_t *b, load_timeline_t *store, int t,
                   const char *table, const double *msg)
{
    const canary_kernel_t *k = run->env.plan->tests[t].kernel;
    if (store->n == store->cap) {
        store->cap = store->cap ? 2 * store->cap : 8;
        timeline_record_t *grown = realloc(store->rec, sizeof(*grown) * (size_t)store->cap);
        if (!grown)
            die("out of memory for the timeline records");
        store->rec = grown;
    }
    timeline_record_t *r = &store->rec[store->n++];
    memset(r, 0, sizeof(*r));
    snprintf(r->table, sizeof(r->table), "%s", table);
    snprintf(r->test_id, sizeof(r->test_id), "%s", k->id);
    snprintf(r->unit, sizeof(r->unit), "%s", k->unit);
    r->repetition = run->repetition;
    r->higher_is_better = k->higher_is_better;
    r->spread_s = b->spread_s;
    r->schedule_agreed = b->schedule_agreed;
    r->epoch_s = b->epoch_s;
    const result_t *iso = run_find(run, "isolated", k->id);
    r->reference = iso ? iso->avg : NAN;
    r->width = msg[MSG_WIDTH];
    memcpy(r->during, msg + MSG_DURING, sizeof(r->during));
    memcpy(r->between, msg + MSG_BETWEEN, sizeof(r->between));
    const double *sum = msg + MSG_SUM, *count = msg + MSG_COUNT;
    int first = -1, last = -1;
    for (int i = 0; i < TIMELINE_BINS; i++)
        if (count[i] > 0.0) {
            if (first < 0)
                first = i;
            last = i;
        }
    if (first < 0)
        return;
    r->first = first;
    r->n_bins = last - first + 1;
    r->mean = xcalloc((size_t)r->n_bins, sizeof(double));
    r->count = xcalloc((size_t)r->n_bins, sizeof(double));
    r->on = xcalloc((size_t)r->n_bins, sizeof(double));
    const burst_shape_t *shape = &b->burst.clock.shape;
    for (int i = 0; i < r->n_bins; i++) {
        r->count[i] = count[first + i];
        r->mean[i] = r->count[i] > 0.0 ? sum[first + i] / r->count[i] : NAN;
        r->on[i] = on_share(shape, b->burst.clock.seed, (first + i) * r->width, r->width);
    }
    double *ends = xmalloc(sizeof(double) * MAX_BURSTS);
    double *next = xmalloc(sizeof(double) * MAX_BURSTS);
    /* Times relative to the first bin, as the estimator's bins start at 0. */
    double origin = first * r->width;
    int n = burst_ends(shape, b->burst.clock.seed, origin, origin + r->n_bins * r->width, ends,
                       next, MAX_BURSTS);
    for (int j = 0; j < n; j++) {
        ends[j] -= origin;
        next[j] -= origin;
    }
    if (isfinite(r->reference))
        recovery_estimate(r->mean, r->count, r->n_bins, r->width, r->reference,
                          r->higher_is_better, RECOVERY_TOLERANCE, RECOVERY_WINDOW, ends, next,
                          n, &r->recovery);
    else
        recovery_estimate(NULL, NULL, 0, r->width, 0.0, 0, RECOVERY_TOLERANCE, RECOVERY_WINDOW,
                          NULL, NULL, 0, &r->recovery);
    free(ends);
    free(next);
}

void load_bursts_end(run_t *run, const roles_t *ro, load_bursts_t *b, load_timeline_t *store,
                     int t, const char *table)
{
    if (!b->active || !run->env.plan->set.timeline)
        return;
    double *msg = xcalloc(MSG_LEN, sizeof(double));
    int holder = 0;
    if (b->tl) {
        timeline_reduce(b->tl, ro->canary_test);
        int me;
        MPI_Comm_rank(ro->canary_test, &me);
        holder = me == 0;
        if (holder) {
            msg[MSG_WIDTH] = b->tl->width;
            phase_summary(&b->tl->during, run->env.plan->tests[t].kernel->id, msg + MSG_DURING);
            phase_summary(&b->tl->between, run->env.plan->tests[t].kernel->id, msg + MSG_BETWEEN);
            memcpy(msg + MSG_SUM, b->tl->sum, sizeof(b->tl->sum));
            memcpy(msg + MSG_COUNT, b->tl->count, sizeof(b->tl->count));
        }
        timeline_free(b->tl);
        b->tl = NULL;
    }
    /* As result_deliver: the holder sends unless it is world rank 0. */
    if (holder && run->env.rank != 0)
        MPI_Send(msg, MSG_LEN, MPI_DOUBLE, 0, TAG_TIMELINE, run->env.world);
    else if (!holder && run->env.rank == 0)
        MPI_Recv(msg, MSG_LEN, MPI_DOUBLE, MPI_ANY_SOURCE, TAG_TIMELINE, run->env.world,
                 MPI_STATUS_IGNORE);
    if (run->env.rank == 0)
        record(run, b, store, t, table, msg);
    free(msg);
}

static void phase_json(json_writer_t *w, const char *key, const double *v)
{
    jw_object_begin(w, key);
    jw_number(w, "avg", v[0]);
    jw_number(w, "p99", v[1]);
    jw_int(w, "values", (long long)v[2]);
    jw_object_end(w);
}

static void record_json(json_writer_t *w, const timeline_record_t *r)
{
    jw_object_begin(w, NULL);
    jw_string(w, "table", r->table);
    jw_string(w, "test", r->test_id);
    jw_int(w, "repetition", r->repetition);
    jw_string(w, "unit", r->unit);
    jw_number(w, "start_spread_s", r->spread_s);
    jw_bool(w, "schedule_agreed", r->schedule_agreed);
    jw_number(w, "start_epoch_s", r->epoch_s);
    jw_number(w, "isolated_avg", r->reference);
    phase_json(w, "during_bursts", r->during);
    phase_json(w, "between_bursts", r->between);
    const recovery_t *rc = &r->recovery;
    jw_object_begin(w, "recovery");
    jw_number(w, "tolerance", RECOVERY_TOLERANCE);
    jw_int(w, "window_bins", RECOVERY_WINDOW);
    jw_int(w, "bursts", rc->bursts);
    jw_int(w, "recovered", rc->recovered);
    jw_number(w, "median_s", rc->median_s);
    jw_number(w, "p25_s", rc->p25_s);
    jw_number(w, "p75_s", rc->p75_s);
    jw_number(w, "min_s", rc->min_s);
    jw_number(w, "max_s", rc->max_s);
    jw_object_end(w);
    jw_object_begin(w, "bins");
    jw_number(w, "width_s", r->width);
    jw_number(w, "start_s", r->first * r->width);
    jw_array_begin(w, "count");
    for (int i = 0; i < r->n_bins; i++)
        jw_int(w, NULL, (long long)r->count[i]);
    jw_array_end(w);
    jw_array_begin(w, "mean");
    for (int i = 0; i < r->n_bins; i++)
        jw_number(w, NULL, r->mean[i]);
    jw_array_end(w);
    jw_array_begin(w, "on");
    for (int i = 0; i < r->n_bins; i++)
        jw_number(w, NULL, r->on[i]);
    jw_array_end(w);
    jw_object_end(w);
    jw_object_end(w);
}

void load_timeline_json(json_writer_t *w, const run_t *run, const void *ctx)
{
    const load_timeline_t *store = ctx;
    if (run->env.program != PROGRAM_NETWORK_LOAD_TEST || !run->env.plan->set.timeline)
        return;
    jw_array_begin(w, "timeline");
    for (int i = 0; i < store->n; i++)
        record_json(w, &store->rec[i]);
    jw_array_end(w);
}

void load_timeline_free(load_timeline_t *store)
{
    for (int i = 0; i < store->n; i++) {
        free(store->rec[i].mean);
        free(store->rec[i].count);
        free(store->rec[i].on);
    }
    free(store->rec);
    store->n = store->cap = 0;
    store->rec = NULL;
}
