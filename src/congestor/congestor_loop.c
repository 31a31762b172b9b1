/* One congestor pass (docs/method.md#congestors), steady or bursty. */
#define _POSIX_C_SOURCE 200809L
#include "congestor/congestor.h"

#include <stdlib.h>
#include <time.h>

#include "infra/agree.h"
#include "infra/converge.h"
#include "infra/fatal.h"

#define MIB (1024.0 * 1024.0)

/* What the ranks of a pass agree on before each measurement, all with MAX:
 * the elapsed time, whether any rank's statistics are still moving, and
 * whether any rank has seen the canaries finish. */
enum { AGREE_ELAPSED, AGREE_UNSETTLED, AGREE_DONE_SEEN, AGREE_COUNT };

static void sleep_seconds(double s)
{
    struct timespec nap = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&nap, NULL);
}

/* Have the pauses ended (burst_run_t)? Sticky: once ended, always.
 * paused_s: how long the current pause has lasted (0 before one). */
static int pauses_ended(burst_run_t *b, double t, double paused_s)
{
    if (!b->ended && ((b->end_s > 0.0 && t >= b->end_s) ||
                      (b->stop_asked && b->stop_asked(b->stop_ctx, paused_s))))
        b->ended = 1;
    return b->ended;
}

double burst_iterate(const congestor_kernel_t *k, void *state, burst_run_t *burst, int iterations,
                     double *durations)
{
    double start = MPI_Wtime(), off_time = 0.0;
    for (int i = 0; i < iterations; i++) {
        double paced_until = -1.0; /* the end of this iteration's pacing pause */
        double paused_from = -1.0;  /* when this iteration's pause began */
        for (;;) {
            int in_off;
            double now = MPI_Wtime(), t = now - burst->t0;
            if (pauses_ended(burst, t, paused_from < 0.0 ? 0.0 : now - paused_from))
                break;
            double wait = burst_wait(&burst->clock, t, &in_off);
            if (wait <= 0.0)
                break;
            /* Woken at (or past) the end of a pacing pause: go, even when
             * the wake-up came after the active part of the sub-period
             * (with intensity 1e-6 that part is 10 ns, and every wake-up
             * would miss it). Not into an OFF period. */
            if (!in_off && paced_until >= 0.0 && t >= paced_until)
                break;
            if (!in_off && paced_until < 0.0)
                paced_until = t + wait;
            if (paused_from < 0.0)
                paused_from = now;
            double nap = wait;
            if (burst->end_s > 0.0 && t + nap > burst->end_s)
                nap = burst->end_s - t; /* sleep only until the end */
            if (burst->stop_asked && nap > BURST_STOP_POLL_S)
                nap = BURST_STOP_POLL_S; /* a long pause looks at the stop */
            sleep_seconds(nap);
            if (in_off)
                off_time += MPI_Wtime() - now;
        }
        double t1 = MPI_Wtime();
        k->iterate(state);
        if (durations)
            durations[i] = MPI_Wtime() - t1;
    }
    return MPI_Wtime() - start - off_time;
}

/* A measured measurement's samples, bulk time and --converge batch. */
static void account(stats_acc_t *acc, converge_t *conv, const double *durations, int iterations,
                    double bytes, double t, double *bulk_time)
{
    *bulk_time += t;
    for (int i = 0; i < iterations; i++)
        stats_add_sample(acc, bytes / (durations[i] * MIB));
    if (conv)
        converge_add_measurement(conv, bytes * iterations / (t * MIB), &acc->hist);
}

