#include "suite/record/run_record.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "infra/fatal.h"
#include "infra/progress.h"

/* Room for one more element in a growing array (rank 0 only). */
static void *grow(void *array, int n, int *cap, size_t size)
{
    if (n < *cap)
        return array;
    *cap = *cap ? 2 * *cap : 16;
    void *bigger = realloc(array, size * (size_t)*cap);
    if (!bigger)
        die("out of memory for %d results", *cap);
    return bigger;
}

result_t *run_record(run_t *run, const char *table_id, const char *title, const result_t *r)
{
    if (run->env.rank != 0)
        return NULL;
    run_table_t *t = NULL;
    for (int i = 0; i < run->record.n_tables; i++)
        if (run->record.tables[i].repetition == run->repetition && strcmp(run->record.tables[i].id, table_id) == 0)
            t = &run->record.tables[i];
    if (!t) {
        run->record.tables = grow(run->record.tables, run->record.n_tables, &run->record.cap_tables, sizeof(run_table_t));
        t = &run->record.tables[run->record.n_tables++];
        memset(t, 0, sizeof(*t));
        snprintf(t->id, sizeof(t->id), "%s", table_id);
        snprintf(t->title, sizeof(t->title), "%s", title);
        t->repetition = run->repetition;
    }
    if (t->n_rows >= RUN_MAX_ROWS)
        die("too many rows in table %s", table_id);
    result_t *copy = xmalloc(sizeof(*copy));
    memcpy(copy, r, sizeof(*copy));
    t->rows[t->n_rows++] = copy;
    if (!isnan(r->avg_precision)) /* --converge */
        progress_converge(r->name, r->converged, r->avg_precision, r->tail_precision,
                          run->env.plan->set.converge_tol);
    return copy;
}

const result_t *run_find_in(const run_t *run, int repetition, const char *table_id,
                            const char *test_id)
{
    for (int i = 0; i < run->record.n_tables; i++) {
        if (run->record.tables[i].repetition != repetition || strcmp(run->record.tables[i].id, table_id) != 0)
            continue;
        for (int j = 0; j < run->record.tables[i].n_rows; j++)
            if (strcmp(run->record.tables[i].rows[j]->test_id, test_id) == 0)
                return run->record.tables[i].rows[j];
    }
    return NULL;
}

const result_t *run_find(const run_t *run, const char *table_id, const char *test_id)
{
    return run_find_in(run, run->repetition, table_id, test_id);
}

run_impact_t *run_add_impact(run_t *run)
{
    run->record.impact = grow(run->record.impact, run->record.n_impact, &run->record.cap_impact, sizeof(run_impact_t));
    run_impact_t *c = &run->record.impact[run->record.n_impact++];
    memset(c, 0, sizeof(*c));
    c->repetition = run->repetition;
    return c;
}

void run_impact_mean(const run_t *run, const char *test_id, const char *set, double *avg,
                     double *p99)
{
    double sa = 0.0, sp = 0.0;
    int n = 0;
    for (int i = 0; i < run->record.n_impact; i++) {
        const run_impact_t *e = &run->record.impact[i];
        if (strcmp(e->test_id, test_id) != 0 || strcmp(e->congestor, set) != 0)
            continue;
        sa += e->avg;
        sp += e->p99;
        n++;
    }
    *avg = n ? sa / n : NAN;
    *p99 = n ? sp / n : NAN;
}

void run_record_phase(run_t *run, const char *name, double wall_s)
{
    if (run->env.rank != 0)
        return;
    run->record.phases = grow(run->record.phases, run->record.n_phases, &run->record.cap_phases, sizeof(run_phase_t));
    run_phase_t *p = &run->record.phases[run->record.n_phases++];
    snprintf(p->name, sizeof(p->name), "%s", name);
    p->repetition = run->repetition;
    p->wall_s = wall_s;
    p->counters = run->counters.pending; /* the phase owns them now */
    run->counters.pending = NULL;
}

void run_record_free(run_t *run)
{
    if (run->env.rank != 0)
        return;
    for (int i = 0; i < run->record.n_tables; i++)
        for (int j = 0; j < run->record.tables[i].n_rows; j++)
            free(run->record.tables[i].rows[j]);
    free(run->record.tables);
    free(run->record.impact);
    for (int i = 0; i < run->record.n_phases; i++)
        free(run->record.phases[i].counters);
    free(run->record.phases);
    run->record.tables = NULL;
    run->record.impact = NULL;
    run->record.phases = NULL;
    run->record.n_tables = run->record.n_impact = run->record.n_phases = 0;
}

void run_add_json_section(run_t *run, run_json_section_t section)
{
    if (run->env.n_json_sections >= RUN_MAX_JSON_SECTIONS)
        die("too many JSON sections");
    run->env.json_sections[run->env.n_json_sections++] = section;
}

void result_for_canary(result_t *r, const canary_plan_t *test)
{
    const canary_kernel_t *k = test->kernel;
    loop_limits_t lim = test->limits;
    memset(r, 0, sizeof(*r));
    snprintf(r->test_id, sizeof(r->test_id), "%s", k->id);
    snprintf(r->name, sizeof(r->name), "%s", test->name);
    snprintf(r->unit, sizeof(r->unit), "%s", k->unit);
    r->higher_is_better = k->higher_is_better;
    r->rings = k->loop == LOOP_COLLECTIVE ? 1 : lim.rings;
    r->iterations = lim.iterations;
}

void result_for_congestor(result_t *r, const congestor_plan_t *c)
{
    memset(r, 0, sizeof(*r));
    snprintf(r->test_id, sizeof(r->test_id), "%s", c->kernel->id);
    snprintf(r->name, sizeof(r->name), "%s", c->name);
    snprintf(r->unit, sizeof(r->unit), "MiB/s/rank");
    r->higher_is_better = 1;
    r->rings = 1;
}
