/* The all-pairs matrix in the results document and on stdout (all_pairs.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "infra/fatal.h"
#include "infra/pair_exchange.h"
#include "suite/network_test/all_pairs.h"

#define PRINT_SLOWEST 5 /* pairs named on stdout; the document keeps ALL_PAIRS_WORST */
#define NAME_COLUMNS 26 /* a node name on stdout is cut to this, so a line fits 80 */

static const char *node_name(const run_t *run, int i)
{
    return run->env.nodes.names ? run->env.nodes.names[i] : NULL;
}

static void per_node(json_writer_t *w, const char *key, const double *v, int n)
{
    jw_array_begin(w, key);
    for (int i = 0; i < n; i++)
        jw_number(w, NULL, v[i]);
    jw_array_end(w);
}

static void matrix(json_writer_t *w, const char *key, const double *m, int n)
{
    jw_array_begin(w, key);
    for (int i = 0; i < n; i++) {
        jw_array_begin(w, NULL);
        for (int j = 0; j < n; j++)
            jw_number(w, NULL, m[(size_t)i * (size_t)n + (size_t)j]); /* NaN: null */
        jw_array_end(w);
    }
    jw_array_end(w);
}

void all_pairs_json(json_writer_t *w, const run_t *run, const void *ctx)
{
    const all_pairs_t *ap = ctx;
    if (!ap->send_mib_s)
        return;
    int n = ap->n_nodes;
    jw_object_begin(w, "all_pairs");
    jw_string(w, "pattern", "shift");
    jw_int(w, "bytes", ap->bytes);
    jw_int(w, "messages", ALL_PAIRS_MESSAGES);
    jw_int(w, "repetitions", ALL_PAIRS_REPS);
    jw_int(w, "latency_bytes", ALL_PAIRS_LAT_BYTES);
    jw_int(w, "latency_repetitions", ALL_PAIRS_LAT_REPS);
    jw_int(w, "matrix_max_nodes", ALL_PAIRS_MATRIX_MAX);
    jw_bool(w, "matrix", ap->full);
    jw_number(w, "wall_s", ap->wall_s);
    jw_array_begin(w, "nodes");
    for (int i = 0; i < n; i++)
        jw_string(w, NULL, node_name(run, i));
    jw_array_end(w);
    if (ap->full) {
        matrix(w, "bandwidth_mib_s", ap->mib_s, n);
        matrix(w, "latency_usec", ap->usec, n);
    }
    per_node(w, "send_mib_s", ap->send_mib_s, n);
    per_node(w, "recv_mib_s", ap->recv_mib_s, n);
    per_node(w, "send_usec", ap->send_usec, n);
    per_node(w, "recv_usec", ap->recv_usec, n);
    jw_array_begin(w, "slowest_pairs");
    for (int c = 0; c < ap->n_worst; c++) {
        jw_object_begin(w, NULL);
        jw_int(w, "from", ap->worst[c].from);
        jw_int(w, "to", ap->worst[c].to);
        jw_number(w, "mib_s", ap->worst[c].mib_s);
        jw_number(w, "usec", ap->worst[c].usec);
        jw_object_end(w);
    }
    jw_array_end(w);
    jw_object_end(w);
}

/* The median of the cells (the whole matrix), or of the receivers' means
 * above the matrix cap, where the cells are not kept. */
static double middle(const double *cells, const double *means, int n, int full)
{
    size_t count = full ? (size_t)n * (size_t)n : (size_t)n;
    const double *v = full ? cells : means;
    double *keep = xmalloc(sizeof(double) * count);
    int k = 0;
    for (size_t c = 0; c < count; c++)
        if (!isnan(v[c]))
            keep[k++] = v[c];
    double m = k ? median_in_place(keep, k) : NAN;
    free(keep);
    return m;
}

void all_pairs_print(FILE *f, const run_t *run, const all_pairs_t *ap)
{
    int n = ap->n_nodes;
    fprintf(f, "\nAll-pairs matrix: %d nodes, one rank per node, shift pattern\n", n);
    fprintf(f, "  messages: %d x %ld B (bandwidth), %d B (latency)\n", ALL_PAIRS_MESSAGES, ap->bytes,
            ALL_PAIRS_LAT_BYTES);
    fprintf(f, "  bandwidth MiB/s: min %.1f, median %.1f, max %.1f\n", ap->min_mib_s,
            middle(ap->mib_s, ap->recv_mib_s, n, ap->full), ap->max_mib_s);
    fprintf(f, "  latency usec: min %.1f, median %.1f, max %.1f\n", ap->min_usec,
            middle(ap->usec, ap->recv_usec, n, ap->full), ap->max_usec);
    fprintf(f, "  slowest pairs (sender -> receiver):\n");
    for (int c = 0; c < ap->n_worst && c < PRINT_SLOWEST; c++) {
        const char *a = node_name(run, ap->worst[c].from), *b = node_name(run, ap->worst[c].to);
        fprintf(f, "    %-*.*s -> %-*.*s %9.1f MiB/s\n", NAME_COLUMNS, NAME_COLUMNS,
                a ? a : "?", NAME_COLUMNS, NAME_COLUMNS, b ? b : "?", ap->worst[c].mib_s);
    }
    if (ap->full)
        fprintf(f, "  (the matrix in results JSON all_pairs)\n");
    else
        fprintf(f, "  (above %d nodes: medians of the nodes' means; no matrix kept)\n",
                ALL_PAIRS_MATRIX_MAX);
}
