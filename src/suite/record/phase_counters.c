#include "suite/record/phase_counters.h"

#include <stdlib.h>
#include <string.h>

#include "infra/fatal.h"

static int leader_world_rank(const run_t *run, int node)
{
    for (int r = 0; r < run->env.size; r++)
        if (run->env.nodes.node_of_rank[r] == node && run->env.nodes.local_of_rank[r] == 0)
            return r;
    return 0;
}

void phase_counters_begin(run_t *run)
{
    run->counters.counting = 1;
    if (run->env.nodes.my_local == 0)
        netctr_sample(&run->counters.before, NULL);
}

void phase_counters_end(run_t *run)
{
    run->counters.counting = 0;
    if (run->counters.leaders == MPI_COMM_NULL && !run->counters.split) {
        /* Node order in the leaders' communicator: leader i is node i. */
        MPI_Comm_split(run->env.world, run->env.nodes.my_local == 0 ? 0 : MPI_UNDEFINED, run->env.nodes.my_node,
                       &run->counters.leaders);
        run->counters.split = 1;
    }
    netctr_sample_t after, delta;
    netctr_sample_t *all = NULL;
    int root_world = leader_world_rank(run, 0);
    if (run->counters.leaders != MPI_COMM_NULL) {
        netctr_sample(&after, NULL);
        netctr_delta(&run->counters.before, &after, &delta);
        int lrank;
        MPI_Comm_rank(run->counters.leaders, &lrank);
        if (lrank == 0)
            all = xmalloc(sizeof(netctr_sample_t) * (size_t)run->env.nodes.n_nodes);
        MPI_Gather(&delta, (int)sizeof(delta), MPI_BYTE, all, (int)sizeof(delta), MPI_BYTE, 0,
                   run->counters.leaders);
    }
    if (root_world != 0) {
        /* The world's rank 0 writes the JSON: hand it the deltas. */
        size_t bytes = sizeof(netctr_sample_t) * (size_t)run->env.nodes.n_nodes;
        if (run->env.rank == root_world) {
            MPI_Send(all, (int)bytes, MPI_BYTE, 0, 0, run->env.world);
            free(all);
            all = NULL;
        } else if (run->env.rank == 0) {
            all = xmalloc(bytes);
            MPI_Recv(all, (int)bytes, MPI_BYTE, root_world, 0, run->env.world, MPI_STATUS_IGNORE);
        }
    }
    if (run->env.rank == 0) {
        free(run->counters.pending);
        run->counters.pending = all;
    }
}

void phase_counters_json(json_writer_t *w, const run_t *run, const netctr_sample_t *by_node)
{
    jw_object_begin(w, "counters");
    for (int n = 0; n < run->env.nodes.n_nodes; n++) {
        const netctr_sample_t *s = &by_node[n];
        jw_object_begin(w, run->env.nodes.names[n]);
        for (int i = 0; i < s->n; i++) {
            const netctr_port_t *p = &s->port[i];
            jw_object_begin(w, p->name);
            jw_string(w, "kind", p->kind == NETCTR_IB ? "infiniband" : "interface");
            for (int f = 0; f < NETCTR_FIELDS; f++)
                if (p->present & (1u << f))
                    jw_int(w, netctr_field_name(p->kind, f), (long long)p->v[f]);
            if (p->wrapped) {
                jw_array_begin(w, "wrapped");
                for (int f = 0; f < NETCTR_FIELDS; f++)
                    if (p->wrapped & (1u << f))
                        jw_string(w, NULL, netctr_field_name(p->kind, f));
                jw_array_end(w);
            }
            jw_object_end(w);
        }
        if (s->truncated)
            jw_bool(w, "truncated", 1);
        jw_object_end(w);
    }
    jw_object_end(w);
}

void phase_counters_free(run_t *run)
{
    free(run->counters.pending);
    run->counters.pending = NULL;
    if (run->counters.leaders != MPI_COMM_NULL)
        MPI_Comm_free(&run->counters.leaders);
}
