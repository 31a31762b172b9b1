#include "suite/options/option_hooks.h"

#include <stdio.h>
#include <string.h>

#include "suite/launch_roles.h"

static int is_load(const run_t *run)
{
    return run->env.program == PROGRAM_NETWORK_LOAD_TEST;
}

static void show_official(const run_t *run)
{
    if (run->env.program == PROGRAM_NETWORK_CONGESTOR) {
        printf("  Settings\n"); /* it measures nothing the paper publishes */
        return;
    }
    printf("  Settings (official default configuration: %s%s%s)\n",
           run->env.plan->official_default ? "yes" : "no", run->env.plan->official_default ? "" : "; differs: ",
           run->env.plan->non_default);
}

static void config_official(json_writer_t *w, const run_t *run)
{
    jw_bool(w, "official_default", run->env.plan->official_default);
    jw_array_begin(w, "non_default");
    char names[sizeof(run->env.plan->non_default)];
    snprintf(names, sizeof(names), "%s", run->env.plan->non_default);
    for (char *tok = strtok(names, ", "); tok; tok = strtok(NULL, ", "))
        jw_string(w, NULL, tok);
    jw_array_end(w);
}

static void show_seed(const run_t *run)
{
    printf("   seed = %llu (%s)\n", (unsigned long long)run_seed(run),
               run->env.plan->seed_from_time ? "time on rank 0" : "--seed");
}

static void config_seed(json_writer_t *w, const run_t *run)
{
    /* With --repeat, the first repetition's (repetitions[] has them all). */
    jw_int(w, "seed", (long long)run->env.plan->seeds[0]);
    jw_string(w, "seed_source", run->env.plan->seed_from_time ? "time" : "option");
}

static void show_congestors(const run_t *run)
{
    printf("   congestors =");
    for (int i = 0; i < run->env.plan->n_congestors; i++)
        printf("%s %s:%d", i ? "," : "", run->env.plan->congestors[i].kernel->id, run->env.plan->weights[i]);
    printf("\n");
}

static void config_congestors(json_writer_t *w, const run_t *run)
{
    jw_array_begin(w, "congestors");
    for (int i = 0; is_load(run) && i < run->env.plan->n_congestors; i++) {
        jw_object_begin(w, NULL);
        jw_string(w, "id", run->env.plan->congestors[i].kernel->id);
        char published[64]; /* the name at the published size, as ever */
        const congestor_kernel_t *k = run->env.plan->congestors[i].kernel;
        const congestor_params_t defaults = congestor_params_default(k);
        congestor_display_name(k, &defaults, published, sizeof(published));
        jw_string(w, "name", published);
        jw_int(w, "weight", run->env.plan->weights[i]);
        jw_object_end(w);
    }
    jw_array_end(w);
}

static void show_congestor_loops(const run_t *run)
{
    printf("   congestor loops = %d measurements x %d iterations (scaled above 32 ranks)\n",
               run->env.plan->congestor_measurements, run->env.plan->congestor_iterations);
}

static void config_congestor_measurements(json_writer_t *w, const run_t *run)
{
    if (is_load(run))
        jw_int(w, "congestor_measurements", run->env.plan->congestor_measurements);
}

static void config_congestor_iterations(json_writer_t *w, const run_t *run)
{
    if (is_load(run))
        jw_int(w, "congestor_iterations", run->env.plan->congestor_iterations);
}

static void show_repeat(const run_t *run)
{
    if (run->env.plan->set.repeat > 1)
        printf("   repeat = %d (%s)\n", run->env.plan->set.repeat,
               run->env.plan->seed_from_time ? "fresh placement seed each time" : "same seed each time");
}

/* network_congestor's: per round, of the kernels or of the flows. */
static void show_congestor_iterations(const run_t *run)
{
    if (run->env.plan->set.flows_file[0])
        printf("   flow iterations = %d per round\n",
               run->env.plan->congestors[0].kernel->iterations_for(run->env.plan->congestor_iterations, 0));
    else
        printf("   congestor iterations = %d per round (scaled above 32 ranks)\n",
               run->env.plan->congestor_iterations);
}

static void show_duration(const run_t *run)
{
    if (run->env.plan->set.duration > 0.0)
        printf("   duration = %g s\n", run->env.plan->set.duration);
    else
        printf("   duration = until a signal%s\n",
               run->env.plan->set.stop_file[0] ? " or the stop file" : "");
}

static void show_tests(const run_t *run)
{
    for (int i = 0; i < run->env.plan->n_tests; i++) {
        loop_limits_t l = run->env.plan->tests[i].limits;
        printf("   %s = %d measurements x %d rings x %d iterations, %d warm-up\n",
               run->env.plan->tests[i].kernel->id, l.measurements, l.rings, l.iterations, l.warmup);
    }
}

static void config_tests(json_writer_t *w, const run_t *run)
{
    jw_array_begin(w, "tests");
    for (int i = 0; i < run->env.plan->n_tests; i++)
        jw_string(w, NULL, run->env.plan->tests[i].kernel->id);
    jw_array_end(w);
}

static void config_loops(json_writer_t *w, const run_t *run)
{
    jw_object_begin(w, "loops");
    for (int i = 0; i < run->env.plan->n_tests; i++) {
        jw_object_begin(w, run->env.plan->tests[i].kernel->id);
        jw_int(w, "measurements", run->env.plan->tests[i].limits.measurements);
        jw_int(w, "rings", run->env.plan->tests[i].limits.rings);
        jw_int(w, "iterations", run->env.plan->tests[i].limits.iterations);
        jw_int(w, "warmup", run->env.plan->tests[i].limits.warmup);
        jw_object_end(w);
    }
    jw_object_end(w);
}

