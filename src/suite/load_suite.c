/* network_load_test: canaries in isolation, then under congestion
 * (docs/method.md#load-sequence), with the release/stop protocol of the reference. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "infra/agree.h"
#include "infra/fatal.h"
#include "infra/impact.h"
#include "infra/node_lists.h"
#include "infra/progress.h"
#include "infra/report.h"
#include "suite/burst_sweep.h"
#include "suite/load_phase.h"
#include "suite/load_placement.h"
#include "suite/load_roles.h"
#include "suite/load_sync.h"
#include "suite/load_timeline.h"
#include "suite/node_probe.h"
#include "suite/phase_counters.h"
#include "suite/load_summary.h"
#include "suite/suites.h"

#define TAG_CONGESTOR_RESULT 4201

/* Every kernel's congestor result reaches world rank 0 in kernel order. */
static void collect_congestors(run_t *run, roles_t *ro, stats_acc_t *acc, double wall_s,
                               const char *table_id, const char *title, int print, int only)
{
    if (ro->is_congestor && (only < 0 || only == ro->kernel))
        stats_reduce(acc, ro->kernel_comm);
    for (int k = 0; k < run->cfg.n_congestors; k++) {
        if (only >= 0 && k != only)
            continue;
        int holder = 0;
        if (ro->is_congestor && ro->kernel == k) {
            int kr;
            MPI_Comm_rank(ro->kernel_comm, &kr);
            holder = kr == 0;
        }
        if (!holder && run->rank != 0)
            continue;
        result_t *r = xmalloc(sizeof(*r));
        if (holder) {
            result_for_congestor(r, run->cfg.congestors[k], &run->cfg.congestor_params);
            r->iterations = ro->iterations;
            stats_to_result(acc, r);
            r->wall_s = wall_s;
        }
        result_deliver(r, holder, TAG_CONGESTOR_RESULT + k, run->world);
        if (run->rank == 0) {
            run_record(run, table_id, title, r);
            if (print)
                report_row(stdout, r, run->opt.verbose);
        }
        free(r);
    }
}

/* A measured pass: with --converge it ends once the kernel's bandwidth has
 * settled, as a canary test does. */
static void congestor_pass_of(run_t *run, roles_t *ro, stats_acc_t *acc, burst_run_t *burst)
{
    congestor_pass_stop_t stop = {run->opt.converge, NULL};
    congestor_pass(run->cfg.congestors[ro->kernel], ro->state, ro->congestor_comm,
                   run->cfg.congestor_measurements, ro->iterations, run->opt.time_limit, &stop, acc,
                   burst);
}

/* Congestors while one canary test runs (docs/method.md#load-sequence): a measured
 * warm-up pass, release the canaries, then full passes until every rank of
 * the congestor communicator has seen the canaries' end (suite/load_sync.h). */
static void congest_during_test(run_t *run, roles_t *ro, const load_sync_t *sync,
                                stats_acc_t *acc, load_bursts_t *bursts)
{
    /* --burst: every pass of this test follows the test's common clock. */
    burst_run_t *burst = bursts->active ? &bursts->burst : NULL;
    load_watch_t done;
    if (!ro->congestor_active) {
        load_sync_release(sync, &done);
        load_sync_watch_post(sync, &done);
        load_sync_watch_wait(&done);
        return;
    }
    congestor_pass_of(run, ro, acc, burst);
    load_sync_release(sync, &done);
    if (run->opt.converge > 0.0) {
        /* --converge: the canaries' test may last a fraction of a pass, so
         * the passes look for its end after every measurement instead of
         * running out a pass of up to the time limit (the published
         * protocol below). The load the canaries see is the same. */
        load_sync_watch_post(sync, &done);
        congestor_pass_stop_t stop = {0.0, &done.req};
        const congestor_kernel_t *k = run->cfg.congestors[ro->kernel];
        while (!congestor_pass(k, ro->state, ro->congestor_comm, run->cfg.congestor_measurements,
                               ro->iterations, run->opt.time_limit, &stop, NULL, burst))
            ;
        load_sync_watch_wait(&done);
        return;
    }
    int seen = 0, all_seen = 0;
    agree_t agreement = AGREE_NONE;
    for (;;) {
        congestor_pass(run->cfg.congestors[ro->kernel], ro->state, ro->congestor_comm,
                       run->cfg.congestor_measurements, ro->iterations, run->opt.time_limit, NULL,
                       NULL, burst);
        load_sync_watch_post(sync, &done); /* the reference: after the first full pass */
        agree_wait(&agreement); /* none posted yet the first time: all_seen stays 0 */
        if (all_seen)
            break;
        seen = load_sync_watch_test(&done);
        agree_post(&agreement, &seen, &all_seen, 1, MPI_INT, MPI_MIN, ro->congestor_comm);
    }
}

