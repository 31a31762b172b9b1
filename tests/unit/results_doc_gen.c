/* A results document of a default network_load_test at the size of the
 * largest machines, written by the programs' own writer
 * (suite/results_json.c and the sections it calls: the placement, every
 * table row with its histogram, per-node network counters of every phase,
 * the node probe, and the per-NIC record of ranks bound by gpcnet-bind),
 * with made-up numbers: no MPI call is made. The readers' bounds
 * (python/gpcnet/results_json/results_limits.py,
 * python/gpcnet/infra/reading.py) are derived from this size;
 * tests/security/test_machine_scale.py reads the document back with every
 * command.
 *
 * results_doc_gen OUT.json NODES NICS_PER_NODE RANKS PROBE_ROUNDS
 *
 * RANKS are spread over the nodes as evenly as they go (the first
 * RANKS % NODES nodes get one more); local rank j uses NIC j % NICS. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "infra/fatal.h"
#include "infra/histogram.h"
#include "infra/nic_record.h"
#include "infra/nic_state.h"
#include "infra/pair_rounds.h"
#include "infra/placement.h"
#include "suite/load_test/load_summary.h"
#include "suite/node_probe.h"
#include "suite/options/option_parse.h"
#include "suite/record/results_json.h"
#include "suite/run_plan.h"
#include "suite/record/run_record.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static double uniform(void) /* [0, 1) */
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}

/* A latency-like spread: most samples near base, a long tail over a few
 * octaves, as the tables' rows have. */
static double sample(double base)
{
    double u = uniform();
    return base * (1.0 + 0.3 * uniform()) * (u < 0.99 ? 1.0 : 1.0 + 30.0 * uniform());
}

static void fill_result(result_t *r, double base, int ranks)
{
    hist_clear(&r->hist);
    double sum = 0.0;
    enum { SAMPLES = 200000 };
    for (int i = 0; i < SAMPLES; i++) {
        double v = sample(base);
        hist_add(&r->hist, v);
        sum += v;
    }
    r->avg = sum / SAMPLES;
    r->p99 = hist_tail(&r->hist, 0.99, r->higher_is_better);
    r->p999 = hist_tail(&r->hist, 0.999, r->higher_is_better);
    r->median = hist_median(&r->hist);
    r->min = r->hist.min;
    r->max = r->hist.max;
    r->avg_worst = r->avg * 1.2;
    r->ranks = ranks;
    r->measurements = 10;
    r->rings = 30;
    r->iterations = 200;
    r->wall_s = 12.5;
    r->avg_precision = r->tail_precision = NAN;
}

/* Every node's counter deltas of one phase: NICS interfaces (at most the
 * 8 a node records), all four fields. */
static netctr_sample_t *phase_counters(int n_nodes, int nics)
{
    netctr_sample_t *all = xcalloc((size_t)n_nodes, sizeof(*all));
    for (int n = 0; n < n_nodes; n++) {
        all[n].n = nics < NETCTR_MAX_PORTS ? nics : NETCTR_MAX_PORTS;
        all[n].truncated = nics > NETCTR_MAX_PORTS;
        for (int p = 0; p < all[n].n; p++) {
            netctr_port_t *port = &all[n].port[p];
            snprintf(port->name, sizeof(port->name), "hsn%d", p);
            port->kind = NETCTR_NET;
            port->present = (1u << NETCTR_FIELDS) - 1;
            port->v[0] = (uint64_t)(1e11 * (1.0 + uniform()));
            port->v[1] = (uint64_t)(1e11 * (1.0 + uniform()));
            port->v[2] = (uint64_t)(10.0 * uniform());
            port->v[3] = (uint64_t)(10.0 * uniform());
        }
    }
    return all;
}

static void phase(run_t *run, const char *name, int nics)
{
    run->counters.pending = phase_counters(run->env.nodes.n_nodes, nics);
    run_record_phase(run, name, 20.0 + uniform());
}

static void nodes_of(nodes_t *nd, int n_nodes, int ranks)
{
    memset(nd, 0, sizeof(*nd));
    nd->n_nodes = n_nodes;
    nd->ppn = xcalloc((size_t)n_nodes, sizeof(int));
    nd->node_of_rank = xmalloc(sizeof(int) * (size_t)ranks);
    nd->local_of_rank = xmalloc(sizeof(int) * (size_t)ranks);
    nd->names = xcalloc((size_t)n_nodes, NODE_NAME_LEN);
    for (int w = 0, n = 0; n < n_nodes; n++) {
        nd->ppn[n] = ranks / n_nodes + (n < ranks % n_nodes);
        snprintf(nd->names[n], NODE_NAME_LEN, "nid%06d", n + 1);
        for (int j = 0; j < nd->ppn[n]; j++, w++) {
            nd->node_of_rank[w] = n;
            nd->local_of_rank[w] = j;
        }
    }
    nd->ppn_min = ranks / n_nodes;
    nd->ppn_max = ranks / n_nodes + (ranks % n_nodes != 0);
    nd->n_hosts = n_nodes;
    snprintf(nd->hostname, sizeof(nd->hostname), "%s", nd->names[0]);
}

