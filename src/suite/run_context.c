#include "suite/run_context.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "infra/fatal.h"
#include "infra/node_lists.h"
#include "infra/safe_file.h"
#include "infra/watchdog.h"
#include "suite/phase_counters.h"
#include "suite/results_json.h"

#define MSG_LEN 1024

static const char *test_ids[OPT_MAX_LIST];
static const char *congestor_ids[OPT_MAX_LIST];

static void catalogues(name_catalog_t *tests, name_catalog_t *congestors)
{
    for (int i = 0; i < canary_kernel_count; i++)
        test_ids[i] = canary_kernels[i]->id;
    for (int i = 0; i < congestor_kernel_count; i++)
        congestor_ids[i] = congestor_kernels[i]->id;
    tests->ids = test_ids;
    tests->count = canary_kernel_count;
    congestors->ids = congestor_ids;
    congestors->count = congestor_kernel_count;
}

static void add_non_default(run_t *run, const char *name)
{
    if (run->non_default[0])
        strncat(run->non_default, ", ", sizeof(run->non_default) - strlen(run->non_default) - 1);
    strncat(run->non_default, name, sizeof(run->non_default) - strlen(run->non_default) - 1);
}

static void select_tests(run_t *run)
{
    const options_t *o = &run->opt;
    int load = run->program == PROGRAM_NETWORK_LOAD_TEST;
    int defaults[OPT_MAX_LIST], n_defaults = 0;
    for (int i = 0; i < canary_kernel_count; i++)
        if (!load || canary_kernels[i]->load_canary)
            defaults[n_defaults++] = i;
    const int *chosen = o->n_tests ? o->tests : defaults;
    run->n_tests = o->n_tests ? o->n_tests : n_defaults;
    int same = run->n_tests == n_defaults;
    for (int i = 0; i < run->n_tests; i++) {
        const canary_kernel_t *k = canary_kernels[chosen[i]];
        run->tests[i] = k;
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
        run->limits[i] = lim;
    }
    if (!same)
        add_non_default(run, "tests");
}

static void select_congestors(run_t *run)
{
    const options_t *o = &run->opt;
    int same = 1, n = 0;
    if (o->n_congestors) {
        for (int i = 0; i < o->n_congestors; i++) {
            run->congestors[n] = congestor_kernels[o->congestors[i]];
            run->weights[n] = o->congestor_weights[i];
            same = same && o->congestors[i] == i && run->congestors[n]->default_mix &&
                   run->weights[n] == 1;
            n++;
        }
    } else {
        for (int i = 0; i < congestor_kernel_count; i++)
            if (congestor_kernels[i]->default_mix) {
                run->congestors[n] = congestor_kernels[i];
                run->weights[n++] = 1;
            }
    }
    int n_default = 0;
    for (int i = 0; i < congestor_kernel_count; i++)
        n_default += congestor_kernels[i]->default_mix;
    run->n_congestors = n;
    if (!same || n != n_default)
        add_non_default(run, "congestors");
    run->congestor_measurements =
        o->congestor_measurements > 0 ? (int)o->congestor_measurements : CONGESTOR_MEASUREMENTS;
    run->congestor_iterations =
        o->congestor_iterations > 0 ? (int)o->congestor_iterations : CONGESTOR_BASE_ITERATIONS;
}