static void show_nodes(const run_t *run)
{
    const options_t *o = &run->env.opt;
    if (o->set.emulate_ppn)
        printf("   nodes = emulated, %d consecutive ranks per node\n", o->set.emulate_ppn);
    else if (o->set.emulate_nodes)
        printf("   nodes = emulated, %d equal groups of ranks\n", o->set.emulate_nodes);
    else
        printf("   nodes = shared-memory hosts\n");
}

static void config_nodes(json_writer_t *w, const run_t *run)
{
    const options_t *o = &run->env.opt;
    if (!o->set.emulate_ppn && !o->set.emulate_nodes) {
        jw_null(w, "emulated_nodes");
        return;
    }
    jw_object_begin(w, "emulated_nodes");
    if (o->set.emulate_ppn)
        jw_int(w, "ranks_per_node", o->set.emulate_ppn);
    else
        jw_int(w, "nodes", o->set.emulate_nodes);
    jw_object_end(w);
}

static void show_ppn(const run_t *run)
{
    printf("   PPN = %d%s, NICs per node = %d, PPort = %g\n", run->env.nodes.ppn_max,
           run->env.nodes.ppn_min != run->env.nodes.ppn_max ? " (uneven)" : "", run->env.plan->set.nics_per_node,
           (double)run->env.nodes.ppn_max / run->env.plan->set.nics_per_node);
}

static void show_mpi(const run_t *run)
{
    printf("   MPI = %s\n", run->env.mpi_library);
}

static void show_json(const run_t *run)
{
    printf("   JSON = %s\n", run->env.json_path);
}

static void config_json(json_writer_t *w, const run_t *run)
{
    jw_string(w, "json", run->env.json_path);
}

/* Only when set: a steady run's settings and config stay the published
 * ones. --burst-intensity alone paces a load without pauses. */
static void show_burst(const run_t *run)
{
    const burst_shape_t *b = &run->env.plan->congestor_params.burst;
    if (burst_is_steady(b))
        return;
    if (run->env.opt.burst[0] > 0.0)
        printf("   burst = %g s on, %g s off, intensity %g, jitter %g\n", b->on_s, b->off_s,
               b->intensity, b->jitter);
    else
        printf("   burst = none, intensity %g (paced, no pauses)\n", b->intensity);
}

static void config_burst(json_writer_t *w, const run_t *run)
{
    const burst_shape_t *b = &run->env.plan->congestor_params.burst;
    /* A --burst-sweep run sets the shape cell by cell: its grid is the
     * record ("burst_sweep"), not the cell running now. */
    if (burst_is_steady(b) || run->env.opt.burst_sweep.n_on > 0)
        return;
    jw_object_begin(w, "burst");
    if (run->env.opt.burst[0] > 0.0) {
        jw_number(w, "on_s", b->on_s);
        jw_number(w, "off_s", b->off_s);
    } else {
        jw_null(w, "on_s");
        jw_null(w, "off_s");
    }
    jw_number(w, "intensity", b->intensity);
    jw_number(w, "jitter", b->jitter);
    jw_object_end(w);
}

/* With roles from an MPMD launch the canary fraction is not the one that
 * ran: no settings line (the preamble's "canary share" line says what the
 * launch gave), and the config records the launch's share. Under the
 * draw, the row's line and value. */
static void show_canary_fraction(const run_t *run)
{
    if (!run->env.plan->roles_from_launch)
        option_settings_line(option_by_key("canary_fraction"), &run->env.opt);
}

static void config_canary_fraction(json_writer_t *w, const run_t *run)
{
    if (run->env.plan->roles_from_launch)
        jw_number(w, "canary_fraction", launch_roles_canary_share(run));
    else
        option_config_entry(w, option_by_key("canary_fraction"), &run->env.opt, run->env.program);
}

static const option_hook_t hooks[] = {
    {"burst", OPT_LT | OPT_NC, show_burst, config_burst},
    {"official_default", OPT_ANY, show_official, config_official},
    {"seed", OPT_LT | OPT_NC, show_seed, config_seed},
    {"canary_fraction", OPT_LT, show_canary_fraction, config_canary_fraction},
    {"congestors", OPT_LT, show_congestors, config_congestors},
    {"congestor_measurements", OPT_LT, show_congestor_loops, config_congestor_measurements},
    {"congestor_iterations", OPT_NC, show_congestor_iterations, config_congestor_iterations},
    {"duration", OPT_NC, show_duration, NULL},
    {"repeat", OPT_LT, show_repeat, NULL},
    {"tests", OPT_MEASURING, show_tests, config_tests},
    {"loops", 0, NULL, config_loops},
    {"emulated_nodes", OPT_MEASURING, show_nodes, config_nodes},
    {"nics_per_node", OPT_MEASURING, show_ppn, NULL},
    {"mpi", OPT_ANY, show_mpi, NULL},
    {"json", OPT_ANY, show_json, config_json},
};

/* The keys the records list that are not options, and their places. */
const opt_record_key_t option_record_keys[] = {
    {"official_default", {.settings = 1, .config = 1}},
    {"loops", {.config = 10}},
    {"mpi", {.settings = 22}},
};
const int option_record_key_count =
    (int)(sizeof(option_record_keys) / sizeof(option_record_keys[0]));

const option_hook_t *option_hook(const char *key)
{
    for (size_t i = 0; i < sizeof(hooks) / sizeof(hooks[0]); i++)
        if (strcmp(hooks[i].key, key) == 0)
            return &hooks[i];
    return NULL;
}

