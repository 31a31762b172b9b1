#include "suite/load_test/burst_sweep.h"

#include <math.h>
#include <string.h>

#include "infra/report.h"
#include "suite/record/run_record.h"

#define WIDTH 80

/* "10ms", "250us", "1.5s": short enough for the matrix's 6 columns. */
static void duration_text(double s, char *buf, size_t len)
{
    if (s < 1e-3)
        snprintf(buf, len, "%gus", s * 1e6);
    else if (s < 1.0)
        snprintf(buf, len, "%gms", s * 1e3);
    else
        snprintf(buf, len, "%gs", s);
}

/* The names of cell c in the record: its results table "loaded_burst:<c>",
 * the congestors' tables "congestors_during:burst_<c>:<test>", and
 * "burst:<c>" as its impact entries' congestor set; the "burst_matrix"
 * member maps cells to shapes, the printed title names the shape. */
static void cell_phase(const run_t *run, int c, load_phase_t *ph)
{
    burst_shape_t b = run->env.plan->burst_cells[c];
    char on[16], off[16];
    duration_text(b.on_s, on, sizeof(on));
    duration_text(b.off_s, off, sizeof(off));
    memset(ph, 0, sizeof(*ph));
    ph->kernel = -1;
    ph->own_table = 1;
    ph->burst = b;
    snprintf(ph->table, sizeof(ph->table), "loaded_burst:%d", c);
    snprintf(ph->title, sizeof(ph->title),
             "Network Tests running with Congestion Bursts ON %s OFF %s at %g%%", on, off,
             100.0 * b.intensity);
    snprintf(ph->cell_id, sizeof(ph->cell_id), "burst_%d:", c);
    snprintf(ph->impact_set, sizeof(ph->impact_set), "burst:%d", c);
    snprintf(ph->progress, sizeof(ph->progress), "burst %s/%s %g%%", on, off,
             100.0 * b.intensity);
}

void burst_sweep_run(run_t *run, roles_t *ro, const load_sync_t *sync, stats_acc_t *acc,
                     load_timeline_t *timeline)
{
    for (int c = 0; c < run->env.plan->n_burst_cells; c++) {
        /* The cell's phase carries its shape: the phase's common clock
         * (load_bursts_begin) and the congestors' pacing follow it, the
         * same on every rank; the plan itself is not touched. */
        load_phase_t ph;
        cell_phase(run, c, &ph);
        load_phase_run(run, ro, sync, acc, &ph, timeline);
    }
}

static const char *matrix_bar =
    "+---------------------------------+--------+--------+------+---------+---------+";

/* An impact in the matrix's 7 columns: one decimal up to 9999.9X, whole
 * numbers up to 999999X, beyond that a bound (an oversubscribed host has
 * printed 59456.2X); the JSON keeps the value. */
static void impact_cell(char *buf, size_t len, double v)
{
    if (isnan(v))
        snprintf(buf, len, "-");
    else if (!(v < 999999.5))
        snprintf(buf, len, ">=1e6X");
    else if (v < 9999.95)
        snprintf(buf, len, "%.1fX", v);
    else
        snprintf(buf, len, "%.0fX", v);
}

static void matrix_row(FILE *f, const char *name, const char *on, const char *off,
                       double intensity, double avg, double p99)
{
    char rate[16], a[24], q[24];
    snprintf(rate, sizeof(rate), "%.0f%%", 100.0 * intensity);
    impact_cell(a, sizeof(a), avg);
    impact_cell(q, sizeof(q), p99);
    fprintf(f, "| %31.31s | %6.6s | %6.6s | %4.4s | %7.7s | %7.7s |\n", name, on, off, rate, a, q);
}

