#include "suite/run_plan.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "congestor/flows.h"
#include "suite/options/kernel_options.h"
#include "suite/options/option_table.h"

/* The tests with their limits; returns 1 when they are the default ones. */
static int plan_tests(run_plan_t *p, const options_t *o, int load)
{
    int defaults[OPT_MAX_LIST], n_defaults = 0;
    for (int i = 0; i < canary_kernel_count; i++)
        if (canary_in_default_set[i] && (!load || canary_kernels[i]->load_canary))
            defaults[n_defaults++] = i;
    const int *chosen = o->n_tests ? o->tests : defaults;
    p->n_tests = o->n_tests ? o->n_tests : n_defaults;
    int same = p->n_tests == n_defaults;
    for (int i = 0; i < p->n_tests; i++) {
        const canary_kernel_t *k = canary_kernels[chosen[i]];
        same = same && chosen[i] == defaults[i];
        loop_limits_t lim = k->limits;
        if (o->measurements > 0)
            lim.measurements = (int)o->measurements;
        if (o->rings > 0 && k->loop != LOOP_COLLECTIVE)
            lim.rings = (int)o->rings;
        if (o->iterations > 0)
            lim.iterations = (int)o->iterations;
        if (o->warmup >= 0)
            lim.warmup = (int)o->warmup;
        p->tests[i] = (canary_plan_t){.kernel = k,
                                      .params = kernel_options_canary_params(k, o),
                                      .limits = lim,
                                      .time_limit = p->set.time_limit,
                                      .converge_tol = p->set.converge_tol,
                                      .ring_seed = o->ring_seed};
        canary_display_name(k, &p->tests[i].params, p->tests[i].name, sizeof(p->tests[i].name));
    }
    return same;
}

/* The congestor parameter block every congestor entry carries. */
static congestor_params_t congestor_params(const options_t *o)
{
    congestor_params_t c = CONGESTOR_PARAMS_DEFAULT;
    c.message_bytes = o->congestor_bytes;
    /* --burst-intensity alone paces a load that never pauses: one ON period
     * without end. */
    if (o->burst[0] > 0.0 || o->burst_intensity < 1.0)
        c.burst = (burst_shape_t){.on_s = o->burst[0] > 0.0 ? o->burst[0] : INFINITY,
                                  .off_s = o->burst[0] > 0.0 ? o->burst[1] : 0.0,
                                  .intensity = o->burst_intensity,
                                  .jitter = o->burst_jitter};
    return c;
}

static void add_congestor(run_plan_t *p, const options_t *o, const congestor_kernel_t *k,
                          int weight)
{
    int n = p->n_congestors++;
    p->weights[n] = weight;
    p->congestors[n] = (congestor_plan_t){.kernel = k,
                                          .params = kernel_options_congestor_params(
                                              k, o, p->congestor_params),
                                          .weight = weight,
                                          .measurements = p->congestor_measurements,
                                          .base_iterations = p->congestor_iterations,
                                          .time_limit = p->set.time_limit,
                                          .converge_tol = p->set.converge_tol};
    congestor_display_name(k, &p->congestors[n].params, p->congestors[n].name,
                           sizeof(p->congestors[n].name));
}

/* The congestors; returns 1 when they are the default ones. */
static int plan_congestors(run_plan_t *p, const options_t *o)
{
    p->congestor_measurements =
        o->congestor_measurements > 0 ? (int)o->congestor_measurements : CONGESTOR_MEASUREMENTS;
    p->congestor_iterations =
        o->congestor_iterations > 0 ? (int)o->congestor_iterations : CONGESTOR_BASE_ITERATIONS;
    p->congestor_params = congestor_params(o);
    int same = 1;
    if (o->n_congestors) {
        for (int i = 0; i < o->n_congestors; i++) {
            const congestor_kernel_t *k = congestor_kernels[o->congestors[i]];
            same = same && o->congestors[i] == i && k->default_mix && o->congestor_weights[i] == 1;
            add_congestor(p, o, k, o->congestor_weights[i]);
        }
    } else {
        for (int i = 0; i < congestor_kernel_count; i++)
            if (congestor_kernels[i]->default_mix)
                add_congestor(p, o, congestor_kernels[i], 1);
    }
    int n_default = 0;
    for (int i = 0; i < congestor_kernel_count; i++)
        n_default += congestor_kernels[i]->default_mix;
    return same && p->n_congestors == n_default;
}