static void note_overrides(run_t *run)
{
    const options_t *o = &run->opt;
    int load = run->program == PROGRAM_NETWORK_LOAD_TEST;
    if (load && o->seed_given)
        add_non_default(run, "seed");
    if (o->ring_seed_given && o->ring_seed != 1000)
        add_non_default(run, "ring_seed");
    if (load && o->canary_fraction != 0.2)
        add_non_default(run, "canary_fraction");
    if (o->time_limit != 10.0)
        add_non_default(run, "time_limit_s");
    if (o->measurements > 0)
        add_non_default(run, "measurements");
    if (o->rings > 0)
        add_non_default(run, "rings");
    if (o->iterations > 0)
        add_non_default(run, "iterations");
    if (o->warmup >= 0)
        add_non_default(run, "warmup");
    if (o->congestor_measurements > 0)
        add_non_default(run, "congestor_measurements");
    if (o->congestor_iterations > 0)
        add_non_default(run, "congestor_iterations");
    if (o->emulate_ppn || o->emulate_nodes)
        add_non_default(run, "emulated_nodes");
    if (o->congestor_sweep)
        add_non_default(run, "congestor_sweep");
    if (o->converge > 0.0)
        add_non_default(run, "converge");
    if (o->congestor_bytes != (long)(CONGESTOR_DEFAULT_DOUBLES * sizeof(double)))
        add_non_default(run, "congestor_bytes");
    if (o->placement != PLACEMENT_SPLIT)
        add_non_default(run, "placement");
    run->official_default = run->non_default[0] == '\0';
}

/* The directory a path is in ("." for a bare name). */
static void dir_of(const char *path, char *dir, size_t len)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, len, ".");
    else if (slash == path)
        snprintf(dir, len, "/");
    else
        snprintf(dir, len, "%.*s", (int)(slash - path), path);
}

/* A missing directory is made with its parents; the message names what
 * could not be made or written, and why. */
