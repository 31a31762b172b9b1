#include "suite/network_congestor/congestor_report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "infra/fatal.h"
#include "infra/report.h"
#include "suite/options/option_report.h"
#include "suite/record/phase_end.h"
#include "suite/record/run_record.h"

#define MIB (1024.0 * 1024.0)

static const char *stop_name(const congestor_report_t *cr)
{
    switch (cr->stop) {
    case STOP_DURATION:
        return "duration";
    case STOP_SIGNAL:
        return cr->signal == 2 ? "signal SIGINT" : "signal SIGTERM";
    case STOP_FILE:
        return "stop_file";
    default:
        return "running";
    }
}

void congestor_report_init(run_t *run, congestor_report_t *cr)
{
    memset(cr, 0, sizeof(*cr));
    run_add_json_section(run, (run_json_section_t){congestor_report_json, cr});
    int n = run->env.plan->n_congestors;
    cr->bytes = xcalloc((size_t)n, sizeof(double));
    cr->reporters = xcalloc((size_t)n, sizeof(double));
    cr->last_bytes = xcalloc((size_t)n, sizeof(double));
    cr->ranks = xcalloc((size_t)n, sizeof(int));
    cr->nodes = xcalloc((size_t)n, sizeof(int));
    for (int node = 0; node < run->env.nodes.n_nodes; node++) {
        int k = run->placement.kernel_of_node[node];
        cr->nodes[k]++;
        cr->ranks[k] += run->env.nodes.ppn[node];
    }
}

void congestor_report_free(congestor_report_t *cr)
{
    free(cr->bytes);
    free(cr->reporters);
    free(cr->last_bytes);
    free(cr->ranks);
    free(cr->nodes);
    free(cr->reports);
    free(cr->per_rank);
}

void congestor_report_preamble(const run_t *run, const congestor_report_t *cr)
{
    if (run->env.rank != 0)
        return;
    const run_plan_t *plan = run->env.plan;
    printf("Network Congestor v%s\n", GPCNET_VERSION);
    printf("  %i MPI ranks on %i nodes, %s\n", run->env.size, run->env.nodes.n_nodes,
           plan->set.flows_file[0] ? "the nodes of the flows sending and receiving"
                       : "every node running one congestor");
    for (int k = 0; k < run->env.plan->n_congestors; k++) {
        const char *name = run->env.plan->congestors[k].name;
        printf("   %-28s %4d nodes, %5d ranks\n", name, cr->nodes[k], cr->ranks[k]);
    }
    if (plan->set.flows_file[0]) {
        printf("  %d flows from %s\n", cr->n_flows, plan->set.flows_file);
        /* The settings below show the unscaled round. */
        if (cr->flow_round != plan->congestors[0].kernel->iterations_for(plan->congestor_iterations, 0))
            printf("  the busiest node is in %d flows: rounds of %d iteration(s)\n",
                   cr->flow_busiest, cr->flow_round);
    }
    options_print_settings(run);
    fflush(stdout);
}

static void take(congestor_report_t *cr, const run_t *run, const double *sums)
{
    int n = run->env.plan->n_congestors;
    for (int k = 0; k < n; k++) {
        cr->bytes[k] = sums[k];
        cr->reporters[k] = sums[n + k];
    }
}

static double per_rank(const congestor_report_t *cr, int k, double bytes, double seconds)
{
    return cr->reporters[k] > 0.0 && seconds > 0.0 ? bytes / MIB / seconds / cr->reporters[k]
                                                   : NAN;
}

void congestor_report_interval(run_t *run, congestor_report_t *cr, const double *sums, double t)
{
    take(cr, run, sums);
    double dt = t - cr->last_t;
    for (int k = 0; k < run->env.plan->n_congestors; k++) {
        double mib_s = per_rank(cr, k, cr->bytes[k] - cr->last_bytes[k], dt);
        if (cr->n_reports == cr->cap_reports) {
            cr->cap_reports = cr->cap_reports ? 2 * cr->cap_reports : 64;
            cr->reports = realloc(cr->reports, sizeof(*cr->reports) * (size_t)cr->cap_reports);
            if (!cr->reports)
                die("out of memory for congestor reports");
        }
        cr->reports[cr->n_reports++] = (congestor_interval_t){t, k, mib_s};
        printf("[%8.1f s] %-14s %12.1f MiB/s/rank\n", t, run->env.plan->congestors[k].kernel->id, mib_s);
        cr->last_bytes[k] = cr->bytes[k];
    }
    cr->last_t = t;
    fflush(stdout);
    cr->elapsed_s = t;
    suite_save(run); /* the file on disk keeps the latest report */
}

void congestor_report_gather_ranks(const run_t *run, congestor_report_t *cr, double bytes,
                                   int reporting, int kernel)
{
    /* The slowest rank of a bully is what the fat-tree study reports (JSON
     * only; the table keeps the sums). */
    double own[CONGESTOR_RANK_FIELDS] = {bytes, reporting ? 1.0 : 0.0, kernel};
    if (run->env.rank == 0)
        cr->per_rank = xcalloc((size_t)run->env.size * CONGESTOR_RANK_FIELDS, sizeof(double));
    MPI_Gather(own, CONGESTOR_RANK_FIELDS, MPI_DOUBLE, cr->per_rank, CONGESTOR_RANK_FIELDS,
               MPI_DOUBLE, 0, run->env.world);
}

static const char *summary_bar =
    "+---------------------------------+--------------+--------------+--------------+";

