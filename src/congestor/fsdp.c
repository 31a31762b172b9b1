/* FSDP AG+RS (not in the default mix): the traffic of sharded data-parallel
 * training (ZeRO stage 3, fully sharded data parallel), where every rank
 * keeps one shard of the parameters and gradients: before a layer's
 * compute, an MPI_Allgather of the shards gives every rank the whole
 * layer; after its backward pass, an MPI_Reduce_scatter_block sums the
 * gradients and leaves each rank its shard. One iteration is that pair,
 * shard --fsdp-shard-bytes (docs/method.md#ai-shaped-congestors). */
#include <stdlib.h>

#include "congestor/congestor.h"
#include "infra/fatal.h"

typedef struct {
    long shard_bytes;
} fsdp_params_t;

static const fsdp_params_t defaults = {.shard_bytes = 65536};

static const opt_row_t options[] = {
    {"--fsdp-shard-bytes", NULL, OPT_LT | OPT_NC, OT_LONG,
     KERNEL_FIELD(fsdp_params_t, shard_bytes, long), .given = OPT_NO_FIELD, .lo = 8,
     .hi = 64.0 * 1024 * 1024, .multiple = 8, .note = " (bytes of doubles)", .metavar = "N",
     .help = "bytes of each rank's shard (default {default})", .key = "fsdp_shard_bytes",
     .official = OPT_LT, .config = OPT_LT | OPT_NC, .label = "FSDP shard", .unit = " B"},
};

typedef struct {
    MPI_Comm comm;
    int n;
    int shard; /* doubles */
    double *layer, *shard_buf;
} fsdp_state_t;

static void *setup(MPI_Comm comm, const congestor_params_t *p)
{
    fsdp_state_t *s = xcalloc(1, sizeof(*s));
    s->comm = comm;
    MPI_Comm_size(comm, &s->n);
    s->shard = (int)(CONGESTOR_OWN(p, fsdp_params_t)->shard_bytes / (long)sizeof(double));
    s->layer = xcalloc((size_t)s->n * (size_t)s->shard, sizeof(double));
    s->shard_buf = xcalloc((size_t)s->shard, sizeof(double));
    return s;
}

static void teardown(void *state)
{
    fsdp_state_t *s = state;
    free(s->layer);
    free(s->shard_buf);
    free(s);
}

static void iterate(void *state)
{
    fsdp_state_t *s = state;
    MPI_Allgather(s->shard_buf, s->shard, MPI_DOUBLE, s->layer, s->shard, MPI_DOUBLE, s->comm);
    MPI_Reduce_scatter_block(s->layer, s->shard_buf, s->shard, MPI_DOUBLE, MPI_SUM, s->comm);
}

/* A ring algorithm's share of each: the shard to each of the n-1 others,
 * twice. */
static double bytes(void *state)
{
    fsdp_state_t *s = state;
    return 2.0 * (double)s->shard * sizeof(double) * (s->n - 1);
}

/* Printed size: the shard, not --congestor-bytes. */
static long message_bytes(const congestor_params_t *p)
{
    return CONGESTOR_OWN(p, fsdp_params_t)->shard_bytes;
}

const congestor_kernel_t fsdp = {
    .id = "fsdp",
    .label = "FSDP AG+RS",
    .message_bytes = message_bytes,
    .options = KERNEL_OPTIONS(defaults, options),
    .iterations_for = congestor_scaled_iterations, /* its volume grows with n */
    .setup = setup,
    .teardown = teardown,
    .iterate = iterate,
    .bytes_per_iteration = bytes,
};
