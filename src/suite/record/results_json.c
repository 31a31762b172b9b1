#include "suite/record/results_json.h"

#include "suite/record/phase_counters.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "infra/json_writer.h"
#include "infra/safe_file.h"
#include "infra/watchdog.h"
#include "infra/node_lists.h"
#include "suite/options/option_report.h"

static void iso_time(char *buf, size_t len, time_t t)
{
    struct tm *tm = gmtime(&t);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", tm);
}

static void write_environment(json_writer_t *w, const run_t *run)
{
    jw_object_begin(w, "environment");
    jw_string(w, "mpi_library", run->env.mpi_library);
    jw_string(w, "mpi_standard", run->env.mpi_standard);
    jw_string(w, "mpi_thread_level", run->env.mpi_thread_level);
    jw_int(w, "ranks", run->env.size);
    jw_int(w, "nodes", run->env.nodes.n_nodes);
    jw_int(w, "hosts", run->env.nodes.n_hosts);
    jw_int(w, "ppn_min", run->env.nodes.ppn_min);
    jw_int(w, "ppn_max", run->env.nodes.ppn_max);
    jw_number(w, "pport", (double)run->env.nodes.ppn_max / run->env.plan->set.nics_per_node);
    jw_string(w, "hostname", run->env.nodes.hostname);
    jw_object_end(w);
}

static void node_names(json_writer_t *w, const char *key, const run_t *run, const int *ids, int n)
{
    jw_array_begin(w, key);
    for (int i = 0; i < n; i++)
        jw_string(w, NULL, run->env.nodes.names[ids[i]]);
    jw_array_end(w);
}

static int congestor_ranks(const run_t *run, const placement_t *p, int node)
{
    int ppn = run->env.nodes.ppn[node];
    return p->colocated ? ppn - ppn / 2 : ppn;
}

static void write_placement(json_writer_t *w, const run_t *run, const placement_t *p)
{
    char path[OPT_PATH_MAX + 64];
    jw_object_begin(w, "placement");
    node_names(w, "all_nodes", run, p->order, p->n_nodes);
    node_names(w, "congestor_nodes", run, p->order, p->n_congestor_nodes);
    node_names(w, "canary_nodes", run, placement_canary_list(p), p->n_canary_nodes);
    jw_int(w, "min_nodes_per_congestor", p->n_congestor_nodes / run->env.plan->n_congestors);
    /* Which nodes ran which kernel (every rank of a node runs its node's
     * kernel), in the order of the shuffled list: the first is the root. */
    jw_array_begin(w, "congestor_kernels");
    for (int k = 0; k < run->env.plan->n_congestors; k++) {
        jw_object_begin(w, NULL);
        jw_string(w, "kernel", run->env.plan->congestors[k].kernel->id);
        jw_array_begin(w, "nodes");
        for (int i = 0; i < p->n_congestor_nodes; i++)
            if (p->kernel_of_node[p->order[i]] == k)
                jw_string(w, NULL, run->env.nodes.names[p->order[i]]);
        jw_array_end(w);
        jw_object_end(w);
    }
    jw_array_end(w);
    /* One group per (slice, kernel): the members of one congestor
     * communicator, in node order of the shuffled list. Colocated nodes
     * give their upper half of ranks to the congestor (load_roles.c). */
    jw_array_begin(w, "congestor_groups");
    for (int s = 0; s < run->env.nodes.ppn_max; s++) {
        for (int k = 0; k < run->env.plan->n_congestors; k++) {
            int members = 0;
            for (int i = 0; i < p->n_congestor_nodes; i++) {
                int node = p->order[i];
                members += congestor_ranks(run, p, node) > s && p->kernel_of_node[node] == k;
            }
            if (!members)
                continue;
            jw_object_begin(w, NULL);
            jw_int(w, "slice", s);
            jw_string(w, "kernel", run->env.plan->congestors[k].kernel->id);
            jw_array_begin(w, "nodes");
            for (int i = 0; i < p->n_congestor_nodes; i++) {
                int node = p->order[i];
                if (congestor_ranks(run, p, node) > s && p->kernel_of_node[node] == k)
                    jw_string(w, NULL, run->env.nodes.names[node]);
            }
            jw_array_end(w);
            jw_object_end(w);
        }
    }
    jw_array_end(w);
    jw_object_begin(w, "node_list_files");
    snprintf(path, sizeof(path), "%s/%s", run->env.plan->set.output_dir, NODE_LIST_ALL);
    jw_string(w, "all", path);
    snprintf(path, sizeof(path), "%s/%s", run->env.plan->set.output_dir, NODE_LIST_CONGESTORS);
    jw_string(w, "congestors", path);
    snprintf(path, sizeof(path), "%s/%s", run->env.plan->set.output_dir, NODE_LIST_CANARIES);
    jw_string(w, "canaries", path);
    jw_object_end(w);
    jw_object_end(w);
}

