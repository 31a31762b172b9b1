#include "infra/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

static void merge_op(void *in, void *inout, int *len, MPI_Datatype *type)
{
    const stats_acc_t *src = in;
    stats_acc_t *dst = inout;
    for (int i = 0; i < *len; i++, src++, dst++) {
        dst->ranks += src->ranks;
        dst->bulk_sum += src->bulk_sum;
        dst->bulk_count += src->bulk_count;
        dst->bulk_min = fmin(dst->bulk_min, src->bulk_min);
        dst->bulk_max = fmax(dst->bulk_max, src->bulk_max);
        dst->worst_sum = fmax(dst->worst_sum, src->worst_sum);
        dst->worst_count = fmax(dst->worst_count, src->worst_count);
        dst->measurements = fmax(dst->measurements, src->measurements);
        dst->timed_out = fmax(dst->timed_out, src->timed_out);
        dst->converged = fmax(dst->converged, src->converged);
        dst->avg_precision = fmax(dst->avg_precision, src->avg_precision);
        dst->tail_precision = fmax(dst->tail_precision, src->tail_precision);
        hist_merge(&dst->hist, &src->hist);
    }
}

void stats_reduce(stats_acc_t *a, MPI_Comm comm)
{
    /* One element of a contiguous type: MPI cannot cut it into pieces, so the
     * operator always sees whole accumulators. */
    MPI_Datatype type;
    MPI_Type_contiguous((int)(sizeof(stats_acc_t) / sizeof(double)), MPI_DOUBLE, &type);
    MPI_Type_commit(&type);
    MPI_Op op;
    MPI_Op_create(merge_op, 1, &op);
    int rank;
    MPI_Comm_rank(comm, &rank);
    stats_acc_t *merged = rank == 0 ? malloc(sizeof(*merged)) : NULL;
    MPI_Reduce(a, merged, 1, type, op, 0, comm);
    if (rank == 0) {
        memcpy(a, merged, sizeof(*a));
        free(merged);
    }
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
