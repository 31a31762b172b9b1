/* Multiple Allreduce: MPI_Allreduce on every node-slice communicator at
 * once, timed per operation. The published one reduces allreduce_doubles
 * (one double, 8 B); the extras (selected by name in --tests) reduce
 * collective_bytes[0] (1 MiB) or collective_bytes[1] (16 MiB) of doubles,
 * the message sizes of AI training. */
#include <stdlib.h>

#include "canary/canary.h"
#include "infra/comm_mem.h"
#include "infra/fatal.h"

typedef struct {
    MPI_Comm comm;
    int count;        /* doubles reduced */
    double *buf;      /* MPI_Alloc_mem: [in][out] */
    double *in, *out; /* the two halves of buf */
} allreduce_state_t;

static void *setup_count(MPI_Comm slice, int count)
{
    allreduce_state_t *s = xcalloc(1, sizeof(*s));
    s->comm = slice;
    s->count = count;
    s->buf = comm_alloc(2 * (size_t)s->count * sizeof(double));
    s->in = s->buf;
    s->out = s->buf + s->count;
    for (int i = 0; i < s->count; i++)
        s->in[i] = 1.0;
    return s;
}

static void *setup(MPI_Comm slice, const canary_params_t *p)
{
    return setup_count(slice, p->allreduce_doubles);
}

/* A size in bytes as whole doubles, at least one. */
static int doubles_of(long bytes)
{
    return bytes / (long)sizeof(double) > 0 ? (int)(bytes / (long)sizeof(double)) : 1;
}

static void *setup_1mib(MPI_Comm slice, const canary_params_t *p)
{
    return setup_count(slice, doubles_of(p->collective_bytes[0]));
}

static void *setup_16mib(MPI_Comm slice, const canary_params_t *p)
{
    return setup_count(slice, doubles_of(p->collective_bytes[1]));
}

/* Printed sizes: the doubles reduced, in bytes. */
static long bytes_8(const canary_params_t *p)
{
    return (long)p->allreduce_doubles * (long)sizeof(double);
}
static long bytes_1mib(const canary_params_t *p)
{
    return (long)doubles_of(p->collective_bytes[0]) * (long)sizeof(double);
}
static long bytes_16mib(const canary_params_t *p)
{
    return (long)doubles_of(p->collective_bytes[1]) * (long)sizeof(double);
}

static void teardown(void *state)
{
    allreduce_state_t *s = state;
    comm_free(s->buf);
    free(s);
}

static void iterate(void *state, int left, int right)
{
    allreduce_state_t *s = state;
    MPI_Allreduce(s->in, s->out, s->count, MPI_DOUBLE, MPI_SUM, s->comm);
}

static double per_iteration(void *state) { return 1.0; }

#define MULTIPLE_ALLREDUCE(var, id_, size_, setup_, limits_, canary_) \
    const canary_kernel_t var = {                                             \
        .id = id_,                                                            \
        .label = "Multiple Allreduce",                                        \
        .size_bytes = size_,                                                  \
        .unit = "usec",                                                       \
        .higher_is_better = 0,                                                \
        .loop = LOOP_COLLECTIVE,                                              \
        .limits = limits_,                                                    \
        .load_canary = canary_,                                               \
        .setup = setup_,                                                      \
        .teardown = teardown,                                                 \
        .iterate = iterate,                                                   \
        .per_iteration = per_iteration,                                       \
    }

#define LIMITS(nm, ni) {.measurements = nm, .rings = 1, .iterations = ni, .warmup = 1}

MULTIPLE_ALLREDUCE(multiple_allreduce, "multiple_allreduce", bytes_8, setup,
                   LIMITS(100000, 200), 1);
/* Few iterations per measurement for the extras: one 16 MiB allreduce
 * takes milliseconds, and the time limit ends the test in any case. */
MULTIPLE_ALLREDUCE(allreduce_1mib, "allreduce_1mib", bytes_1mib, setup_1mib,
                   LIMITS(10000, 8), 0);
MULTIPLE_ALLREDUCE(allreduce_16mib, "allreduce_16mib", bytes_16mib, setup_16mib, LIMITS(10000, 2), 0);