/* The placement of the first repetition, and with --repeat every
 * repetition's seed and placement. */
static void write_placements(json_writer_t *w, const run_t *run)
{
    if (!run->have_placement) {
        jw_null(w, "placement");
        return;
    }
    const placement_t *first = run->record.rep_placement ? &run->record.rep_placement[0] : &run->placement;
    write_placement(w, run, first);
    if (run->env.plan->set.repeat <= 1)
        return;
    jw_array_begin(w, "repetitions");
    for (int r = 0; r < run->repetition; r++) {
        jw_object_begin(w, NULL);
        jw_int(w, "repetition", r + 1);
        jw_int(w, "seed", (long long)run->env.plan->seeds[r]);
        write_placement(w, run, &run->record.rep_placement[r]);
        jw_object_end(w);
    }
    jw_array_end(w);
}

static void write_histogram(json_writer_t *w, const result_t *r)
{
    /* The bins are written at 64 sub-buckets per octave: 16 adjacent
     * buckets of the 1024-per-octave histogram merged into one. At full
     * resolution a default network_test wrote 4 MB of JSON (12,000 bins for
     * one latency row); 64 per octave draws the paper's figures as well.
     * p99, p999 and median in the row come from the full histogram
     * (percentile_max_relative_error). */
    enum { JSON_SUB = 64, JSON_MERGE = HIST_SUB / JSON_SUB };
    _Static_assert(HIST_SUB % JSON_SUB == 0, "JSON bins merge whole buckets");
    if (r->hist.count <= 0.0) {
        jw_null(w, "histogram");
        return;
    }
    jw_object_begin(w, "histogram");
    jw_string(w, "scheme", "log-linear");
    jw_int(w, "sub_buckets", JSON_SUB);
    jw_number(w, "max_relative_error", 1.0 / (2.0 * JSON_SUB));
    jw_int(w, "percentile_sub_buckets", HIST_SUB);
    jw_number(w, "percentile_max_relative_error", HIST_MAX_RELATIVE_ERROR);
    jw_string(w, "unit", r->unit);
    jw_array_begin(w, "bins");
    const int overflow = HIST_BUCKETS - 1;
    for (int first = 0, last; first < HIST_BUCKETS; first = last + 1) {
        /* Underflow and overflow alone; in range, JSON_MERGE buckets (the
         * octaves start at bucket 1, so groups never straddle one). */
        last = first == 0 || first == overflow ? first : first + JSON_MERGE - 1;
        double count = 0.0;
        for (int b = first; b <= last; b++)
            count += r->hist.bins[b];
        if (count <= 0.0)
            continue;
        double lo, hi, unused;
        hist_bucket_edges(first, &lo, &unused);
        hist_bucket_edges(last, &unused, &hi);
        /* The open-ended edge buckets are reported by the values seen (an
         * overflow holding only 2^30 itself still gets lower < upper). */
        if (first == 0)
            lo = r->hist.min;
        if (first == overflow)
            hi = r->hist.max > lo ? r->hist.max : lo * (1.0 + 1.0 / JSON_SUB);
        jw_array_begin(w, NULL);
        jw_number(w, NULL, lo);
        jw_number(w, NULL, hi);
        jw_int(w, NULL, (long long)count);
        jw_array_end(w);
    }
    jw_array_end(w);
    jw_object_end(w);
}

static void write_result(json_writer_t *w, const result_t *r)
{
    jw_object_begin(w, NULL);
    jw_string(w, "test", r->test_id);
    jw_string(w, "name", r->name);
    jw_string(w, "unit", r->unit);
    jw_string(w, "better", r->higher_is_better ? "higher" : "lower");
    jw_number(w, "avg", r->avg);
    jw_number(w, "p99", r->p99);
    jw_number(w, "p999", r->p999);
    jw_number(w, "median", r->median);
    jw_number(w, "min", r->min);
    jw_number(w, "max", r->max);
    jw_number(w, "avg_worst", r->avg_worst);
    jw_int(w, "samples", (long long)r->hist.count);
    jw_int(w, "ranks", r->ranks);
    jw_int(w, "measurements", r->measurements);
    jw_int(w, "rings", r->rings);
    jw_int(w, "iterations", r->iterations);
    jw_number(w, "wall_s", r->wall_s);
    jw_bool(w, "timed_out", r->timed_out);
    jw_string(w, "stop_reason", r->converged ? "converged" : r->timed_out ? "time_limit"
                                                                         : "measurements");
    if (isnan(r->avg_precision)) {
        jw_null(w, "precision");
    } else {
        /* --converge: the worst rank's relative 95% confidence half-widths
         * of the Avg and the 99% (null: too few batches to tell), and
         * whether they reached the tolerance before the cap. */
        jw_object_begin(w, "precision");
        jw_number(w, "avg", r->avg_precision);
        jw_number(w, "p99", r->tail_precision);
        jw_bool(w, "reached", r->converged);
        jw_object_end(w);
    }
    write_histogram(w, r);
    jw_object_end(w);
}