static void canary_during_test(run_t *run, roles_t *ro, const load_sync_t *sync, int t,
                               stats_acc_t *acc, load_bursts_t *bursts)
{
    load_sync_release(sync, NULL);
    if (ro->canary_test != MPI_COMM_NULL)
        canary_measure(run->cfg.tests[t], &run->cfg.canary_params, run->cfg.limits[t],
                       run->opt.time_limit, run->opt.converge, ro->canary_slice,
                       ro->canary_slice_index, ro->canary_test, run->opt.ring_seed, acc, bursts->tl);
    load_sync_canaries_done(sync);
}

/* The Congestion Impact of one loaded phase (rank 0): the published phase
 * prints it as the reference's Key Results, a sweep cell in its matrix at
 * the end. */
static void record_impact(run_t *run, const load_phase_t *ph)
{
    if (run->rank != 0)
        return;
    const char *loaded = ph->table, *set = ph->impact_set;
    int key_results = !ph->own_table;
    if (key_results)
        report_impact_begin(stdout);
    for (int t = 0; t < run->cfg.n_tests; t++) {
        const char *id = run->cfg.tests[t]->id;
        const result_t *iso = run_find(run, "isolated", id);
        const result_t *load = run_find(run, loaded, id);
        if (!iso || !load)
            continue;
        int hib = iso->higher_is_better;
        run_impact_t *c = run_add_impact(run);
        snprintf(c->test_id, sizeof(c->test_id), "%s", id);
        snprintf(c->name, sizeof(c->name), "%s", iso->name);
        snprintf(c->congestor, sizeof(c->congestor), "%s", set);
        c->avg = impact_ratio(iso->avg, load->avg, hib);
        c->p99 = impact_ratio(iso->p99, load->p99, hib);
        c->avg_printed = impact_ratio_printed(iso->avg, load->avg, hib);
        c->p99_printed = impact_ratio_printed(iso->p99, load->p99, hib);
        if (key_results)
            report_impact_row(stdout, c->name, c->avg_printed, c->p99_printed);
    }
}

/* 1. The canaries alone; every congestor waits. */
static void isolated_phase(run_t *run, const roles_t *ro, stats_acc_t *acc)
{
    const options_t *o = &run->opt;
    if (run->rank == 0)
        report_table_begin(stdout, "Isolated Network Tests", o->verbose);
    for (int t = 0; t < run->cfg.n_tests; t++) {
        progress_step("isolated", run->cfg.tests[t]->name, o->time_limit);
        stats_init(acc);
        phase_counters_begin(run);
        double start = MPI_Wtime();
        if (ro->canary_test != MPI_COMM_NULL)
            canary_measure(run->cfg.tests[t], &run->cfg.canary_params, run->cfg.limits[t],
                           o->time_limit, o->converge, ro->canary_slice, ro->canary_slice_index,
                           ro->canary_test, o->ring_seed, acc, NULL);
        double wall = MPI_Wtime() - start;
        suite_collect_canary(run, t, acc, ro->canary_test, wall, "isolated",
                             "Isolated Network Tests", 1);
        /* The JSON on disk holds every finished test, not only finished
         * blocks of tests. Rank 0 may be a waiting congestor: its phase time
         * runs until the result arrived. */
        double phase_wall = MPI_Wtime() - start;
        char phase[96];
        snprintf(phase, sizeof(phase), "isolated:%s", run->cfg.tests[t]->id);
        suite_phase_end(run, phase, phase_wall);
    }
    MPI_Barrier(run->world);
}