int congestor_pass(const congestor_plan_t *c, void *state, MPI_Comm comm, int iterations,
                   MPI_Request *done_req, stats_acc_t *acc, burst_run_t *burst)
{
    const congestor_kernel_t *k = c->kernel;
    const int measurements = c->measurements;
    const double time_limit = c->time_limit;
    /* Steady: the published loops below, untouched. */
    int paced = burst && !burst_is_steady(&burst->clock.shape);
    if (k->pass_begin)
        k->pass_begin(state);
    double bytes = k->bytes_per_iteration(state);
    /* Samples only where measured and this rank reports a bandwidth. */
    int sampling = acc && bytes > 0.0;
    double *durations = sampling ? xmalloc(sizeof(double) * (size_t)iterations) : NULL;
    int converging = acc && c->converge_tol > 0.0;
    /* --converge only: about 35 KiB, kept off every run's stack. */
    converge_t *conv = NULL;
    if (converging) {
        conv = xmalloc(sizeof(*conv));
        converge_init(conv, c->converge_tol, 1);
    }
    double t0 = MPI_Wtime();
    double mine[AGREE_COUNT] = {0.0, 1.0, 0.0}, agreed[AGREE_COUNT];
    double bulk_time = 0.0;
    agree_t agreement = AGREE_NONE;
    /* The verdict on measurement m is agreed while measurement m-1 runs, so
     * a stop takes effect one measurement late, the same on every rank. */
    agree_post(&agreement, mine, agreed, AGREE_COUNT, MPI_DOUBLE, MPI_MAX, comm);
    long done = 0;
    int ended_by_done = 0, settled = 0;
    /* The precision each verdict was made on: a settled pass reports it, not
     * the precision after the one measurement that ran while the verdict was
     * agreed (which may be worse, and "converged" would then show a
     * precision above the tolerance). */
    double verdict_avg = 0.0, verdict_tail = 0.0;
    for (int m = 0; m < measurements; m++) {
        agree_wait(&agreement);
        if (agreed[AGREE_ELAPSED] >= time_limit)
            break;
        if (converging && done >= CONVERGE_MIN_BATCHES && agreed[AGREE_UNSETTLED] == 0.0) {
            settled = 1;
            break;
        }
        if (done_req && agreed[AGREE_DONE_SEEN] > 0.0) {
            ended_by_done = 1;
            break;
        }
        mine[AGREE_ELAPSED] = MPI_Wtime() - t0;
        /* A rank without samples (the root of an incast) never holds it up. */
        mine[AGREE_UNSETTLED] = converging && sampling && !converge_done(conv) ? 1.0 : 0.0;
        if (converging && sampling) {
            verdict_avg = conv->avg_precision;
            verdict_tail = conv->tail_precision;
        }
        if (done_req && mine[AGREE_DONE_SEEN] == 0.0) {
            int flag = 0;
            MPI_Test(done_req, &flag, MPI_STATUS_IGNORE);
            mine[AGREE_DONE_SEEN] = flag ? 1.0 : 0.0;
        }
        agree_post(&agreement, mine, agreed, AGREE_COUNT, MPI_DOUBLE, MPI_MAX, comm);
        if (acc)
            MPI_Barrier(comm);
        if (paced) {
            burst_iterate(k, state, burst, 1, NULL); /* warm-up */
            double t = burst_iterate(k, state, burst, iterations, durations);
            if (durations)
                account(acc, conv, durations, iterations, bytes, t, &bulk_time);
            done++;
            continue;
        }
        k->iterate(state); /* warm-up */
        double bt1 = MPI_Wtime();
        if (durations) {
            /* Measured: only the kernel and its timer reads in the loop;
             * samples are made after it. */
            for (int i = 0; i < iterations; i++) {
                double t1 = MPI_Wtime();
                k->iterate(state);
                durations[i] = MPI_Wtime() - t1;
            }
            account(acc, conv, durations, iterations, bytes, MPI_Wtime() - bt1, &bulk_time);
        } else {
            for (int i = 0; i < iterations; i++)
                k->iterate(state);
        }
        done++;
    }
    agree_wait(&agreement);
    free(durations);
    if (k->pass_end)
        k->pass_end(state);
    if (acc) {
        acc->measurements = (double)done;
        acc->timed_out = done < measurements && !settled ? 1.0 : 0.0;
        acc->converged = settled ? 1.0 : 0.0;
        if (converging && sampling) {
            acc->avg_precision = settled ? verdict_avg : conv->avg_precision;
            acc->tail_precision = settled ? verdict_tail : conv->tail_precision;
        }
        if (bytes > 0.0 && done > 0)
            stats_add_bulk(acc, bytes * (double)(done * iterations) / (bulk_time * MIB));
    }
    free(conv);
    return ended_by_done;
}
