/* The settings lines of the preamble and the JSON config, generated from
 * the option table: each key in its place (the rows' .at, then the others
 * in row order; option_keys), written by the row's type, or by its hook
 * for what the run resolved (option_hooks.c). */
#include "suite/options/option_report.h"

#include <stdio.h>
#include <string.h>

#include "suite/launch_roles.h"
#include "suite/options/option_burst.h"
#include "suite/options/option_hooks.h"
#include "suite/options/option_table.h"

/* A kernel's own option is printed and recorded only in runs of its
 * kernel: a run without the kernel reads as one of a build without it. */
static int kernel_runs(const run_t *run, const opt_row_t *r)
{
    const kernel_options_t *set = option_row_kernel(r, NULL);
    return !set || run_plan_runs_kernel(run->env.plan, set);
}

/* "   time limit = 10 s per test": a row's value as its type prints it. */
static void show_row(const opt_row_t *r, const options_t *o)
{
    const void *f = option_field(o, r);
    printf("   %s = ", r->label);
    switch (r->type) {
    case OT_FLAG:
        printf("%s", *(const int *)f ? "yes" : "no");
        break;
    case OT_INT:
        printf("%d", *(const int *)f);
        break;
    case OT_LONG:
        printf("%ld", *(const long *)f);
        break;
    case OT_U64:
        printf("%llu", (unsigned long long)*(const uint64_t *)f);
        break;
    case OT_DOUBLE:
        printf("%g", *(const double *)f);
        break;
    case OT_CHOICE:
        printf("%s", (r->choice_text ? r->choice_text : r->choices)[*(const int *)f]);
        break;
    case OT_BURST_SWEEP:
        option_burst_sweep_show(stdout, o);
        break;
    default:
        printf("%s", (const char *)f);
    }
    printf("%s%s\n", r->unit ? r->unit : "", r->show_note ? r->show_note : "");
}

/* With the congestors in a separate job (--congestor-job-start) this job
 * runs no congestor: the lines of the in-job congestors and their
 * placement would describe nothing that ran. With roles from an MPMD
 * launch the canary fraction is not the one that ran: the preamble's
 * "canary share" line says what the launch gave. */
static int separate_job_hides(const run_t *run, const char *key)
{
    static const char *const in_job[] = {"canary_fraction", "congestors", "congestor_measurements",
                                         "congestor_bytes", "placement"};
    if (run->env.plan->roles_from_launch && strcmp(key, "canary_fraction") == 0)
        return 1;
    if (!run->env.plan->set.congestor_job_start[0])
        return 0;
    for (size_t i = 0; i < sizeof(in_job) / sizeof(in_job[0]); i++)
        if (strcmp(key, in_job[i]) == 0)
            return 1;
    return 0;
}

void options_print_settings(const run_t *run)
{
    const char *keys[OPT_MAX_KEYS];
    int n = option_keys(OPT_ORDER_SETTINGS, option_record_keys, option_record_key_count, keys, OPT_MAX_KEYS);
    for (int k = 0; k < n; k++) {
        const option_hook_t *h = option_hook(keys[k]);
        const opt_row_t *r = option_by_key(keys[k]);
        if (separate_job_hides(run, keys[k]))
            continue;
        if (h && h->show) {
            if (h->show_in & option_program_bit(run->env.program))
                h->show(run);
        } else if (r && r->label && (option_scope(r->name) & option_program_bit(run->env.program)) &&
                   (!r->show_set || option_differs(&run->env.opt, r)) && kernel_runs(run, r)) {
            show_row(r, &run->env.opt);
        }
    }
    fflush(stdout);
}

static void config_row(json_writer_t *w, const opt_row_t *r, const options_t *o,
                       program_t program)
{
    const void *f = option_field(o, r);
    if (!(r->config & option_program_bit(program)) ||
        ((r->config_set || r->config_null == CONFIG_NULL_AT_DEFAULT) &&
         !option_differs(o, r))) {
        if (r->config_null)
            jw_null(w, r->key);
        return;
    }
    switch (r->type) {
    case OT_FLAG:
        jw_bool(w, r->key, *(const int *)f);
        break;
    case OT_INT:
        jw_int(w, r->key, *(const int *)f);
        break;
    case OT_LONG:
        jw_int(w, r->key, *(const long *)f);
        break;
    case OT_U64:
        jw_int(w, r->key, (long long)*(const uint64_t *)f);
        break;
    case OT_DOUBLE:
        jw_number(w, r->key, *(const double *)f);
        break;
    case OT_CHOICE:
        jw_string(w, r->key, r->choices[*(const int *)f]);
        break;
    case OT_BURST_SWEEP:
        option_burst_sweep_json(w, r->key, o);
        break;
    default:
        jw_string(w, r->key, (const char *)f);
    }
}

void options_write_config(json_writer_t *w, const run_t *run)
{
    const char *keys[OPT_MAX_KEYS];
    int n = option_keys(OPT_ORDER_CONFIG, option_record_keys, option_record_key_count, keys, OPT_MAX_KEYS);
    jw_object_begin(w, "config");
    for (int k = 0; k < n; k++) {
        const option_hook_t *h = option_hook(keys[k]);
        const opt_row_t *r = option_by_key(keys[k]);
        if (h && h->config)
            h->config(w, run);
        else if (run->env.plan->roles_from_launch && strcmp(keys[k], "canary_fraction") == 0)
            jw_number(w, keys[k], launch_roles_canary_share(run)); /* the share that ran */
        else if (r && kernel_runs(run, r))
            config_row(w, r, &run->env.opt, run->env.program);
    }
    jw_object_end(w);
}
