/* The "nics" member of the results document (infra/nic_record.h,
 * docs/results-json.md#nics), from the state nic_record.c keeps. */
#include <math.h>
#include <stdlib.h>

#include "infra/fatal.h"
#include "infra/json_writer.h"
#include "infra/nic_probe.h"
#include "infra/nic_record.h"
#include "infra/nic_state.h"

static const char *node_name(int node)
{
    return nic_state.nodes && nic_state.nodes->names ? nic_state.nodes->names[node] : NULL;
}

static int by_node_then_rail(const void *a, const void *b)
{
    const rank_nic_t *x = &nic_state.ranks[((const group_result_t *)a)->root];
    const rank_nic_t *y = &nic_state.ranks[((const group_result_t *)b)->root];
    if (x->node != y->node)
        return (x->node > y->node) - (x->node < y->node);
    return (x->rail > y->rail) - (x->rail < y->rail);
}

static int by_rail(const void *a, const void *b)
{
    int x = nic_state.ranks[((const group_result_t *)a)->root].rail;
    int y = nic_state.ranks[((const group_result_t *)b)->root].rail;
    return (x > y) - (x < y);
}

static void group_numbers(json_writer_t *w, const group_result_t *g)
{
    jw_int(w, "ranks", g->ranks);
    jw_number(w, "avg", g->avg);
    jw_number(w, "p99", g->p99);
    jw_int(w, "samples", (long long)g->samples);
}

static int probe_order(const void *a, const void *b)
{
    const rank_nic_t *x = &nic_state.ranks[*(const int *)a], *y = &nic_state.ranks[*(const int *)b];
    if (x->node != y->node)
        return (x->node > y->node) - (x->node < y->node);
    return (x->rail > y->rail) - (x->rail < y->rail);
}

/* Every NIC's time per exchange in the probe, by node then rail. */
static void write_probe(json_writer_t *w)
{
    int *at = xmalloc(sizeof(int) * (size_t)(nic_state.size > 0 ? nic_state.size : 1)), n = 0;
    /* The NIC's lowest rank stood for it (the nic communicator's rank 0). */
    size_t groups = (size_t)nic_state.nodes->n_nodes * (size_t)nic_state.n_rails;
    char *seen = xcalloc(groups > 0 ? groups : 1, 1);
    for (int i = 0; i < nic_state.size; i++) {
        const rank_nic_t *r = &nic_state.ranks[i];
        if (r->rail < 0 || seen[(size_t)r->node * (size_t)nic_state.n_rails + (size_t)r->rail]++)
            continue;
        at[n++] = i;
    }
    free(seen);
    qsort(at, (size_t)n, sizeof(int), probe_order);
    jw_object_begin(w, "probe");
    jw_int(w, "rounds", nic_state.probe_rounds);
    jw_int(w, "exchanges", NIC_PROBE_EXCHANGES);
    jw_int(w, "bytes", NIC_PROBE_BYTES);
    jw_number(w, "wall_s", nic_state.probe_wall_s);
    jw_array_begin(w, "nics");
    for (int i = 0; i < n; i++) {
        const rank_nic_t *r = &nic_state.ranks[at[i]];
        jw_object_begin(w, NULL);
        jw_string(w, "node", node_name(r->node));
        jw_string(w, "nic", r->nic);
        jw_int(w, "rail", r->rail);
        jw_number(w, "usec", nic_state.probe_usec[at[i]]);
        jw_object_end(w);
    }
    jw_array_end(w);
    jw_object_end(w);
    free(at);
}

static void write_entry(json_writer_t *w, canary_entry_t *e)
{
    jw_object_begin(w, NULL);
    jw_string(w, "table", e->table);
    jw_int(w, "repetition", e->repetition);
    jw_string(w, "test", e->test);
    jw_string(w, "unit", e->unit);
    jw_string(w, "better", e->higher_is_better ? "higher" : "lower");
    qsort(e->rails, (size_t)e->n_rails, sizeof(*e->rails), by_rail);
    jw_array_begin(w, "rails");
    for (int i = 0; i < e->n_rails; i++) {
        jw_object_begin(w, NULL);
        jw_int(w, "rail", nic_state.ranks[e->rails[i].root].rail);
        group_numbers(w, &e->rails[i]);
        jw_object_end(w);
    }
    jw_array_end(w);
    qsort(e->nics, (size_t)e->n_nics, sizeof(*e->nics), by_node_then_rail);
    jw_array_begin(w, "nics");
    for (int i = 0; i < e->n_nics; i++) {
        const rank_nic_t *r = &nic_state.ranks[e->nics[i].root];
        jw_object_begin(w, NULL);
        jw_string(w, "node", node_name(r->node));
        jw_string(w, "nic", r->nic);
        jw_int(w, "rail", r->rail);
        group_numbers(w, &e->nics[i]);
        jw_object_end(w);
    }
    jw_array_end(w);
    jw_object_end(w);
}

void nic_record_json(json_writer_t *w, const struct run *run, const void *ctx)
{
    (void)run;
    (void)ctx;
    if (!nic_state.active || !nic_state.ranks)
        return;
    jw_object_begin(w, "nics");
    jw_string(w, "source", "GPCNET_NIC");
    jw_int(w, "rails", nic_state.n_rails);
    /* Per node (not per rank: a list per rank would pass the readers'
     * 100,000-item bound at 100,000 ranks): the NIC and rail of each local
     * rank, in local rank order. */
    int n_nodes = nic_state.nodes->n_nodes;
    int *first = xcalloc((size_t)n_nodes + 1, sizeof(int));
    for (int n = 0; n < n_nodes; n++)
        first[n + 1] = first[n] + nic_state.nodes->ppn[n];
    int *rank_at = xmalloc(sizeof(int) * (size_t)(nic_state.size > 0 ? nic_state.size : 1));
    for (int i = 0; i < nic_state.size; i++)
        rank_at[first[nic_state.ranks[i].node] + nic_state.ranks[i].local] = i;
    jw_array_begin(w, "nodes");
    for (int n = 0; n < n_nodes; n++) {
        jw_object_begin(w, NULL);
        jw_string(w, "node", node_name(n));
        jw_array_begin(w, "nics");
        for (int j = first[n]; j < first[n + 1]; j++) {
            const rank_nic_t *r = &nic_state.ranks[rank_at[j]];
            jw_string(w, NULL, r->nic[0] ? r->nic : NULL);
        }
        jw_array_end(w);
        jw_array_begin(w, "rails");
        for (int j = first[n]; j < first[n + 1]; j++) {
            const rank_nic_t *r = &nic_state.ranks[rank_at[j]];
            if (r->rail >= 0)
                jw_int(w, NULL, r->rail);
            else
                jw_null(w, NULL);
        }
        jw_array_end(w);
        jw_object_end(w);
    }
    jw_array_end(w);
    free(first);
    free(rank_at);
    jw_array_begin(w, "canaries");
    for (int i = 0; i < nic_state.n_entries; i++)
        write_entry(w, &nic_state.entries[i]);
    jw_array_end(w);
    if (nic_state.probe_usec)
        write_probe(w);
    jw_object_end(w);
}
