/* Pipeline P2P (not in the default mix): the traffic of pipeline-parallel
 * training, where each rank is one stage of a chain of layers: in the
 * steady state of a one-forward-one-backward schedule every stage sends
 * its activations to the next stage and its gradients to the previous
 * one, and receives theirs. One iteration is that pair of neighbour
 * exchanges (MPI_Sendrecv forward, then backward) of --pipeline-bytes
 * (docs/method.md#ai-shaped-congestors). The first and the last stage have
 * one neighbour. Where the ranks of each node are consecutive and every
 * node has as many, consecutive stages are on different nodes (stage s on
 * node s mod nodes), as a pipeline spans nodes; otherwise the chain is in
 * rank order. */
#include <stdlib.h>

#include "congestor/congestor.h"
#include "infra/fatal.h"

typedef struct {
    long activation_bytes;
} pipeline_params_t;

static const pipeline_params_t defaults = {.activation_bytes = 262144};

static const opt_row_t options[] = {
    {"--pipeline-bytes", NULL, OPT_LT | OPT_NC, OT_LONG,
     KERNEL_FIELD(pipeline_params_t, activation_bytes, long), .given = OPT_NO_FIELD, .lo = 8,
     .hi = 64.0 * 1024 * 1024, .multiple = 8, .note = " (bytes of doubles)", .metavar = "N",
     .help = "bytes a stage sends each way (default {default})", .key = "pipeline_bytes",
     .official = OPT_LT, .config = OPT_LT | OPT_NC, .label = "pipeline message", .unit = " B"},
};

typedef struct {
    MPI_Comm comm;
    int prev, next; /* ranks of the neighbour stages, or MPI_PROC_NULL */
    int count;      /* doubles */
    double *send, *recv;
} pipeline_state_t;

/* The rank of stage s: across the nodes first when the layout allows. */
static int rank_of_stage(int s, int n, int per_node)
{
    if (!per_node)
        return s;
    int nodes = n / per_node;
    return (s % nodes) * per_node + s / nodes;
}

/* Ranks per node when every node has that many, consecutively; else 0. */
static int uniform_nodes(MPI_Comm comm, int rank, int n)
{
    MPI_Comm local;
    int local_rank, local_size;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &local);
    MPI_Comm_rank(local, &local_rank);
    MPI_Comm_size(local, &local_size);
    MPI_Comm_free(&local);
    int ok = n % local_size == 0 && rank == rank / local_size * local_size + local_rank;
    int sizes[2] = {local_size, -local_size}, all_ok;
    MPI_Allreduce(MPI_IN_PLACE, sizes, 2, MPI_INT, MPI_MAX, comm);
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, comm);
    return all_ok && sizes[0] == -sizes[1] ? local_size : 0;
}

static void *setup(MPI_Comm comm, const congestor_params_t *p)
{
    pipeline_state_t *s = xcalloc(1, sizeof(*s));
    int rank, n;
    s->comm = comm;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &n);
    int per_node = uniform_nodes(comm, rank, n);
    int stage = 0;
    while (rank_of_stage(stage, n, per_node) != rank)
        stage++;
    s->prev = stage > 0 ? rank_of_stage(stage - 1, n, per_node) : MPI_PROC_NULL;
    s->next = stage < n - 1 ? rank_of_stage(stage + 1, n, per_node) : MPI_PROC_NULL;
    s->count = (int)(CONGESTOR_OWN(p, pipeline_params_t)->activation_bytes / (long)sizeof(double));
    s->send = xcalloc((size_t)s->count, sizeof(double));
    s->recv = xcalloc((size_t)s->count, sizeof(double));
    return s;
}

static void teardown(void *state)
{
    pipeline_state_t *s = state;
    free(s->send);
    free(s->recv);
    free(s);
}

static void iterate(void *state)
{
    pipeline_state_t *s = state;
    /* Activations forward, then gradients back. */
    MPI_Sendrecv(s->send, s->count, MPI_DOUBLE, s->next, 988, s->recv, s->count, MPI_DOUBLE,
                 s->prev, 988, s->comm, MPI_STATUS_IGNORE);
    MPI_Sendrecv(s->send, s->count, MPI_DOUBLE, s->prev, 989, s->recv, s->count, MPI_DOUBLE,
                 s->next, 989, s->comm, MPI_STATUS_IGNORE);
}

static double bytes(void *state)
{
    pipeline_state_t *s = state;
    int sends = (s->prev != MPI_PROC_NULL) + (s->next != MPI_PROC_NULL);
    return (double)sends * s->count * sizeof(double);
}

/* Printed size: the activations, not --congestor-bytes. */
static long message_bytes(const congestor_params_t *p)
{
    return CONGESTOR_OWN(p, pipeline_params_t)->activation_bytes;
}

const congestor_kernel_t pipeline = {
    .id = "pipeline",
    .label = "Pipeline P2P",
    .message_bytes = message_bytes,
    .options = KERNEL_OPTIONS(defaults, options),
    .iterations_for = congestor_unscaled_iterations, /* a stage's volume does not grow with n */
    .setup = setup,
    .teardown = teardown,
    .iterate = iterate,
    .bytes_per_iteration = bytes,
};