/* 2. (verbose) each congestor kernel alone, for its baseline. */
static void baseline_phase(run_t *run, roles_t *ro, stats_acc_t *acc)
{
    if (run->rank == 0)
        report_table_begin(stdout, "Isolated Congestion Tests", 1);
    for (int k = 0; k < run->cfg.n_congestors; k++) {
        progress_step("congestor baseline", run->cfg.congestors[k]->name, run->opt.time_limit);
        stats_init(acc);
        phase_counters_begin(run);
        double start = MPI_Wtime();
        if (ro->is_congestor && ro->kernel == k && ro->congestor_active)
            congestor_pass_of(run, ro, acc, NULL);
        double wall = MPI_Wtime() - start;
        MPI_Barrier(run->world);
        collect_congestors(run, ro, acc, wall, "isolated_congestors", "Isolated Congestion Tests",
                           1, k);
        char phase[96];
        snprintf(phase, sizeof(phase), "congestor_baseline:%s", run->cfg.congestors[k]->id);
        suite_phase_end(run, phase, wall);
    }
}

/* 3. Each canary test with the congestors running: all of them (cell < 0,
 * the published sequence) or, for --congestor-sweep, kernel `cell` alone
 * on every congestor node. */
static void kernel_phase(const run_t *run, int cell, load_phase_t *ph)
{
    memset(ph, 0, sizeof(*ph));
    ph->kernel = cell;
    ph->own_table = cell >= 0;
    if (cell < 0) {
        snprintf(ph->table, sizeof(ph->table), "loaded");
        snprintf(ph->title, sizeof(ph->title), "Network Tests running with Congestion Tests");
        snprintf(ph->impact_set, sizeof(ph->impact_set), "%s", IMPACT_ALL_CONGESTORS);
        snprintf(ph->progress, sizeof(ph->progress), "with congestion");
        return;
    }
    const char *id = run->cfg.congestors[cell]->id;
    char name[80];
    congestor_display_name(run->cfg.congestors[cell], &run->cfg.congestor_params, name,
                           sizeof(name));
    snprintf(ph->cell_id, sizeof(ph->cell_id), "%s:", id);
    snprintf(ph->table, sizeof(ph->table), "loaded_by:%s", id);
    snprintf(ph->title, sizeof(ph->title), "Network Tests running with %s Only", name);
    snprintf(ph->impact_set, sizeof(ph->impact_set), "%s", id);
    snprintf(ph->progress, sizeof(ph->progress), "%s", id);
}

void load_phase_run(run_t *run, roles_t *ro, const load_sync_t *sync, stats_acc_t *acc,
                    const load_phase_t *ph, load_timeline_t *timeline)
{
    const options_t *o = &run->opt;
    const char *table = ph->table, *title = ph->title;
    /* The published layout: one table, or one per test when verbose; a
     * sweep cell prints one table of its own. */
    if (run->rank == 0 && (ph->own_table || !o->verbose))
        report_table_begin(stdout, title, o->verbose);
    for (int t = 0; t < run->cfg.n_tests; t++) {
        const canary_kernel_t *k = run->cfg.tests[t];
        progress_step(ph->progress, k->name, o->time_limit);
        if (run->rank == 0 && o->verbose && !ph->own_table) {
            /* The reference names the test without its message size here. */
            char base[64], vtitle[160];
            snprintf(base, sizeof(base), "%s", k->name);
            char *cut = strstr(base, " (");
            if (cut)
                *cut = '\0';
            snprintf(vtitle, sizeof(vtitle),
                     "Network Tests running with Congestion Tests (%20s Network Test)", base);
            report_table_begin(stdout, vtitle, 1);
        }
        stats_init(acc);
        phase_counters_begin(run);
        load_bursts_t bursts;
        load_bursts_begin(run, ro, &bursts); /* nothing unless bursty or --timeline */
        double start = MPI_Wtime();
        if (ro->is_congestor)
            congest_during_test(run, ro, sync, acc, &bursts);
        else
            canary_during_test(run, ro, sync, t, acc, &bursts);
        double wall = MPI_Wtime() - start;
        /* Statistics only now, so no reduction stalled the congestors.
         * Congestors are outside the canary communicator: their acc is left
         * alone here and reported by collect_congestors below. */
        suite_collect_canary(run, t, acc, ro->canary_test, wall, table, title, 1);
        char ctable[128], ctitle[200];
        snprintf(ctable, sizeof(ctable), "congestors_during:%s%s", ph->cell_id, k->id);
        snprintf(ctitle, sizeof(ctitle), "Congestion Tests running with %s", k->name);
        collect_congestors(run, ro, acc, wall, ctable, ctitle, o->verbose, ph->kernel);
        load_bursts_end(run, ro, &bursts, timeline, t, table);
        char phase[128];
        snprintf(phase, sizeof(phase), "%s:%s", table, k->id);
        suite_phase_end(run, phase, wall);
    }
    record_impact(run, ph);
}

