#include "suite/congestor_report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "infra/fatal.h"
#include "infra/report.h"
#include "suite/option_report.h"
#include "suite/phase_end.h"
#include "suite/run_record.h"

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
    int n = run->cfg.n_congestors;
    cr->bytes = xcalloc((size_t)n, sizeof(double));
    cr->reporters = xcalloc((size_t)n, sizeof(double));
    cr->last_bytes = xcalloc((size_t)n, sizeof(double));
    cr->ranks = xcalloc((size_t)n, sizeof(int));
    cr->nodes = xcalloc((size_t)n, sizeof(int));
    for (int node = 0; node < run->nodes.n_nodes; node++) {
        int k = run->placement.kernel_of_node[node];
        cr->nodes[k]++;
        cr->ranks[k] += run->nodes.ppn[node];
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
}

void congestor_report_preamble(const run_t *run, const congestor_report_t *cr)
{
    if (run->rank != 0)
        return;
    const options_t *o = &run->opt;
    printf("Network Congestor v%s\n", GPCNET_VERSION);
    printf("  %i MPI ranks on %i nodes, %s\n", run->size, run->nodes.n_nodes,
           o->flows[0] ? "the nodes of the flows sending and receiving"
                       : "every node running one congestor");
    for (int k = 0; k < run->cfg.n_congestors; k++) {
        char name[80];
        congestor_display_name(run->cfg.congestors[k], &run->cfg.congestor_params, name,
                               sizeof(name));
        printf("   %-28s %4d nodes, %5d ranks\n", name, cr->nodes[k], cr->ranks[k]);
    }
    if (o->flows[0])
        printf("  %d flows from %s\n", cr->n_flows, o->flows);
    options_print_settings(run);
    fflush(stdout);
}

static void take(congestor_report_t *cr, const run_t *run, const double *sums)
{
    int n = run->cfg.n_congestors;
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
    for (int k = 0; k < run->cfg.n_congestors; k++) {
        double mib_s = per_rank(cr, k, cr->bytes[k] - cr->last_bytes[k], dt);
        if (cr->n_reports == cr->cap_reports) {
            cr->cap_reports = cr->cap_reports ? 2 * cr->cap_reports : 64;
            cr->reports = realloc(cr->reports, sizeof(*cr->reports) * (size_t)cr->cap_reports);
            if (!cr->reports)
                die("out of memory for congestor reports");
        }
        cr->reports[cr->n_reports++] = (congestor_interval_t){t, k, mib_s};
        printf("[%8.1f s] %-14s %12.1f MiB/s/rank\n", t, run->cfg.congestors[k]->id, mib_s);
        cr->last_bytes[k] = cr->bytes[k];
    }
    cr->last_t = t;
    fflush(stdout);
    cr->elapsed_s = t;
    suite_save(run); /* the file on disk keeps the latest report */
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
    for (int k = 0; k < run->cfg.n_congestors; k++) {
        char name[80];
        congestor_display_name(run->cfg.congestors[k], &run->cfg.congestor_params, name,
                               sizeof(name));
        double one = per_rank(cr, k, cr->bytes[k], t);
        printf("| %31.31s | %12.1f | %12.1f | %12.12s |\n", name, one, one * cr->reporters[k],
               "MiB/s");
        printf("%s\n", summary_bar);
    }
    fflush(stdout);
    suite_phase_end(run, "congest", t);
}

void congestor_report_json(json_writer_t *w, const run_t *run, const void *ctx)
{
    const congestor_report_t *cr = ctx;
    jw_object_begin(w, "congestor_run");
    jw_string(w, "stop_reason", stop_name(cr));
    if (run->opt.flows[0]) {
        jw_string(w, "flows_file", run->opt.flows);
        jw_int(w, "flows", cr->n_flows);
    }
    jw_number(w, "waited_for_start_s", cr->waited_s);
    jw_number(w, "congested_s", cr->elapsed_s);
    jw_array_begin(w, "kernels");
    for (int k = 0; k < run->cfg.n_congestors; k++) {
        char name[80];
        congestor_display_name(run->cfg.congestors[k], &run->cfg.congestor_params, name,
                               sizeof(name));
        jw_object_begin(w, NULL);
        jw_string(w, "kernel", run->cfg.congestors[k]->id);
        jw_string(w, "name", name);
        jw_int(w, "nodes", cr->nodes[k]);
        jw_int(w, "ranks", cr->ranks[k]);
        jw_int(w, "reporting_ranks", (long long)cr->reporters[k]);
        jw_number(w, "bytes", cr->bytes[k]);
        double one = per_rank(cr, k, cr->bytes[k], cr->elapsed_s);
        jw_number(w, "mib_s_per_rank", one);
        jw_number(w, "mib_s_total", one * cr->reporters[k]);
        jw_object_end(w);
    }
    jw_array_end(w);
    jw_array_begin(w, "reports");
    for (int i = 0; i < cr->n_reports; i++) {
        jw_object_begin(w, NULL);
        jw_number(w, "t_s", cr->reports[i].t);
        jw_string(w, "kernel", run->cfg.congestors[cr->reports[i].kernel]->id);
        jw_number(w, "mib_s_per_rank", cr->reports[i].mib_s);
        jw_object_end(w);
    }
    jw_array_end(w);
    jw_object_end(w);
}
