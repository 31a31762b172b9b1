#include "infra/stats.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "infra/fatal.h"

void stats_init(stats_acc_t *a)
{
    memset(a, 0, sizeof(*a));
    a->avg_precision = a->tail_precision = NAN; /* no --converge */
    a->bulk_min = INFINITY;
    a->bulk_max = -INFINITY;
    hist_clear(&a->hist);
}

void stats_add_bulk(stats_acc_t *a, double v)
{
    if (a->bulk_count == 0.0)
        a->ranks = 1.0;
    a->bulk_sum += v;
    a->bulk_count += 1.0;
    if (v < a->bulk_min)
        a->bulk_min = v;
    if (v > a->bulk_max)
        a->bulk_max = v;
}

/* What the reduction carries: [n][every field before the bins][n bins],
 * the bins being the span any rank of the reduction uses. A histogram has
 * 40,962 bins (320 KiB) but one test fills a few octaves of it; carrying
 * only those keeps the messages small, which is most of the cost of a
 * simulated run with thousands of ranks (SMPI copies every message into a
 * fresh buffer). n travels in the message: no state outside it, so
 * reductions on other communicators may run at the same time. */
#define FIELD(f) (offsetof(stats_acc_t, f) / sizeof(double))
#define HEAD ((int)FIELD(hist.bins))
_Static_assert(offsetof(stats_acc_t, hist.bins) % sizeof(double) == 0, "doubles only");

static void merge_op(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    const double *src = in;
    double *dst = inout;
    for (int e = 0; e < *len; e++) {
        int n = (int)src[0];
        const double *s = src + 1;
        double *d = dst + 1;
        for (int f = 0; f < HEAD; f++) {
            if (f == FIELD(ranks) || f == FIELD(bulk_sum) || f == FIELD(bulk_count) ||
                f == FIELD(hist.count) || f == FIELD(hist.sum))
                d[f] += s[f];
            else if (f == FIELD(bulk_min) || f == FIELD(hist.min))
                d[f] = fmin(d[f], s[f]);
            else /* the maxima, and the agreed values (same on every rank) */
                d[f] = fmax(d[f], s[f]);
        }
        for (int b = 0; b < n; b++)
            d[HEAD + b] += s[HEAD + b];
        src += 1 + HEAD + n;
        dst += 1 + HEAD + n;
    }
}

void stats_reduce(stats_acc_t *a, MPI_Comm comm)
{
    int lo = HIST_BUCKETS, hi = -1;
    for (int b = 0; b < HIST_BUCKETS; b++) {
        if (a->hist.bins[b] != 0.0) {
            if (lo == HIST_BUCKETS)
                lo = b;
            hi = b;
        }
    }
    int span[2] = {-lo, hi};
    MPI_Allreduce(MPI_IN_PLACE, span, 2, MPI_INT, MPI_MAX, comm);
    lo = -span[0];
    hi = span[1];
    int n = hi >= lo ? hi - lo + 1 : 0;

    /* One element of a contiguous type: MPI cannot cut it into pieces, so the
     * operator always sees whole accumulators. */
    size_t count = (size_t)(1 + HEAD + n);
    double *mine = xmalloc(sizeof(double) * count);
    mine[0] = (double)n;
    memcpy(mine + 1, a, sizeof(double) * (size_t)HEAD);
    if (n > 0)
        memcpy(mine + 1 + HEAD, &a->hist.bins[lo], sizeof(double) * (size_t)n);
    MPI_Datatype type;
    MPI_Type_contiguous((int)count, MPI_DOUBLE, &type);
    MPI_Type_commit(&type);
    MPI_Op op;
    MPI_Op_create(merge_op, 1, &op);
    int rank;
    MPI_Comm_rank(comm, &rank);
    double *merged = rank == 0 ? xmalloc(sizeof(double) * count) : NULL;
    MPI_Reduce(mine, merged, 1, type, op, 0, comm);
    if (rank == 0) {
        /* The bins outside the span are zero on every rank, rank 0 too. */
        memcpy(a, merged + 1, sizeof(double) * (size_t)HEAD);
        if (n > 0)
            memcpy(&a->hist.bins[lo], merged + 1 + HEAD, sizeof(double) * (size_t)n);
        free(merged);
    }
    free(mine);
    MPI_Op_free(&op);
    MPI_Type_free(&type);
}

void stats_to_result(const stats_acc_t *a, result_t *r)
{
    int hib = r->higher_is_better;
    r->ranks = (int)a->ranks;
    r->measurements = (long)a->measurements;
    r->timed_out = a->timed_out > 0.0;
    r->converged = a->converged > 0.0;
    r->avg_precision = a->avg_precision;
    r->tail_precision = a->tail_precision;
    r->avg = a->bulk_count > 0.0 ? a->bulk_sum / a->bulk_count : NAN;
    r->min = a->bulk_count > 0.0 ? a->bulk_min : NAN;
    r->max = a->bulk_count > 0.0 ? a->bulk_max : NAN;
    /* Tests with one bulk value per rank (collectives, congestors) have a
     * single (m, r): its worst rank is the extreme of the bulk values. */
    if (a->worst_count > 0.0)
        r->avg_worst = a->worst_sum / a->worst_count;
    else
        r->avg_worst = hib ? r->min : r->max;
    r->p99 = hist_tail(&a->hist, 0.99, hib);
    r->p999 = hist_tail(&a->hist, 0.999, hib);
    r->median = hist_median(&a->hist);
    memcpy(&r->hist, &a->hist, sizeof(hist_t));
}

void result_deliver(result_t *r, int am_holder, int tag, MPI_Comm world)
{
    int rank;
    MPI_Comm_rank(world, &rank);
    if (am_holder && rank == 0)
        return;
    if (am_holder)
        MPI_Send(r, (int)sizeof(*r), MPI_BYTE, 0, tag, world);
    else if (rank == 0)
        MPI_Recv(r, (int)sizeof(*r), MPI_BYTE, MPI_ANY_SOURCE, tag, world, MPI_STATUS_IGNORE);
}