static void write_document(FILE *f, const run_t *run)
{
    char t[32];
    json_writer_t w;
    jw_init(&w, f);
    jw_object_begin(&w, NULL);
    jw_string(&w, "schema", "gpcnet-results");
    jw_int(&w, "schema_version", RESULTS_SCHEMA_VERSION);
    jw_string(&w, "program", program_name(run->env.program));
    jw_string(&w, "version", GPCNET_VERSION);
    jw_string(&w, "source", "run");
    jw_string(&w, "status", run->status);
    jw_null(&w, "abort_reason");
    iso_time(t, sizeof(t), run->env.started);
    jw_string(&w, "started_at", t);
    if (run->finished) {
        iso_time(t, sizeof(t), run->finished);
        jw_string(&w, "finished_at", t);
    } else {
        jw_null(&w, "finished_at");
    }
    options_write_config(&w, run);
    write_environment(&w, run);
    write_placements(&w, run);
    jw_array_begin(&w, "tables");
    for (int i = 0; i < run->record.n_tables; i++) {
        const run_table_t *tb = &run->record.tables[i];
        jw_object_begin(&w, NULL);
        jw_string(&w, "id", tb->id);
        jw_string(&w, "title", tb->title);
        jw_int(&w, "repetition", tb->repetition);
        jw_array_begin(&w, "rows");
        for (int j = 0; j < tb->n_rows; j++)
            write_result(&w, tb->rows[j]);
        jw_array_end(&w);
        jw_object_end(&w);
    }
    jw_array_end(&w);
    jw_array_begin(&w, "impact");
    for (int i = 0; i < run->record.n_impact; i++) {
        const run_impact_t *c = &run->record.impact[i];
        if (strcmp(c->congestor, IMPACT_ALL_CONGESTORS) != 0)
            continue; /* sweep cells are in impact_matrix */
        jw_object_begin(&w, NULL);
        jw_string(&w, "test", c->test_id);
        jw_string(&w, "name", c->name);
        jw_int(&w, "repetition", c->repetition);
        jw_number(&w, "avg", c->avg);
        jw_number(&w, "p99", c->p99);
        jw_number(&w, "avg_printed", c->avg_printed);
        jw_number(&w, "p99_printed", c->p99_printed);
        jw_object_end(&w);
    }
    jw_array_end(&w);
    /* What the suite added: the load test's summaries, network_congestor's
     * report. */
    for (int i = 0; i < run->env.n_json_sections; i++)
        run->env.json_sections[i].write(&w, run, run->env.json_sections[i].ctx);
    if (run->env.setup_s >= 0.0)
        jw_number(&w, "setup_s", run->env.setup_s);
    else
        jw_null(&w, "setup_s");
    jw_array_begin(&w, "phases");
    for (int i = 0; i < run->record.n_phases; i++) {
        jw_object_begin(&w, NULL);
        jw_string(&w, "name", run->record.phases[i].name);
        jw_int(&w, "repetition", run->record.phases[i].repetition);
        jw_number(&w, "wall_s", run->record.phases[i].wall_s);
        if (run->record.phases[i].counters)
            phase_counters_json(&w, run, run->record.phases[i].counters);
        jw_object_end(&w);
    }
    jw_array_end(&w);
    jw_object_end(&w);
}

int results_json_write(const run_t *run)
{
    /* A fresh temporary beside the file, then rename: never written
     * through a link, and the file on disk is always complete. The first
     * write replaces an existing file only with --force (checked before
     * the run); later ones replace what this run wrote. */
    static int written;
    /* Ended by a SIGTERM that --fault-probe handles: the file is marked
     * aborted and is the result. */
    if (watchdog_ending())
        return 0;
    char tmp[OPT_PATH_MAX + 16];
    FILE *f = safe_tmp_open(run->env.json_path, tmp, sizeof(tmp));
    if (!f) {
        fprintf(stderr, "gpcnet: warning: writing %s failed (disk full?): %s\n", run->env.json_path,
                strerror(errno));
        return -1;
    }
    watchdog_note_tmp(tmp[0] ? tmp : NULL); /* "": no name, nothing to remove */
    write_document(f, run);
    if (watchdog_ending()) { /* came while writing */
        fclose(f);
        if (tmp[0])
            unlink(tmp); /* if the mark has not */
        watchdog_note_tmp(NULL);
        return 0;
    }
    int rc = safe_tmp_commit(f, tmp, run->env.json_path, written || run->env.plan->set.force);
    watchdog_note_tmp(NULL);
    if (rc != 0) {
        fprintf(stderr, "gpcnet: warning: writing %s failed (disk full?): %s\n", run->env.json_path,
                strerror(errno));
        return -1;
    }
    written = 1;
    return 0;
}