static void print_preamble(run_t *run)
{
    const placement_t *p = &run->placement;
    char line1[128], line2[160];
    snprintf(line1, sizeof(line1), "  %i nodes running Network Tests", p->n_canary_nodes);
    snprintf(line2, sizeof(line2),
             "  %i nodes running Congestion Tests (min %i nodes per congestor)",
             p->n_congestor_nodes, p->n_congestor_nodes / run->cfg.n_congestors);
    const char *lines[] = {line1, line2};
    run_print_preamble(run, lines, 2);
}

int network_load_test_main(int argc, char **argv)
{
    run_t run;
    run_init(&run, PROGRAM_NETWORK_LOAD_TEST, &argc, &argv);
    run_add_json_section(&run, (run_json_section_t){load_summary_json, NULL});
    load_timeline_t timeline = {0, 0, NULL}; /* --timeline: filled on world rank 0 */
    run_add_json_section(&run, (run_json_section_t){load_timeline_json, &timeline});
    run_add_json_section(&run, (run_json_section_t){burst_sweep_json, NULL});
    node_probe_t probe = {0};
    run_add_json_section(&run, (run_json_section_t){node_probe_json, &probe});
    const options_t *o = &run.opt;
    load_check_node_count(&run);
    if (run.rank == 0) {
        run.rep_seeds = xcalloc((size_t)o->repeat, sizeof(uint64_t));
        run.rep_placement = xcalloc((size_t)o->repeat, sizeof(placement_t));
    }
    int cells = o->congestor_sweep ? run.cfg.n_congestors : 0;
    cells += burst_sweep_cells(o);
    int steps =
        o->repeat * ((2 + cells) * run.cfg.n_tests + (o->verbose ? run.cfg.n_congestors : 0));
    stats_acc_t *acc = xmalloc(sizeof(*acc));
    uint64_t first_seed = run.seed;
    for (run.repetition = 1; run.repetition <= o->repeat; run.repetition++) {
        /* A fresh placement seed each repetition unless --seed fixes it. */
        run.seed = o->seed_given ? first_seed : first_seed + (uint64_t)(run.repetition - 1);
        if (run.repetition > 1)
            placement_free(&run.placement);
        load_place(&run);
        roles_t ro;
        roles_build(&run, &ro, -1);
        /* One set of barriers serves every loaded phase of a repetition:
         * a rank is a canary or a congestor whatever kernel it runs. */
        load_sync_t sync;
        load_sync_init(&sync, run.world, ro.is_congestor);
        if (run.repetition == 1)
            run_setup_done(&run);
        load_write_node_lists(&run);
        if (run.repetition == 1) {
            print_preamble(&run);
            progress_init(run.rank == 0 && !o->quiet, run.t0, steps);
        }
        if (o->repeat > 1 && run.rank == 0)
            printf("\nRepetition %d of %d (seed %llu)\n", run.repetition, o->repeat,
                   (unsigned long long)run.seed);

        isolated_phase(&run, &ro, acc);
        if (o->verbose)
            baseline_phase(&run, &ro, acc);
        load_phase_t phase;
        /* --congestor-sweep: every congestor node runs one kernel at a time. */
        for (int cell = 0; o->congestor_sweep && cell < run.cfg.n_congestors; cell++) {
            roles_t only;
            roles_build(&run, &only, cell);
            kernel_phase(&run, cell, &phase);
            load_phase_run(&run, &only, &sync, acc, &phase, &timeline);
            roles_free(&run, &only);
        }
        burst_sweep_run(&run, &ro, &sync, acc, &timeline); /* nothing without --burst-sweep */
        kernel_phase(&run, -1, &phase);
        load_phase_run(&run, &ro, &sync, acc, &phase, &timeline);
        load_sync_free(&sync);
        roles_free(&run, &ro);
    }
    run.repetition = o->repeat;
    if (run.rank == 0 && o->congestor_sweep)
        load_summary_print_matrix(stdout, &run);
    if (run.rank == 0)
        burst_sweep_print_matrix(stdout, &run);
    if (run.rank == 0 && o->repeat > 1)
        load_summary_print_repeats(stdout, &run);
    free(acc);
    node_probe_run(&run, &probe); /* --node-probe: after every published phase */
    suite_finish(&run);
    node_probe_free(&probe);
    load_timeline_free(&timeline);
    return 0;
}