/* gpcnet-bind's record: every rank's NIC, and one entry per canary test
 * with a group per rail and per NIC of every node. */
static void nic_record_of(const run_t *run, int nics, int rounds)
{
    int size = run->env.size, n_nodes = run->env.nodes.n_nodes;
    nic_state.active = 1;
    nic_state.n_rails = nics;
    nic_state.size = size;
    nic_state.nodes = &run->env.nodes;
    nic_state.ranks = xcalloc((size_t)size, sizeof(rank_nic_t));
    int *root = xmalloc(sizeof(int) * (size_t)n_nodes * (size_t)nics); /* (node, rail) -> rank */
    for (size_t i = 0; i < (size_t)n_nodes * (size_t)nics; i++)
        root[i] = -1;
    for (int w = size - 1; w >= 0; w--) {
        rank_nic_t *r = &nic_state.ranks[w];
        r->node = run->env.nodes.node_of_rank[w];
        r->local = run->env.nodes.local_of_rank[w];
        r->rail = r->local % nics;
        snprintf(r->nic, sizeof(r->nic), "hsn%d", r->rail);
        root[(size_t)r->node * (size_t)nics + (size_t)r->rail] = w;
    }
    int n_groups = 0;
    for (size_t i = 0; i < (size_t)n_nodes * (size_t)nics; i++)
        n_groups += root[i] >= 0;
    const char *tables[] = {"isolated", "loaded"};
    nic_state.n_entries = nic_state.cap_entries = 2 * run->env.plan->n_tests;
    nic_state.entries = xcalloc((size_t)nic_state.n_entries, sizeof(canary_entry_t));
    for (int e = 0; e < nic_state.n_entries; e++) {
        canary_entry_t *c = &nic_state.entries[e];
        const canary_plan_t *t = &run->env.plan->tests[e % run->env.plan->n_tests];
        result_t skeleton;
        result_for_canary(&skeleton, t);
        snprintf(c->table, sizeof(c->table), "%s", tables[e / run->env.plan->n_tests]);
        snprintf(c->test, sizeof(c->test), "%s", t->kernel->id);
        snprintf(c->unit, sizeof(c->unit), "%s", skeleton.unit);
        c->repetition = 1;
        c->higher_is_better = skeleton.higher_is_better;
        c->n_rails = nics;
        c->rails = xcalloc((size_t)nics, sizeof(group_result_t));
        for (int r = 0; r < nics; r++)
            c->rails[r] = (group_result_t){root[r], size / nics, 3.0 + uniform(), 9.0 + uniform(), 2e6};
        c->n_nics = n_groups;
        c->nics = xcalloc((size_t)n_groups, sizeof(group_result_t));
        for (size_t i = 0, k = 0; i < (size_t)n_nodes * (size_t)nics; i++)
            if (root[i] >= 0)
                c->nics[k++] = (group_result_t){root[i], 1 + (run->env.nodes.ppn_max > nics),
                                                3.0 + uniform(), 9.0 + 3.0 * uniform(),
                                                floor(2000.0 + 100.0 * uniform())};
    }
    if (rounds > 0) {
        nic_state.probe_rounds = rounds;
        nic_state.probe_wall_s = 100.0;
        nic_state.probe_usec = xmalloc(sizeof(double) * (size_t)size);
        for (int w = 0; w < size; w++)
            nic_state.probe_usec[w] = NAN;
        for (size_t i = 0; i < (size_t)n_nodes * (size_t)nics; i++)
            if (root[i] >= 0)
                nic_state.probe_usec[root[i]] = 40.0 + uniform();
    }
    free(root);
}

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: results_doc_gen OUT.json NODES NICS_PER_NODE RANKS PROBE_ROUNDS\n");
        return 2;
    }
    int n_nodes = atoi(argv[2]), nics = atoi(argv[3]), ranks = atoi(argv[4]), rounds = atoi(argv[5]);
    if (n_nodes < 16 || nics < 1 || ranks < n_nodes || rounds < 0) {
        fprintf(stderr, "results_doc_gen: NODES >= 16, NICS_PER_NODE >= 1, RANKS >= NODES, ROUNDS >= 0\n");
        return 2;
    }
    static run_t run;
    static run_plan_t plan;
    options_defaults(&run.env.opt, PROGRAM_NETWORK_LOAD_TEST);
    run.env.opt.set.node_probe = rounds;
    run.env.opt.set.force = 1;
    run_plan_build(&plan, &run.env.opt, PROGRAM_NETWORK_LOAD_TEST, 12345);
    plan.set.nics_per_node = nics;
    snprintf(plan.set.output_dir, sizeof(plan.set.output_dir), "results");
    run.env.plan = &plan;
    run.env.program = PROGRAM_NETWORK_LOAD_TEST;
    run.env.size = ranks;
    run.repetition = 1;
    run.env.started = 1764979200;
    run.finished = run.env.started + 3600;
    run.env.setup_s = 42.0;
    run.status = "complete";
    run.env.mpi_thread_level = "single";
    snprintf(run.env.json_path, sizeof(run.env.json_path), "%s", argv[1]);
    snprintf(run.env.mpi_library, sizeof(run.env.mpi_library), "MPICH Version: 4.1.2");
    snprintf(run.env.mpi_standard, sizeof(run.env.mpi_standard), "4.0");
    nodes_of(&run.env.nodes, n_nodes, ranks);
    if (placement_compute(&run.placement, run_seed(&run), n_nodes, plan.set.canary_fraction, plan.n_congestors,
                          plan.weights) != 0) {
        fprintf(stderr, "results_doc_gen: too few nodes for the default placement\n");
        return 2;
    }
    run.have_placement = 1;

    /* As network_load_test runs: the isolated canaries, each congestor
     * alone, then the canaries beside the congestors. */
    int canary_ranks = run.placement.n_canary_nodes * run.env.nodes.ppn_min;
    static result_t r;
    char name[160];
    for (int t = 0; t < plan.n_tests; t++) {
        result_for_canary(&r, &plan.tests[t]);
        fill_result(&r, r.higher_is_better ? 2000.0 : 3.0, canary_ranks);
        run_record(&run, "isolated", "Isolated Network Tests", &r);
        snprintf(name, sizeof(name), "isolated:%s", plan.tests[t].kernel->id);
        phase(&run, name, nics);
    }
    for (int k = 0; k < plan.n_congestors; k++) {
        snprintf(name, sizeof(name), "congestor_baseline:%s", plan.congestors[k].kernel->id);
        phase(&run, name, nics);
    }
    for (int t = 0; t < plan.n_tests; t++) {
        result_for_canary(&r, &plan.tests[t]);
        fill_result(&r, r.higher_is_better ? 800.0 : 9.0, canary_ranks);
        const result_t *loaded = run_record(&run, "loaded", "Network Tests running with Congestion Tests", &r);
        const result_t *iso = run_find(&run, "isolated", plan.tests[t].kernel->id);
        run_impact_t *c = run_add_impact(&run);
        snprintf(c->test_id, sizeof(c->test_id), "%s", loaded->test_id);
        snprintf(c->name, sizeof(c->name), "%s", loaded->name);
        snprintf(c->congestor, sizeof(c->congestor), "%s", IMPACT_ALL_CONGESTORS);
        c->repetition = 1;
        c->avg = loaded->higher_is_better ? iso->avg / loaded->avg : loaded->avg / iso->avg;
        c->p99 = loaded->higher_is_better ? iso->p99 / loaded->p99 : loaded->p99 / iso->p99;
        c->avg_printed = c->avg;
        c->p99_printed = c->p99;
        char during[96];
        snprintf(during, sizeof(during), "congestors_during:%s", plan.tests[t].kernel->id);
        for (int k = 0; k < plan.n_congestors; k++) {
            result_for_congestor(&r, &plan.congestors[k]);
            fill_result(&r, 500.0, run.placement.n_congestor_nodes * run.env.nodes.ppn_min / plan.n_congestors);
            run_record(&run, during, loaded->name, &r);
        }
        snprintf(name, sizeof(name), "loaded:%s", plan.tests[t].kernel->id);
        phase(&run, name, nics);
    }
    node_probe_t probe = {0};
    if (rounds > 0) {
        probe.rounds = rounds;
        probe.n_nodes = n_nodes;
        probe.wall_s = 300.0;
        probe.usec = xmalloc(sizeof(double) * (size_t)n_nodes * (size_t)rounds);
        for (int n = 0; n < n_nodes; n++)
            for (int k = 0; k < rounds; k++)
                probe.usec[(size_t)n * (size_t)rounds + (size_t)k] =
                    pair_rounds_partner(n_nodes, k, n) < 0 ? NAN : 40.0 + 5.0 * uniform();
        phase(&run, "node_probe", nics);
    }
    nic_record_of(&run, nics, rounds);
    run_add_json_section(&run, (run_json_section_t){load_summary_json, NULL});
    run_add_json_section(&run, (run_json_section_t){node_probe_json, &probe});
    run_add_json_section(&run, (run_json_section_t){nic_record_json, NULL});
    return results_json_write(&run) == 0 ? 0 : 1;
}
