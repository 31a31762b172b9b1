#include "congestor/flows.h"

#include <stdio.h>
#include <stdlib.h>

#include "infra/comm_mem.h"
#include "infra/fatal.h"

#define FLOW_TAG 988

typedef struct {
    MPI_Comm comm;
    int n_out, n_in;
    int count;      /* doubles per message */
    int *to, *from; /* ranks in comm */
    double *send, *recv;
    MPI_Request *req;
} flows_state_t;

/* World rank of (node, local), or -1 when that node has no such rank. */
static int rank_of(int node, int local, const int *node_of_rank, const int *local_of_rank,
                   int size)
{
    for (int r = 0; r < size; r++)
        if (node_of_rank[r] == node && local_of_rank[r] == local)
            return r;
    return -1;
}

void *flows_state_new(MPI_Comm comm, MPI_Comm world, const int *pairs, int n_flows, int my_node,
                      int my_local, const int *node_of_rank, const int *local_of_rank, int size,
                      const congestor_params_t *p)
{
    flows_state_t *s = xcalloc(1, sizeof(*s));
    s->comm = comm;
    s->count = (int)congestor_message_doubles(p);
    s->to = xmalloc(sizeof(int) * (size_t)n_flows);
    s->from = xmalloc(sizeof(int) * (size_t)n_flows);
    MPI_Group wg, cg;
    MPI_Comm_group(world, &wg);
    MPI_Comm_group(comm, &cg);
    for (int i = 0; i < n_flows; i++) {
        int src = pairs[2 * i], dst = pairs[2 * i + 1];
        int peer = -1, *list = NULL, *count = NULL;
        if (src == my_node) {
            peer = rank_of(dst, my_local, node_of_rank, local_of_rank, size);
            list = s->to;
            count = &s->n_out;
        } else if (dst == my_node) {
            peer = rank_of(src, my_local, node_of_rank, local_of_rank, size);
            list = s->from;
            count = &s->n_in;
        }
        if (peer < 0)
            continue;
        int in_comm;
        MPI_Group_translate_ranks(wg, 1, &peer, cg, &in_comm);
        list[(*count)++] = in_comm;
    }
    MPI_Group_free(&wg);
    MPI_Group_free(&cg);
    size_t bytes = (size_t)s->count * sizeof(double);
    s->send = comm_alloc_payload(bytes);
    s->recv = comm_alloc_payload(bytes * (size_t)(s->n_in > 0 ? s->n_in : 1));
    s->req = xcalloc((size_t)(s->n_in + s->n_out + 1), sizeof(MPI_Request));
    return s;
}

int flows_involve(const int *pairs, int n_flows, int node)
{
    for (int i = 0; i < n_flows; i++)
        if (pairs[2 * i] == node || pairs[2 * i + 1] == node)
            return 1;
    return 0;
}

static void iterate(void *state)
{
    flows_state_t *s = state;
    int n = 0;
    for (int i = 0; i < s->n_in; i++)
        MPI_Irecv(s->recv + (size_t)i * s->count, s->count, MPI_DOUBLE,
                  s->from[i], FLOW_TAG, s->comm, &s->req[n++]);
    for (int i = 0; i < s->n_out; i++)
        MPI_Isend(s->send, s->count, MPI_DOUBLE, s->to[i], FLOW_TAG, s->comm,
                  &s->req[n++]);
    MPI_Waitall(n, s->req, MPI_STATUSES_IGNORE);
}

static double bytes_per_iteration(void *state)
{
    flows_state_t *s = state;
    return (double)s->n_out * s->count * sizeof(double);
}

static void teardown(void *state)
{
    flows_state_t *s = state;
    comm_free_payload(s->send);
    comm_free_payload(s->recv);
    free(s->req);
    free(s->to);
    free(s->from);
    free(s);
}

/* Rounds of 8 iterations: a stop is agreed within one round even on a slow,
 * tapered link (network_congestor --congestor-iterations changes it). */
static int round_iterations(int base, int n)
{
    (void)n;
    return base == CONGESTOR_BASE_ITERATIONS ? FLOWS_ROUND_ITERATIONS : base;
}

int flows_busiest(const int *pairs, int n_flows, int n_nodes)
{
    int *degree = xcalloc((size_t)(n_nodes > 0 ? n_nodes : 1), sizeof(int));
    int most = 0;
    for (int i = 0; i < 2 * n_flows; i++)
        if (pairs[i] >= 0 && pairs[i] < n_nodes && ++degree[pairs[i]] > most)
            most = degree[pairs[i]];
    free(degree);
    return most;
}

int flows_round_iterations(int base, int busiest)
{
    if (base != CONGESTOR_BASE_ITERATIONS)
        return base; /* --congestor-iterations: the user's round */
    int fit = busiest > 0 ? FLOWS_ROUND_MESSAGES / busiest : FLOWS_ROUND_ITERATIONS;
    return fit < 1 ? 1 : fit > FLOWS_ROUND_ITERATIONS ? FLOWS_ROUND_ITERATIONS : fit;
}

const congestor_kernel_t flows_kernel = {
    .id = "flows",
    .label = "Flows",
    .default_mix = 0,
    .iterations_for = round_iterations,
    .setup = NULL, /* flows_state_new: it needs the flow list */
    .teardown = teardown,
    .iterate = iterate,
    .bytes_per_iteration = bytes_per_iteration,
};
