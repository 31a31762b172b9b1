#include "suite/load_test/load_summary.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "infra/repeat_stats.h"
#include "infra/report.h"

#define WIDTH 80

/* The columns of the matrix: each congestor alone, then all together. */
static int n_sets(const run_t *run) { return run->env.plan->n_congestors + 1; }

static const char *set_name(const run_t *run, int s)
{
    return s < run->env.plan->n_congestors ? run->env.plan->congestors[s].kernel->id : IMPACT_ALL_CONGESTORS;
}

static void rule(FILE *f, const char *cols)
{
    fprintf(f, "%s\n", cols);
}

static const char *matrix_bar =
    "+---------------------------------+--------------+--------------+--------------+";

void load_summary_print_matrix(FILE *f, const run_t *run)
{
    fprintf(f, "\n");
    rule(f, "+------------------------------------------------------------------------------+");
    report_title_line(f, "Congestion Impact by Congestor", WIDTH);
    if (run->env.plan->set.repeat > 1)
        report_title_line(f, "(mean over the repetitions)", WIDTH);
    rule(f, matrix_bar);
    fprintf(f, "| %31.31s | %12.12s | %12.12s | %12.12s |\n", "Name", "Congestor", "Avg",
            "99%");
    rule(f, matrix_bar);
    for (int t = 0; t < run->env.plan->n_tests; t++) {
        for (int s = 0; s < n_sets(run); s++) {
            double avg, p99;
            run_impact_mean(run, run->env.plan->tests[t].kernel->id, set_name(run, s), &avg, &p99);
            fprintf(f, "| %31.31s | %12.12s | %11.1fX | %11.1fX |\n", run->env.plan->tests[t].name,
                    set_name(run, s), avg, p99);
        }
        rule(f, matrix_bar);
    }
    fflush(f);
}

/* The values a repetition table row summarises. */
enum { M_ISO_AVG, M_ISO_P99, M_LOAD_AVG, M_LOAD_P99, M_CI_AVG, M_CI_P99, N_METRICS };
static const char *const metric_id[N_METRICS] = {"isolated_avg", "isolated_p99", "loaded_avg",
                                                 "loaded_p99",   "ci_avg",       "ci_p99"};
static const char *const metric_label[N_METRICS] = {"Iso Avg", "Iso 99%", "Load Avg",
                                                    "Load 99%", "CI Avg", "CI 99%"};

/* values[r] for repetition r+1 of one test and metric; NaN when missing. */
static void metric_values(const run_t *run, const char *test, int metric, double *values)
{
    for (int r = 1; r <= run->env.plan->set.repeat; r++) {
        double v = NAN;
        if (metric <= M_LOAD_P99) {
            const result_t *res =
                run_find_in(run, r, metric <= M_ISO_P99 ? "isolated" : "loaded", test);
            if (res)
                v = metric % 2 == 0 ? res->avg : res->p99;
        } else {
            for (int i = 0; i < run->record.n_impact; i++) {
                const run_impact_t *c = &run->record.impact[i];
                if (c->repetition == r && strcmp(c->test_id, test) == 0 &&
                    strcmp(c->congestor, IMPACT_ALL_CONGESTORS) == 0)
                    v = metric == M_CI_AVG ? c->avg : c->p99;
            }
        }
        values[r - 1] = v;
    }
}

static const char *repeat_bar =
    "+---------------------------------+-----------+-----------+-----------+--------+";

void load_summary_print_repeats(FILE *f, const run_t *run)
{
    double *values = malloc(sizeof(double) * (size_t)run->env.plan->set.repeat);
    fprintf(f, "\n");
    rule(f, "+------------------------------------------------------------------------------+");
    char title[96];
    snprintf(title, sizeof(title), "Repeatability over %d Repetitions", run->env.plan->set.repeat);
    report_title_line(f, title, WIDTH);
    rule(f, repeat_bar);
    fprintf(f, "| %31.31s | %9.9s | %9.9s | %9.9s | %6.6s |\n", "Name", "Mean", "Min", "Max",
            "CV");
    rule(f, repeat_bar);
    for (int t = 0; t < run->env.plan->n_tests; t++) {
        /* The kernel's label, its name less the size, as gpcnet's short
         * names (the catalogue carries the same label). */
        const char *base = run->env.plan->tests[t].kernel->label;
        char label[96];
        for (int m = 0; m < N_METRICS; m++) {
            metric_values(run, run->env.plan->tests[t].kernel->id, m, values);
            repeat_stats_t s = repeat_stats(values, run->env.plan->set.repeat);
            snprintf(label, sizeof(label), "%s %s", base, metric_label[m]);
            fprintf(f, "| %31.31s | %9.1f | %9.1f | %9.1f | %5.1f%% |\n", label, s.mean, s.min,
                    s.max, 100.0 * s.cv);
        }
        rule(f, repeat_bar);
    }
    free(values);
    fflush(f);
}

