/* RR Two-sided Lat (8 B): exchange one message (latency_doubles: one
 * double) with both ring neighbours. */
#include <stdlib.h>

#include "canary/canary.h"
#include "canary/ring_buffers.h"
#include "infra/comm_mem.h"
#include "infra/fatal.h"

typedef struct {
    MPI_Comm comm;
    int count;   /* doubles per message */
    double *buf; /* MPI_Alloc_mem: [from left][from right][to left][to right] */
    double *from_left, *from_right, *to_left, *to_right; /* the four in buf */
    MPI_Request req[4];
} lat_state_t;

static void *setup(MPI_Comm slice, const canary_params_t *p)
{
    lat_state_t *s = xcalloc(1, sizeof(*s));
    s->comm = slice;
    s->count = p->latency_doubles;
    s->buf = comm_alloc(4 * (size_t)s->count * sizeof(double));
    s->from_left = s->buf;
    s->from_right = s->buf + s->count;
    s->to_left = s->buf + 2 * s->count;
    s->to_right = s->buf + 3 * s->count;
    return s;
}

static void teardown(void *state)
{
    lat_state_t *s = state;
    comm_free(s->buf);
    free(s);
}

static void iterate(void *state, int left, int right)
{
    lat_state_t *s = state;
    const int count = s->count;
    MPI_Irecv(s->from_left, count, MPI_DOUBLE, left, TAG_FROM_LEFT, s->comm, &s->req[0]);
    MPI_Irecv(s->from_right, count, MPI_DOUBLE, right, TAG_FROM_RIGHT, s->comm, &s->req[1]);
    MPI_Isend(s->to_left, count, MPI_DOUBLE, left, TAG_FROM_RIGHT, s->comm, &s->req[2]);
    MPI_Isend(s->to_right, count, MPI_DOUBLE, right, TAG_FROM_LEFT, s->comm, &s->req[3]);
    MPI_Waitall(4, s->req, MPI_STATUSES_IGNORE);
}

/* Printed size: one message. */
static long message_bytes(const canary_params_t *p)
{
    return (long)p->latency_doubles * (long)sizeof(double);
}

/* One iteration is two latencies: one per neighbour. */
static double per_iteration(void *state) { return 2.0; }

const canary_kernel_t rr_two_sided_lat = {
    .id = "rr_two_sided_lat",
    .label = "RR Two-sided Lat",
    .size_bytes = message_bytes,
    .unit = "usec",
    .higher_is_better = 0,
    .loop = LOOP_RANDOM_RING,
    .limits = {.measurements = 10000, .rings = 30, .iterations = 200, .warmup = 200},
    .load_canary = 1,
    .setup = setup,
    .teardown = teardown,
    .iterate = iterate,
    .per_iteration = per_iteration,
};