static int output_dir_ready(const run_t *run, const char *dir, char *msg, size_t len)
{
    const char *prog = program_name(run->program);
    char failed[OPT_PATH_MAX];
    struct stat st;
    if (stat(dir, &st) != 0 && safe_mkdirs(dir, failed, sizeof(failed)) != 0) {
        snprintf(msg, len, "%s: cannot create output directory '%.400s': %s (at '%.400s')\n", prog,
                 dir, strerror(errno), failed);
        return -1;
    }
    if (safe_dir_probe(dir) != 0) {
        int err = errno;
        if (err == ENOENT && stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
            snprintf(msg, len,
                     "%s: cannot write to output directory '%.800s': it exists, but its file "
                     "system accepts no new files (%s)\n",
                     prog, dir, strerror(err));
        else
            snprintf(msg, len, "%s: cannot write to output directory '%.800s': %s\n", prog, dir,
                     strerror(err));
        return -1;
    }
    return 0;
}

/* Rank 0 checks the output places before anything is measured, so a typo
 * costs seconds, not a reservation. Nothing is written through a link
 * (infra/safe_file.h), and no existing output is replaced without --force. */
static void check_outputs(run_t *run)
{
    char msg[MSG_LEN] = "";
    options_t *o = &run->opt;
    const char *prog = program_name(run->program);
    if (o->json_path[0])
        snprintf(run->json_path, sizeof(run->json_path), "%s", o->json_path);
    else
        snprintf(run->json_path, sizeof(run->json_path), "%.4000s/%s.json", o->output_dir, prog);
    char json_dir[OPT_PATH_MAX];
    dir_of(run->json_path, json_dir, sizeof(json_dir));
    if (run->rank == 0 && output_dir_ready(run, o->output_dir, msg, sizeof(msg)) == 0 &&
        output_dir_ready(run, json_dir, msg, sizeof(msg)) == 0) {
        /* The results file itself: writable now, disk not full, and not a
         * directory. */
        char tmp[OPT_PATH_MAX + 16];
        FILE *t = safe_tmp_open(run->json_path, tmp, sizeof(tmp));
        int bad = !t || fputs("{}\n", t) < 0;
        int err = errno;
        if (t && fclose(t) != 0 && !bad) {
            bad = 1;
            err = errno;
        }
        if (t)
            remove(tmp);
        struct stat st;
        char found[OPT_PATH_MAX + 64];
        if (bad)
            snprintf(msg, sizeof(msg), "%s: cannot write the results file '%.800s': %s\n", prog,
                     run->json_path, strerror(err));
        else if (stat(run->json_path, &st) == 0 && !S_ISREG(st.st_mode))
            snprintf(msg, sizeof(msg), "%s: results file '%.800s' is not a regular file\n", prog,
                     run->json_path);
        else if (!o->force && safe_exists(run->json_path))
            snprintf(msg, sizeof(msg),
                     "%s: results file '%.800s' already exists; use --force to overwrite it "
                     "or --json/--output-dir to choose another place\n",
                     prog, run->json_path);
        else if (!o->force && run->program == PROGRAM_NETWORK_LOAD_TEST &&
                 node_lists_existing(o->output_dir, o->repeat, found, sizeof(found)))
            snprintf(msg, sizeof(msg),
                     "%s: node list '%.800s' already exists; use --force to overwrite it "
                     "or --output-dir to choose another place\n",
                     prog, found);
    }
    MPI_Bcast(msg, MSG_LEN, MPI_CHAR, 0, run->world);
    if (msg[0])
        exit_all(1, "%s", msg);
}

void run_init(run_t *run, program_t program, int *argc, char ***argv)
{
    memset(run, 0, sizeof(*run));
    MPI_Init(argc, argv);
    run->t0 = MPI_Wtime();
    run->started = time(NULL);
    run->program = program;
    run->world = MPI_COMM_WORLD;
    run->ctr_leaders = MPI_COMM_NULL;
    run->status = "running";
    run->setup_s = -1.0;
    MPI_Comm_rank(run->world, &run->rank);
    MPI_Comm_size(run->world, &run->size);

    name_catalog_t tests, congestors;
    catalogues(&tests, &congestors);
    char err[MSG_LEN];
    opt_status_t st = options_parse(&run->opt, program, *argc, *argv, &tests, &congestors, err,
                                    sizeof(err));
    if (st != OPT_RUN) {
        static char usage[8192];
        options_usage(program, &tests, &congestors, usage, sizeof(usage));
        if (st == OPT_ERROR)
            exit_all(2, "%s: %s\n\n%s", program_name(program), err, usage);
        if (run->rank == 0) {
            if (st == OPT_HELP)
                fputs(usage, stdout);
            else
                printf("%s (GPCNeT) %s\n", program_name(program), GPCNET_VERSION);
        }
        exit_all(0, NULL);
    }

    int len = 0;
    MPI_Get_library_version(run->mpi_library, &len);
    run->mpi_library[strcspn(run->mpi_library, "\r\n")] = '\0';
    int ver, sub;
    MPI_Get_version(&ver, &sub);
    snprintf(run->mpi_standard, sizeof(run->mpi_standard), "%d.%d", ver, sub);

    select_tests(run);
    select_congestors(run);
    congestor_message_doubles = (int)(run->opt.congestor_bytes / (long)sizeof(double));
    run->repetition = 1;
    note_overrides(run);

    unsigned long long seed = run->opt.seed;
    run->seed_from_time = !run->opt.seed_given;
    if (run->seed_from_time) {
        /* The reference default: rank 0's clock, so placement cannot be
         * tuned for. */
        seed = (unsigned long long)time(NULL);
        MPI_Bcast(&seed, 1, MPI_UNSIGNED_LONG_LONG, 0, run->world);
    }
    run->seed = seed;

    if (nodes_discover(&run->nodes, run->world, run->opt.emulate_ppn, run->opt.emulate_nodes))
        exit_all(2, "%s: --emulate-node-count %d is larger than the %d ranks of this job\n",
                 program_name(program), run->opt.emulate_nodes, run->size);
    check_outputs(run);
    watchdog_start(run->rank, run->opt.deadline, run->json_path);
}

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
    if (run->rank != 0)
        return NULL;
    run_table_t *t = NULL;
    for (int i = 0; i < run->n_tables; i++)
        if (run->tables[i].repetition == run->repetition && strcmp(run->tables[i].id, table_id) == 0)
            t = &run->tables[i];
    if (!t) {
        run->tables = grow(run->tables, run->n_tables, &run->cap_tables, sizeof(run_table_t));
        t = &run->tables[run->n_tables++];
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
    return copy;
}

const result_t *run_find_in(const run_t *run, int repetition, const char *table_id,
                            const char *test_id)
{
    for (int i = 0; i < run->n_tables; i++) {
        if (run->tables[i].repetition != repetition || strcmp(run->tables[i].id, table_id) != 0)
            continue;
        for (int j = 0; j < run->tables[i].n_rows; j++)
            if (strcmp(run->tables[i].rows[j]->test_id, test_id) == 0)
                return run->tables[i].rows[j];
    }
    return NULL;
}

void run_setup_done(run_t *run)
{
    /* The slowest rank ends set-up for everyone: one barrier, O(log N). */
    MPI_Barrier(run->world);
    if (run->rank == 0)
        run->setup_s = MPI_Wtime() - run->t0;
}

const result_t *run_find(const run_t *run, const char *table_id, const char *test_id)
{
    return run_find_in(run, run->repetition, table_id, test_id);
}

run_impact_t *run_add_impact(run_t *run)
{
    run->impact = grow(run->impact, run->n_impact, &run->cap_impact, sizeof(run_impact_t));
    run_impact_t *c = &run->impact[run->n_impact++];
    memset(c, 0, sizeof(*c));
    c->repetition = run->repetition;
    return c;
}

void run_phase_done(run_t *run, const char *name, double wall_s)
{
    if (run->rank != 0)
        return;
    run->phases = grow(run->phases, run->n_phases, &run->cap_phases, sizeof(run_phase_t));
    run_phase_t *p = &run->phases[run->n_phases++];
    snprintf(p->name, sizeof(p->name), "%s", name);
    p->repetition = run->repetition;
    p->wall_s = wall_s;
    p->counters = run->ctr_pending; /* the phase owns them now */
    run->ctr_pending = NULL;
    results_json_write(run);
}

void run_finish(run_t *run)
{
    run->finished = time(NULL);
    run->status = "complete";
    int lost = 0;
    if (run->rank == 0) {
        lost = results_json_write(run) != 0;
        if (lost)
            fprintf(stderr, "%s: error: the results could not be written to %s\n",
                    program_name(run->program), run->json_path);
        else if (!run->opt.quiet)
            fprintf(stderr, "[gpcnet %7.1fs] results written to %s\n", MPI_Wtime() - run->t0,
                    run->json_path);
        for (int i = 0; i < run->n_tables; i++)
            for (int j = 0; j < run->tables[i].n_rows; j++)
                free(run->tables[i].rows[j]);
        free(run->tables);
        free(run->impact);
    }
    phase_counters_free(run);
    if (run->rank == 0)
        free(run->phases);
    if (run->rep_placement) {
        for (int i = 0; i < run->opt.repeat; i++)
            if (run->rep_placement[i].order)
                placement_free(&run->rep_placement[i]);
        free(run->rep_placement);
    }
    free(run->rep_seeds);
    if (run->have_placement)
        placement_free(&run->placement);
    nodes_free(&run->nodes);
    fflush(stdout);
    MPI_Finalize();
    if (lost)
        exit(1); /* a run without its results file has not succeeded */
}

void result_for_canary(result_t *r, const canary_kernel_t *k, loop_limits_t lim)
{
    memset(r, 0, sizeof(*r));
    snprintf(r->test_id, sizeof(r->test_id), "%s", k->id);
    snprintf(r->name, sizeof(r->name), "%s", k->name);
    snprintf(r->unit, sizeof(r->unit), "%s", k->unit);
    r->higher_is_better = k->higher_is_better;
    r->rings = k->loop == LOOP_COLLECTIVE ? 1 : lim.rings;
    r->iterations = lim.iterations;
}

void result_for_congestor(result_t *r, const congestor_kernel_t *k)
{
    memset(r, 0, sizeof(*r));
    snprintf(r->test_id, sizeof(r->test_id), "%s", k->id);
    congestor_display_name(k, r->name, sizeof(r->name));
    snprintf(r->unit, sizeof(r->unit), "MiB/s/rank");
    r->higher_is_better = 1;
    r->rings = 1;
}