static void json_matrix(json_writer_t *w, const run_t *run)
{
    jw_object_begin(w, "impact_matrix");
    jw_array_begin(w, "congestor_sets");
    for (int s = 0; s < n_sets(run); s++) {
        jw_array_begin(w, NULL);
        for (int k = 0; k < run->env.plan->n_congestors; k++)
            if (s == run->env.plan->n_congestors || s == k)
                jw_string(w, NULL, run->env.plan->congestors[k].kernel->id);
        jw_array_end(w);
    }
    jw_array_end(w);
    jw_array_begin(w, "tests");
    for (int t = 0; t < run->env.plan->n_tests; t++)
        jw_string(w, NULL, run->env.plan->tests[t].kernel->id);
    jw_array_end(w);
    for (int stat = 0; stat < 2; stat++) {
        jw_array_begin(w, stat == 0 ? "avg" : "p99");
        for (int s = 0; s < n_sets(run); s++) {
            jw_array_begin(w, NULL);
            for (int t = 0; t < run->env.plan->n_tests; t++) {
                double avg, p99;
                run_impact_mean(run, run->env.plan->tests[t].kernel->id, set_name(run, s), &avg, &p99);
                jw_number(w, NULL, stat == 0 ? avg : p99);
            }
            jw_array_end(w);
        }
        jw_array_end(w);
    }
    jw_int(w, "repetitions", run->env.plan->set.repeat);
    jw_object_end(w);
}

static void json_repeats(json_writer_t *w, const run_t *run)
{
    int n = run->env.plan->set.repeat;
    double *values = malloc(sizeof(double) * (size_t)n);
    jw_object_begin(w, "repeats");
    jw_int(w, "runs", n);
    jw_array_begin(w, "seeds");
    for (int r = 0; r < n && r < run->repetition; r++)
        jw_int(w, NULL, (long long)run->env.plan->seeds[r]);
    jw_array_end(w);
    jw_array_begin(w, "metrics");
    for (int t = 0; t < run->env.plan->n_tests; t++) {
        for (int m = 0; m < N_METRICS; m++) {
            metric_values(run, run->env.plan->tests[t].kernel->id, m, values);
            repeat_stats_t s = repeat_stats(values, n);
            jw_object_begin(w, NULL);
            jw_string(w, "test", run->env.plan->tests[t].kernel->id);
            jw_string(w, "metric", metric_id[m]);
            jw_string(w, "unit", m >= M_CI_AVG ? "x" : run->env.plan->tests[t].kernel->unit);
            jw_array_begin(w, "values");
            for (int r = 0; r < n; r++)
                jw_number(w, NULL, values[r]);
            jw_array_end(w);
            jw_number(w, "mean", s.mean);
            jw_number(w, "min", s.min);
            jw_number(w, "max", s.max);
            jw_number(w, "cv", s.cv);
            jw_object_end(w);
        }
    }
    jw_array_end(w);
    /* The run-to-run coefficient of variation of each Congestion Impact. */
    jw_object_begin(w, "cv");
    for (int t = 0; t < run->env.plan->n_tests; t++) {
        jw_object_begin(w, run->env.plan->tests[t].kernel->id);
        for (int m = M_CI_AVG; m <= M_CI_P99; m++) {
            metric_values(run, run->env.plan->tests[t].kernel->id, m, values);
            jw_number(w, m == M_CI_AVG ? "avg" : "p99", repeat_stats(values, n).cv);
        }
        jw_object_end(w);
    }
    jw_object_end(w);
    jw_object_end(w);
    free(values);
}

void load_summary_json(json_writer_t *w, const run_t *run, const void *unused)
{
    if (run->env.program != PROGRAM_NETWORK_LOAD_TEST)
        return;
    if (run->env.plan->set.congestor_sweep)
        json_matrix(w, run);
    if (run->env.plan->set.repeat > 1)
        json_repeats(w, run);
}
