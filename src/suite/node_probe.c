#include "suite/node_probe.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "infra/fatal.h"
#include "infra/nic_record.h"
#include "infra/pair_exchange.h"
#include "infra/pair_rounds.h"
#include "suite/record/phase_end.h"

#define TAG_NODE_PROBE 4401

/* This node's time per exchange in every round (usec; NaN: sat out), on
 * the leader of each node; leaders' ranks are node indices. */
static void probe_rounds(const run_t *run, MPI_Comm leaders, int rounds, double *mine)
{
    char *out = xcalloc(NODE_PROBE_BYTES, 1), *in = xmalloc(NODE_PROBE_BYTES);
    double each[NODE_PROBE_EXCHANGES];
    int n = run->env.nodes.n_nodes, me = run->env.nodes.my_node;
    for (int r = 0; r < rounds; r++) {
        mine[r] = NAN;
        /* Rounds apart, so only one round's pairs share the network. */
        MPI_Barrier(leaders);
        int partner = pair_rounds_partner(n, r, me);
        if (partner < 0)
            continue;
        /* untimed: first contact, connection set-up */
        pair_exchange(out, in, NODE_PROBE_BYTES, partner, TAG_NODE_PROBE, leaders);
        /* The median exchange: a rank descheduled for one exchange (noise
         * on a shared host) does not move it, a slow link slows them all. */
        for (int i = 0; i < NODE_PROBE_EXCHANGES; i++) {
            double start = MPI_Wtime();
            pair_exchange(out, in, NODE_PROBE_BYTES, partner, TAG_NODE_PROBE, leaders);
            each[i] = (MPI_Wtime() - start) * 1e6;
        }
        mine[r] = median_in_place(each, NODE_PROBE_EXCHANGES);
    }
    free(out);
    free(in);
}

void node_probe_run(run_t *run, node_probe_t *probe)
{
    memset(probe, 0, sizeof(*probe));
    int rounds = run->env.plan->set.node_probe;
    if (rounds <= 0)
        return;
    int n = run->env.nodes.n_nodes;
    int leader = run->env.nodes.my_local == 0;
    MPI_Comm leaders;
    MPI_Comm_split(run->env.world, leader ? 0 : MPI_UNDEFINED, run->env.nodes.my_node, &leaders);
    double *mine = leader ? xmalloc(sizeof(double) * (size_t)rounds) : NULL;
    MPI_Barrier(run->env.world);
    double start = MPI_Wtime();
    if (leader)
        probe_rounds(run, leaders, rounds, mine);

    /* Every leader's rounds to world rank 0, at its node's place. */
    probe->usec = nodes_gather_leaders(&run->env.nodes, run->env.world, mine, rounds);
    probe->wall_s = MPI_Wtime() - start;
    probe->rounds = rounds;
    probe->n_nodes = n;
    free(mine);
    if (leaders != MPI_COMM_NULL)
        MPI_Comm_free(&leaders);
    /* Ranks bound by gpcnet-bind: the same exchanges per NIC, rail by rail. */
    nic_record_probe(run->env.world, rounds);
    suite_phase_end(run, "node_probe", probe->wall_s);
}

/* Median of the rounds a node took part in (NaN: none). */
static double median_of_rounds(const double *v, int rounds, double *scratch)
{
    int k = 0;
    for (int r = 0; r < rounds; r++)
        if (!isnan(v[r]))
            scratch[k++] = v[r];
    return k ? median_in_place(scratch, k) : NAN;
}

void node_probe_json(json_writer_t *w, const run_t *run, const void *ctx)
{
    const node_probe_t *probe = ctx;
    if (!probe->usec)
        return;
    jw_object_begin(w, "node_probe");
    jw_int(w, "rounds", probe->rounds);
    jw_int(w, "exchanges", NODE_PROBE_EXCHANGES);
    jw_int(w, "bytes", NODE_PROBE_BYTES);
    jw_number(w, "wall_s", probe->wall_s);
    jw_array_begin(w, "nodes");
    double *scratch = xmalloc(sizeof(double) * (size_t)probe->rounds);
    for (int i = 0; i < probe->n_nodes; i++) {
        const double *v = probe->usec + (size_t)i * (size_t)probe->rounds;
        jw_object_begin(w, NULL);
        jw_int(w, "node", i);
        jw_string(w, "name", run->env.nodes.names ? run->env.nodes.names[i] : NULL);
        jw_number(w, "usec", median_of_rounds(v, probe->rounds, scratch));
        jw_array_begin(w, "partners");
        for (int r = 0; r < probe->rounds; r++) {
            int p = pair_rounds_partner(probe->n_nodes, r, i);
            if (p < 0)
                jw_null(w, NULL);
            else
                jw_int(w, NULL, p);
        }
        jw_array_end(w);
        jw_array_begin(w, "round_usec");
        for (int r = 0; r < probe->rounds; r++)
            jw_number(w, NULL, v[r]); /* NaN (sat out) is written as null */
        jw_array_end(w);
        jw_object_end(w);
    }
    free(scratch);
    jw_array_end(w);
    jw_object_end(w);
}

void node_probe_free(node_probe_t *probe)
{
    free(probe->usec);
    probe->usec = NULL;
}
