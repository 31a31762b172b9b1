#include "suite/run_config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Returns 1 when the tests are the default ones. */
static int select_tests(run_config_t *c, const options_t *o, int load)
{
    int defaults[OPT_MAX_LIST], n_defaults = 0;
    for (int i = 0; i < canary_kernel_count; i++)
        if (!canary_kernels[i]->extra && (!load || canary_kernels[i]->load_canary))
            defaults[n_defaults++] = i;
    const int *chosen = o->n_tests ? o->tests : defaults;
    c->n_tests = o->n_tests ? o->n_tests : n_defaults;
    int same = c->n_tests == n_defaults;
    for (int i = 0; i < c->n_tests; i++) {
        const canary_kernel_t *k = canary_kernels[chosen[i]];
        c->tests[i] = k;
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
        c->limits[i] = lim;
    }
    c->canary_params = CANARY_PARAMS_DEFAULT; /* no option changes a canary's sizes yet */
    return same;
}

/* Returns 1 when the congestors are the default ones. */
static int select_congestors(run_config_t *c, const options_t *o)
{
    int same = 1, n = 0;
    if (o->n_congestors) {
        for (int i = 0; i < o->n_congestors; i++) {
            c->congestors[n] = congestor_kernels[o->congestors[i]];
            c->weights[n] = o->congestor_weights[i];
            same = same && o->congestors[i] == i && c->congestors[n]->default_mix &&
                   c->weights[n] == 1;
            n++;
        }
    } else {
        for (int i = 0; i < congestor_kernel_count; i++)
            if (congestor_kernels[i]->default_mix) {
                c->congestors[n] = congestor_kernels[i];
                c->weights[n++] = 1;
            }
    }
    int n_default = 0;
    for (int i = 0; i < congestor_kernel_count; i++)
        n_default += congestor_kernels[i]->default_mix;
    c->n_congestors = n;
    c->congestor_measurements =
        o->congestor_measurements > 0 ? (int)o->congestor_measurements : CONGESTOR_MEASUREMENTS;
    c->congestor_params = CONGESTOR_PARAMS_DEFAULT;
    c->congestor_params.message_doubles = (int)(o->congestor_bytes / (long)sizeof(double));
    /* --burst-intensity alone paces a load that never pauses: one ON period
     * without end. */
    if (o->burst[0] > 0.0 || o->burst_intensity < 1.0)
        c->congestor_params.burst = (burst_shape_t){
            .on_s = o->burst[0] > 0.0 ? o->burst[0] : INFINITY,
            .off_s = o->burst[0] > 0.0 ? o->burst[1] : 0.0,
            .intensity = o->burst_intensity,
            .jitter = o->burst_jitter};
    c->congestor_iterations =
        o->congestor_iterations > 0 ? (int)o->congestor_iterations : CONGESTOR_BASE_ITERATIONS;
    return same && n == n_default;
}

void run_config_resolve(run_config_t *c, const options_t *o, program_t program)
{
    int load = program == PROGRAM_NETWORK_LOAD_TEST;
    memset(c, 0, sizeof(*c));
    int tests_default = select_tests(c, o, load);
    int congestors_default = select_congestors(c, o);
    c->official_default = options_non_default(o, program, tests_default, congestors_default,
                                              c->non_default, sizeof(c->non_default)) == 0;
}
