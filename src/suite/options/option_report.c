/* The settings lines of the preamble and the JSON config, generated from
 * the option table: each key in its place (the rows' .at, then the others
 * in row order; option_keys), written by the row's type (option_query.c),
 * or by its hook for what the run resolved (option_hooks.c). */
#include "suite/options/option_report.h"

#include <stdio.h>
#include <string.h>

#include "suite/options/option_hooks.h"
#include "suite/options/option_table.h"

/* A kernel's own option is printed and recorded only in runs of its
 * kernel: a run without the kernel reads as one of a build without it. */
static int kernel_runs(const run_t *run, const opt_row_t *r)
{
    const kernel_options_t *set = option_row_kernel(r, NULL);
    return !set || run_plan_runs_kernel(run->env.plan, set);
}

/* With the congestors in a separate job (--congestor-job-start) this job
 * runs no congestor: the lines of the in-job congestors and their
 * placement would describe nothing that ran. */
static int separate_job_hides(const run_t *run, const char *key)
{
    static const char *const in_job[] = {"canary_fraction", "congestors", "congestor_measurements",
                                         "congestor_bytes", "placement"};
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
            option_settings_line(r, &run->env.opt);
        }
    }
    fflush(stdout);
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
        else if (r && kernel_runs(run, r))
            option_config_entry(w, r, &run->env.opt, run->env.program);
    }
    jw_object_end(w);
}
