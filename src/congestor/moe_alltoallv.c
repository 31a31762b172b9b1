/* MoE Alltoallv (not in the default mix): the token dispatch of
 * expert-parallel Mixture-of-Experts training, an all-to-all whose
 * per-destination sizes are uneven because the router sends more tokens
 * to popular experts. Modelled on the expert-parallel all-to-all as
 * Mixture-of-Experts training runs it (docs/method.md#ai-shaped-congestors):
 * every rank sends to every rank with MPI_Alltoallv, and destination d
 * receives --moe-skew^(-d/(n-1)) of the most popular one's share, scaled
 * so that the mean message is --congestor-bytes. Every sender favours the
 * same experts (ranks 0, 1, ... in that order), so the popular ones also
 * see an incast. */
#include <math.h>
#include <stdlib.h>

#include "congestor/congestor.h"
#include "infra/fatal.h"

typedef struct {
    double skew;
} moe_params_t;

static const moe_params_t defaults = {.skew = 4.0};

static const opt_row_t options[] = {
    {"--moe-skew", NULL, OPT_LT | OPT_NC, OT_DOUBLE, KERNEL_FIELD(moe_params_t, skew, double),
     .given = OPT_NO_FIELD, .lo = 1.0, .hi = 64.0, .what = "a ratio", .metavar = "S",
     .help = "the most popular expert's message over the least\n"
             "popular's; the mean stays --congestor-bytes\n"
             "(default {default})",
     .key = "moe_skew", .official = OPT_LT, .config = OPT_LT | OPT_NC, .label = "MoE skew"},
};

typedef struct {
    MPI_Comm comm;
    int rank, n;
    int *send_counts, *send_displs, *recv_counts, *recv_displs;
    double *send, *recv;
    double bytes; /* to the others, per iteration */
} moe_state_t;

/* Doubles to destination d of n: its popularity share of the mean. */
static int share(double skew, int d, int n, long mean_doubles)
{
    double total = 0.0;
    for (int k = 0; k < n; k++)
        total += pow(skew, n > 1 ? -(double)k / (n - 1) : 0.0);
    double w = pow(skew, n > 1 ? -(double)d / (n - 1) : 0.0) * n / total;
    long count = lround((double)mean_doubles * w);
    return count < 1 ? 1 : (int)count;
}

static void *setup(MPI_Comm comm, const congestor_params_t *p)
{
    const moe_params_t *own = CONGESTOR_OWN(p, moe_params_t);
    moe_state_t *s = xcalloc(1, sizeof(*s));
    s->comm = comm;
    MPI_Comm_rank(comm, &s->rank);
    MPI_Comm_size(comm, &s->n);
    s->send_counts = xcalloc((size_t)s->n, sizeof(int));
    s->send_displs = xcalloc((size_t)s->n, sizeof(int));
    s->recv_counts = xcalloc((size_t)s->n, sizeof(int));
    s->recv_displs = xcalloc((size_t)s->n, sizeof(int));
    long mean = congestor_message_doubles(p);
    int mine = share(own->skew, s->rank, s->n, mean); /* from every sender */
    size_t sent = 0, received = 0;
    for (int d = 0; d < s->n; d++) {
        s->send_counts[d] = share(own->skew, d, s->n, mean);
        s->recv_counts[d] = mine;
        if ((long long)sent + s->send_counts[d] > 2147483647LL ||
            (long long)received + mine > 2147483647LL)
            die("moe_alltoallv: more than 2^31 doubles per rank; lower --congestor-bytes");
        s->send_displs[d] = (int)sent;
        s->recv_displs[d] = (int)received;
        sent += (size_t)s->send_counts[d];
        received += (size_t)mine;
        if (d != s->rank)
            s->bytes += (double)s->send_counts[d] * sizeof(double);
    }
    s->send = xcalloc(sent, sizeof(double));
    s->recv = xcalloc(received, sizeof(double));
    return s;
}

static void teardown(void *state)
{
    moe_state_t *s = state;
    free(s->send_counts);
    free(s->send_displs);
    free(s->recv_counts);
    free(s->recv_displs);
    free(s->send);
    free(s->recv);
    free(s);
}

static void iterate(void *state)
{
    moe_state_t *s = state;
    MPI_Alltoallv(s->send, s->send_counts, s->send_displs, MPI_DOUBLE, s->recv, s->recv_counts,
                  s->recv_displs, MPI_DOUBLE, s->comm);
}

static double bytes(void *state) { return ((moe_state_t *)state)->bytes; }

const congestor_kernel_t moe_alltoallv = {
    .id = "moe_alltoallv",
    .label = "MoE Alltoallv",
    .options = KERNEL_OPTIONS(defaults, options),
    .iterations_for = congestor_scaled_iterations, /* its volume grows with n, as Alltoall's */
    .setup = setup,
    .teardown = teardown,
    .iterate = iterate,
    .bytes_per_iteration = bytes,
};