void burst_sweep_print_matrix(FILE *f, const run_t *run)
{
    int cells = run->env.plan->n_burst_cells;
    if (!cells)
        return;
    fprintf(f, "\n%s\n",
            "+------------------------------------------------------------------------------+");
    report_title_line(f, "Congestion Impact by Burst Shape", WIDTH);
    if (run->env.plan->set.repeat > 1)
        report_title_line(f, "(mean over the repetitions)", WIDTH);
    fprintf(f, "%s\n| %31.31s | %6.6s | %6.6s | %4.4s | %7.7s | %7.7s |\n%s\n", matrix_bar, "Name",
            "ON", "OFF", "Rate", "Avg", "99%", matrix_bar);
    for (int t = 0; t < run->env.plan->n_tests; t++) {
        const char *id = run->env.plan->tests[t].kernel->id, *name = run->env.plan->tests[t].name;
        double avg, p99;
        for (int c = 0; c < cells; c++) {
            burst_shape_t b = run->env.plan->burst_cells[c];
            char set[32], on[16], off[16];
            snprintf(set, sizeof(set), "burst:%d", c);
            duration_text(b.on_s, on, sizeof(on));
            duration_text(b.off_s, off, sizeof(off));
            run_impact_mean(run, id, set, &avg, &p99);
            matrix_row(f, name, on, off, b.intensity, avg, p99);
        }
        /* The published steady phase of the same run, for reference. */
        run_impact_mean(run, id, IMPACT_ALL_CONGESTORS, &avg, &p99);
        matrix_row(f, name, "steady", "-", 1.0, avg, p99);
        fprintf(f, "%s\n", matrix_bar);
    }
    fflush(f);
}

static void json_numbers(json_writer_t *w, const char *key, const double *v, int n)
{
    jw_array_begin(w, key);
    for (int i = 0; i < n; i++)
        jw_number(w, NULL, v[i]);
    jw_array_end(w);
}

/* avg and p99 of every test under one congestor set, in the order of "tests". */
static void json_impacts(json_writer_t *w, const run_t *run, const char *set)
{
    double avg[OPT_MAX_LIST], p99[OPT_MAX_LIST];
    int n = run->env.plan->n_tests < OPT_MAX_LIST ? run->env.plan->n_tests : OPT_MAX_LIST;
    for (int t = 0; t < n; t++)
        run_impact_mean(run, run->env.plan->tests[t].kernel->id, set, &avg[t], &p99[t]);
    json_numbers(w, "avg", avg, n);
    json_numbers(w, "p99", p99, n);
}

void burst_sweep_json(json_writer_t *w, const run_t *run, const void *unused)
{
    (void)unused;
    int cells = run->env.plan->n_burst_cells;
    if (run->env.program != PROGRAM_NETWORK_LOAD_TEST || !cells)
        return;
    const burst_sweep_t *g = &run->env.plan->burst_grid;
    jw_object_begin(w, "burst_matrix");
    json_numbers(w, "on_s", g->on, g->n_on);
    json_numbers(w, "off_s", g->off, g->n_off);
    json_numbers(w, "intensity", g->intensity, g->n_intensity);
    jw_number(w, "jitter", run->env.plan->burst_jitter);
    jw_array_begin(w, "tests");
    for (int t = 0; t < run->env.plan->n_tests; t++)
        jw_string(w, NULL, run->env.plan->tests[t].kernel->id);
    jw_array_end(w);
    jw_array_begin(w, "cells");
    for (int c = 0; c < cells; c++) {
        burst_shape_t b = run->env.plan->burst_cells[c];
        load_phase_t ph;
        cell_phase(run, c, &ph);
        jw_object_begin(w, NULL);
        jw_number(w, "on_s", b.on_s);
        jw_number(w, "off_s", b.off_s);
        jw_number(w, "intensity", b.intensity);
        jw_string(w, "table", ph.table);
        json_impacts(w, run, ph.impact_set);
        jw_object_end(w);
    }
    jw_array_end(w);
    /* The published steady phase of the same run ("loaded"), the reference. */
    jw_object_begin(w, "steady");
    json_impacts(w, run, IMPACT_ALL_CONGESTORS);
    jw_object_end(w);
    jw_int(w, "repetitions", run->env.plan->set.repeat);
    jw_object_end(w);
}
