#include "suite/network_test/ebb.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "infra/fatal.h"
#include "infra/matching.h"
#include "infra/pair_exchange.h"
#include "infra/report.h"
#include "suite/record/phase_end.h"

#define TAG_EBB 4501
#define MIB (1024.0 * 1024.0)

void ebb_check_nodes(const run_t *run)
{
    int n = run->env.nodes.n_nodes;
    if (run->env.plan->set.ebb > 0 && n % 2)
        exit_all(2,
                 "network_test: --ebb pairs every node with another and needs an even number "
                 "of nodes, found %d; run on %d or %d nodes, or leave --ebb out.\n",
                 n, n - 1, n + 1);
    long pairs = (long)run->env.plan->set.ebb * (n / 2);
    if (pairs > EBB_MAX_PAIRS)
        exit_all(2,
                 "network_test: --ebb %d on %d nodes would record %ld pairs, more than a "
                 "results document holds (%ld); use --ebb %ld or fewer.\n",
                 run->env.plan->set.ebb, n, pairs, EBB_MAX_PAIRS, EBB_MAX_PAIRS / (n / 2));
}

/* This node's time of the timed exchange in every matching, on the leader
 * of each node; leaders' ranks are node indices. */
static void ebb_matchings(const ebb_t *e, int me, MPI_Comm leaders, double *mine)
{
    size_t bytes = (size_t)e->bytes;
    char *out = xcalloc(bytes, 1), *in = xmalloc(bytes);
    int *order = xmalloc(sizeof(int) * (size_t)e->n_nodes);
    int *partner = xmalloc(sizeof(int) * (size_t)e->n_nodes);
    for (int m = 0; m < e->matchings; m++) {
        matching_partners(e->seed, m, e->n_nodes, order, partner);
        /* untimed: first contact of this pair (connection set-up), which
         * would otherwise count against the bandwidth */
        pair_exchange(out, in, (int)e->bytes, partner[me], TAG_EBB, leaders);
        /* Every pair starts together: the matching loads the network at once. */
        MPI_Barrier(leaders);
        double start = MPI_Wtime();
        pair_exchange(out, in, (int)e->bytes, partner[me], TAG_EBB, leaders);
        mine[m] = MPI_Wtime() - start;
    }
    free(out);
    free(in);
    free(order);
    free(partner);
}

/* MiB/s of pair (a, b) in matching m: the bytes over the slower side's time. */
static double pair_mib_s(const ebb_t *e, int a, int b, int m)
{
    double ta = e->sec[(size_t)a * (size_t)e->matchings + (size_t)m];
    double tb = e->sec[(size_t)b * (size_t)e->matchings + (size_t)m];
    double t = ta > tb ? ta : tb;
    return t > 0.0 ? (double)e->bytes / MIB / t : NAN;
}

typedef struct {
    double mean, min, max;
} ebb_summary_t;

/* Matching m's pairs (the lower node of each pair first, in node order):
 * their MiB/s into v (n_nodes / 2 of them) and their summary. */
static ebb_summary_t matching_values(const ebb_t *e, int m, int *order, int *partner,
                                     double *v)
{
    matching_partners(e->seed, m, e->n_nodes, order, partner);
    ebb_summary_t s = {0.0, INFINITY, -INFINITY};
    int k = 0;
    for (int a = 0; a < e->n_nodes; a++) {
        if (partner[a] < a)
            continue;
        double x = pair_mib_s(e, a, partner[a], m);
        v[k++] = x;
        s.mean += x;
        s.min = x < s.min ? x : s.min;
        s.max = x > s.max ? x : s.max;
    }
    s.mean /= k;
    return s;
}

/* One row of the table: three values, 80 columns as the published rows. */
static const char *ebb_bar =
    "+---------------------------------+--------------+--------------+--------------+";

static void row(const char *name, ebb_summary_t s, double scale, int digits)
{
    printf("| %31.31s | %12.*f | %12.*f | %12.*f |\n%s\n", name, digits, s.mean * scale, digits,
           s.min * scale, digits, s.max * scale, ebb_bar);
}

/* The mean, min and max over the matchings of their means. */
static ebb_summary_t over_matchings(const ebb_t *e, const ebb_summary_t *per)
{
    ebb_summary_t all = {0.0, INFINITY, -INFINITY};
    for (int m = 0; m < e->matchings; m++) {
        all.mean += per[m].mean;
        all.min = per[m].mean < all.min ? per[m].mean : all.min;
        all.max = per[m].mean > all.max ? per[m].mean : all.max;
    }
    all.mean /= e->matchings;
    return all;
}

static double link_mib_s(const ebb_t *e) { return e->link_rate_gbit * 1e9 / 8.0 / MIB; }