/* --burst-sweep cell c: intensity outermost, OFF fastest. */
static void plan_burst_cells(run_plan_t *p, const options_t *o)
{
    const burst_sweep_t *g = &o->burst_sweep;
    p->burst_grid = *g;
    p->burst_jitter = o->burst_jitter;
    p->n_burst_cells = g->n_on * g->n_off * g->n_intensity;
    for (int c = 0; c < p->n_burst_cells; c++)
        p->burst_cells[c] = (burst_shape_t){.on_s = g->on[c / g->n_off % g->n_on],
                                            .off_s = g->off[c % g->n_off],
                                            .intensity = g->intensity[c / (g->n_off * g->n_on)],
                                            .jitter = o->burst_jitter};
}

int run_plan_runs_kernel(const run_plan_t *p, const kernel_options_t *set)
{
    for (int i = 0; i < p->n_tests; i++)
        if (&p->tests[i].kernel->options == set)
            return 1;
    for (int i = 0; i < p->n_congestors; i++)
        if (&p->congestors[i].kernel->options == set)
            return 1;
    return 0;
}

static int kernel_runs(const void *ctx, const kernel_options_t *set)
{
    return run_plan_runs_kernel(ctx, set);
}

int run_plan_check_kernel_options(const run_plan_t *p, const options_t *o, char *err,
                                  size_t errlen)
{
    for (int i = 0; i < option_count(); i++) {
        const opt_row_t *r = option_row(i);
        const char *kernel;
        const kernel_options_t *set = option_row_kernel(r, &kernel);
        if (!set || run_plan_runs_kernel(p, set) || !option_differs(o, r))
            continue;
        /* network_test runs tests only: an option it takes is a test's. */
        int canary = (r->scope & OPT_NT) != 0;
        snprintf(err, errlen, "%s is an option of the %s %s, which this run does not run (name it "
                 "in %s)", r->name, canary ? "test" : "congestor", kernel,
                 canary ? "--tests" : "--congestors");
        return -1;
    }
    return 0;
}


void run_plan_build(run_plan_t *p, const options_t *o, program_t program, uint64_t clock_seed)
{
    memset(p, 0, sizeof(*p));
    p->program = program;
    p->set = o->set; /* the settings taken as given, as their rows parsed them */
    int tests_default = plan_tests(p, o, program == PROGRAM_NETWORK_LOAD_TEST);
    int congestors_default = plan_congestors(p, o);
    option_runs_t runs = {kernel_runs, p};
    p->official_default = options_non_default(o, program, tests_default, congestors_default,
                                              &runs, p->non_default, sizeof(p->non_default)) == 0;
    if (program == PROGRAM_NETWORK_CONGESTOR && o->set.flows_file[0]) {
        /* The flow list is the traffic: one kernel, the flows. */
        p->flows = 1;
        p->n_congestors = 0;
        add_congestor(p, o, &flows_kernel, 1);
    }
    p->seed_from_time = !o->seed_given;
    int reps = p->set.repeat < 1 ? 1 : p->set.repeat < OPT_MAX_REPEAT ? p->set.repeat : OPT_MAX_REPEAT;
    for (int r = 0; r < reps; r++)
        p->seeds[r] = p->seed_from_time ? clock_seed + (uint64_t)r : o->seed;
    plan_burst_cells(p, o);
}

void run_plan_roles_from_launch(run_plan_t *p)
{
    p->roles_from_launch = 1;
    p->official_default = 0;
    if (!strstr(p->non_default, "canary_fraction")) {
        size_t n = strlen(p->non_default);
        snprintf(p->non_default + n, sizeof(p->non_default) - n, "%scanary_fraction", n ? ", " : "");
    }
}