void congestor_report_finish(run_t *run, congestor_report_t *cr, const double *sums, double t)
{
    if (sums)
        take(cr, run, sums);
    cr->elapsed_s = t;
    cr->finished = 1;
    printf("\nStopped after %.1f s: %s\n", t, stop_name(cr));
    printf("\n%s\n", "+------------------------------------------------------------------------------+");
    report_title_line(stdout, "Congestor Summary", 80);
    printf("%s\n", summary_bar);
    printf("| %31.31s | %12.12s | %12.12s | %12.12s |\n", "Name", "Per rank", "All ranks",
           "Units");
    printf("%s\n", summary_bar);
    for (int k = 0; k < run->env.plan->n_congestors; k++) {
        const char *name = run->env.plan->congestors[k].name;
        double one = per_rank(cr, k, cr->bytes[k], t);
        printf("| %31.31s | %12.1f | %12.1f | %12.12s |\n", name, one, one * cr->reporters[k],
               "MiB/s");
        printf("%s\n", summary_bar);
    }
    fflush(stdout);
    suite_phase_end(run, "congest", t);
}

static double rank_mib_s(const congestor_report_t *cr, int r)
{
    const double *f = cr->per_rank + (size_t)r * CONGESTOR_RANK_FIELDS;
    return cr->elapsed_s > 0.0 ? f[0] / MIB / cr->elapsed_s : NAN;
}

/* The reporting rank of kernel k that moved the fewest bytes (rank 0's
 * clock for all, as the kernel's own per-rank mean). */
static void slowest_rank_json(json_writer_t *w, const run_t *run, const congestor_report_t *cr, int k)
{
    int slowest = -1;
    for (int r = 0; r < run->env.size; r++) {
        const double *f = cr->per_rank + (size_t)r * CONGESTOR_RANK_FIELDS;
        if (f[1] > 0.0 && (int)f[2] == k &&
            (slowest < 0 || f[0] < cr->per_rank[(size_t)slowest * CONGESTOR_RANK_FIELDS]))
            slowest = r;
    }
    if (slowest < 0)
        return;
    jw_object_begin(w, "slowest_rank");
    jw_int(w, "rank", slowest);
    jw_string(w, "node", run->env.nodes.names[run->env.nodes.node_of_rank[slowest]]);
    jw_number(w, "mib_s", rank_mib_s(cr, slowest));
    jw_object_end(w);
}

/* Every reporting rank: its kernel, node, bytes and MiB/s; per kernel they
 * sum to the kernel's bytes and average to its mib_s_per_rank. */
static void ranks_json(json_writer_t *w, const run_t *run, const congestor_report_t *cr)
{
    jw_array_begin(w, "rank_bandwidth");
    for (int r = 0; r < run->env.size; r++) {
        const double *f = cr->per_rank + (size_t)r * CONGESTOR_RANK_FIELDS;
        if (f[1] <= 0.0)
            continue;
        jw_object_begin(w, NULL);
        jw_int(w, "rank", r);
        jw_string(w, "node", run->env.nodes.names[run->env.nodes.node_of_rank[r]]);
        jw_string(w, "kernel", run->env.plan->congestors[(int)f[2]].kernel->id);
        jw_number(w, "bytes", f[0]);
        jw_number(w, "mib_s", rank_mib_s(cr, r));
        jw_object_end(w);
    }
    jw_array_end(w);
}

void congestor_report_json(json_writer_t *w, const run_t *run, const void *ctx)
{
    const congestor_report_t *cr = ctx;
    jw_object_begin(w, "congestor_run");
    jw_string(w, "stop_reason", stop_name(cr));
    if (run->env.plan->set.flows_file[0]) {
        jw_string(w, "flows_file", run->env.plan->set.flows_file);
        jw_int(w, "flows", cr->n_flows);
        jw_int(w, "busiest_node_flows", cr->flow_busiest);
        jw_int(w, "round_iterations", cr->flow_round);
    }
    jw_number(w, "waited_for_start_s", cr->waited_s);
    jw_number(w, "congested_s", cr->elapsed_s);
    jw_array_begin(w, "kernels");
    for (int k = 0; k < run->env.plan->n_congestors; k++) {
        const char *name = run->env.plan->congestors[k].name;
        jw_object_begin(w, NULL);
        jw_string(w, "kernel", run->env.plan->congestors[k].kernel->id);
        jw_string(w, "name", name);
        jw_int(w, "nodes", cr->nodes[k]);
        jw_int(w, "ranks", cr->ranks[k]);
        jw_int(w, "reporting_ranks", (long long)cr->reporters[k]);
        jw_number(w, "bytes", cr->bytes[k]);
        double one = per_rank(cr, k, cr->bytes[k], cr->elapsed_s);
        jw_number(w, "mib_s_per_rank", one);
        jw_number(w, "mib_s_total", one * cr->reporters[k]);
        if (cr->per_rank && cr->finished)
            slowest_rank_json(w, run, cr, k);
        jw_object_end(w);
    }
    jw_array_end(w);
    jw_array_begin(w, "reports");
    for (int i = 0; i < cr->n_reports; i++) {
        jw_object_begin(w, NULL);
        jw_number(w, "t_s", cr->reports[i].t);
        jw_string(w, "kernel", run->env.plan->congestors[cr->reports[i].kernel].kernel->id);
        jw_number(w, "mib_s_per_rank", cr->reports[i].mib_s);
        jw_object_end(w);
    }
    jw_array_end(w);
    if (cr->per_rank && cr->finished)
        ranks_json(w, run, cr);
    jw_object_end(w);
}