static void ebb_print(const ebb_t *e)
{
    int *order = xmalloc(sizeof(int) * (size_t)e->n_nodes);
    int *partner = xmalloc(sizeof(int) * (size_t)e->n_nodes);
    double *v = xmalloc(sizeof(double) * (size_t)(e->n_nodes / 2));
    ebb_summary_t *per = xmalloc(sizeof(*per) * (size_t)e->matchings);
    char title[96], name[40];
    printf("\n+------------------------------------------------------------------------------+\n");
    snprintf(title, sizeof(title), "Effective Bisection Bandwidth (%ld B each way)", e->bytes);
    report_title_line(stdout, title, 80);
    printf("%s\n| %31.31s | %12.12s | %12.12s | %12.12s |\n%s\n", ebb_bar,
           "MiB/s per pair", "Mean", "Min", "Max", ebb_bar);
    for (int m = 0; m < e->matchings; m++) {
        per[m] = matching_values(e, m, order, partner, v);
        snprintf(name, sizeof(name), "Matching %d", m + 1);
        row(name, per[m], 1.0, 1);
    }
    ebb_summary_t all = over_matchings(e, per);
    row("eBB (mean of the matchings)", all, 1.0, 1);
    if (e->link_rate_gbit > 0.0)
        row("eBB / link rate", all, 1.0 / link_mib_s(e), 3);
    fflush(stdout);
    free(order);
    free(partner);
    free(v);
    free(per);
}

void ebb_run(run_t *run, ebb_t *ebb)
{
    memset(ebb, 0, sizeof(*ebb));
    const run_settings_t *set = &run->env.plan->set;
    if (set->ebb <= 0)
        return;
    ebb->matchings = set->ebb;
    ebb->n_nodes = run->env.nodes.n_nodes;
    ebb->bytes = set->ebb_bytes;
    ebb->seed = run->env.opt.ring_seed;
    ebb->link_rate_gbit = set->link_rate;
    int matchings = ebb->matchings;
    int leader = run->env.nodes.my_local == 0;
    MPI_Comm leaders;
    MPI_Comm_split(run->env.world, leader ? 0 : MPI_UNDEFINED, run->env.nodes.my_node, &leaders);
    double *mine = leader ? xmalloc(sizeof(double) * (size_t)matchings) : NULL;
    MPI_Barrier(run->env.world);
    double start = MPI_Wtime();
    if (leader)
        ebb_matchings(ebb, run->env.nodes.my_node, leaders, mine);

    /* Every leader's times to world rank 0, at its node's place. */
    ebb->sec = nodes_gather_leaders(&run->env.nodes, run->env.world, mine, matchings);
    ebb->wall_s = MPI_Wtime() - start;
    free(mine);
    if (leaders != MPI_COMM_NULL)
        MPI_Comm_free(&leaders);
    if (run->env.rank == 0)
        ebb_print(ebb);
    suite_phase_end(run, "ebb", ebb->wall_s);
}

static void summary_json(json_writer_t *w, ebb_summary_t s)
{
    jw_number(w, "mean_mib_s", s.mean);
    jw_number(w, "min_mib_s", s.min);
    jw_number(w, "max_mib_s", s.max);
}

void ebb_json(json_writer_t *w, const run_t *run, const void *ctx)
{
    const ebb_t *e = ctx;
    if (!e->sec)
        return;
    int *order = xmalloc(sizeof(int) * (size_t)e->n_nodes);
    int *partner = xmalloc(sizeof(int) * (size_t)e->n_nodes);
    double *v = xmalloc(sizeof(double) * (size_t)(e->n_nodes / 2));
    ebb_summary_t *per = xmalloc(sizeof(*per) * (size_t)e->matchings);
    jw_object_begin(w, "ebb");
    jw_int(w, "matchings", e->matchings);
    jw_int(w, "nodes", e->n_nodes);
    jw_int(w, "bytes", e->bytes);
    jw_int(w, "seed", (long long)e->seed);
    jw_number(w, "wall_s", e->wall_s);
    if (e->link_rate_gbit > 0.0)
        jw_number(w, "link_rate_gbit", e->link_rate_gbit);
    else
        jw_null(w, "link_rate_gbit");
    /* Node i's name: which host a pair's node index is (the model maps
     * names to its hosts). */
    jw_array_begin(w, "node_names");
    for (int i = 0; i < e->n_nodes; i++)
        jw_string(w, NULL, run->env.nodes.names ? run->env.nodes.names[i] : NULL);
    jw_array_end(w);
    jw_array_begin(w, "per_matching");
    for (int m = 0; m < e->matchings; m++) {
        per[m] = matching_values(e, m, order, partner, v);
        jw_object_begin(w, NULL);
        summary_json(w, per[m]);
        jw_array_begin(w, "pairs");
        int k = 0;
        for (int a = 0; a < e->n_nodes; a++) {
            if (partner[a] < a)
                continue;
            jw_object_begin(w, NULL);
            jw_int(w, "a", a);
            jw_int(w, "b", partner[a]);
            jw_number(w, "mib_s", v[k++]);
            jw_object_end(w);
        }
        jw_array_end(w);
        jw_object_end(w);
    }
    jw_array_end(w);
    ebb_summary_t all = over_matchings(e, per);
    summary_json(w, all);
    if (e->link_rate_gbit > 0.0)
        jw_number(w, "fraction", all.mean / link_mib_s(e));
    else
        jw_null(w, "fraction");
    jw_object_end(w);
    free(order);
    free(partner);
    free(v);
    free(per);
}

void ebb_free(ebb_t *ebb)
{
    free(ebb->sec);
    ebb->sec = NULL;
}
