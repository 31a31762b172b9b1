/* network_load_test: canaries in isolation, then under congestion
 * (docs/method.md#load-sequence); each loaded phase, with the release/stop
 * protocol of the reference, is load_phase.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "infra/fatal.h"
#include "infra/impact.h"
#include "infra/node_lists.h"
#include "infra/progress.h"
#include "infra/report.h"
#include "suite/load_test/burst_sweep.h"
#include "suite/load_test/congestor_job.h"
#include "suite/load_test/load_phase.h"
#include "suite/load_test/load_placement.h"
#include "suite/launch_roles.h"
#include "suite/load_roles.h"
#include "suite/load_test/load_sync.h"
#include "suite/load_test/load_timeline.h"
#include "suite/node_probe.h"
#include "suite/record/phase_counters.h"
#include "suite/load_test/load_summary.h"
#include "suite/canary_collect.h"
#include "suite/load_test/load_suite.h"
#include "suite/record/phase_end.h"
#include "suite/preamble.h"
#include "suite/run_lifecycle.h"

/* 1. The canaries alone; every congestor waits. With the congestors in a
 * separate job (congestor_job.h) the loaded phase is this one too, into
 * the loaded table, while that job congests. */
static void canary_phase(run_t *run, const roles_t *ro, stats_acc_t *acc, const char *table,
                         const char *title, const char *progress)
{
    const run_plan_t *plan = run->env.plan;
    if (run->env.rank == 0)
        report_table_begin(stdout, title, plan->set.verbose);
    for (int t = 0; t < plan->n_tests; t++) {
        progress_step(progress, plan->tests[t].name, plan->set.time_limit);
        stats_init(acc);
        phase_counters_begin(run);
        double start = MPI_Wtime();
        if (ro->canary_test != MPI_COMM_NULL)
            canary_measure(&plan->tests[t], ro->canary_slice, ro->canary_slice_index,
                           ro->canary_test, acc, NULL);
        double wall = MPI_Wtime() - start;
        suite_collect_canary(run, t, acc, ro->canary_test, wall, table, title, 1);
        /* The JSON on disk holds every finished test, not only finished
         * blocks of tests. Rank 0 may be a waiting congestor: its phase time
         * runs until the result arrived. */
        double phase_wall = MPI_Wtime() - start;
        char phase[96];
        snprintf(phase, sizeof(phase), "%s:%s", table, run->env.plan->tests[t].kernel->id);
        suite_phase_end(run, phase, phase_wall);
    }
    MPI_Barrier(run->env.world);
}

/* 2. (verbose) each congestor kernel alone, for its baseline. */
static void baseline_phase(run_t *run, roles_t *ro, stats_acc_t *acc)
{
    if (run->env.rank == 0)
        report_table_begin(stdout, "Isolated Congestion Tests", 1);
    for (int k = 0; k < run->env.plan->n_congestors; k++) {
        progress_step("congestor baseline", run->env.plan->congestors[k].name, run->env.plan->set.time_limit);
        stats_init(acc);
        phase_counters_begin(run);
        double start = MPI_Wtime();
        if (ro->is_congestor && ro->kernel == k && ro->congestor_active)
            congestor_pass_of(run, ro, acc, NULL);
        double wall = MPI_Wtime() - start;
        MPI_Barrier(run->env.world);
        collect_congestors(run, ro, acc, wall, "isolated_congestors", "Isolated Congestion Tests",
                           1, k);
        char phase[96];
        snprintf(phase, sizeof(phase), "congestor_baseline:%s", run->env.plan->congestors[k].kernel->id);
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
    ph->burst = run->env.plan->congestor_params.burst;
    if (cell < 0) {
        snprintf(ph->table, sizeof(ph->table), "loaded");
        snprintf(ph->title, sizeof(ph->title), "Network Tests running with Congestion Tests");
        snprintf(ph->impact_set, sizeof(ph->impact_set), "%s", IMPACT_ALL_CONGESTORS);
        snprintf(ph->progress, sizeof(ph->progress), "with congestion");
        return;
    }
    const char *id = run->env.plan->congestors[cell].kernel->id;
    const char *name = run->env.plan->congestors[cell].name;
    snprintf(ph->cell_id, sizeof(ph->cell_id), "%s:", id);
    snprintf(ph->table, sizeof(ph->table), "loaded_by:%s", id);
    snprintf(ph->title, sizeof(ph->title), "Network Tests running with %s Only", name);
    snprintf(ph->impact_set, sizeof(ph->impact_set), "%s", id);
    snprintf(ph->progress, sizeof(ph->progress), "%s", id);
}

static void print_preamble(run_t *run)
{
    const placement_t *p = &run->placement;
    char line1[128], line2[160], line3[96];
    snprintf(line1, sizeof(line1), "  %i nodes running Network Tests", p->n_canary_nodes);
    snprintf(line2, sizeof(line2),
             "  %i nodes running Congestion Tests (min %i nodes per congestor)",
             p->n_congestor_nodes, p->n_congestor_nodes / run->env.plan->n_congestors);
    launch_roles_share_line(run, line3, sizeof(line3));
    if (congestor_job_active())
        congestor_job_preamble_line(line2, sizeof(line2));
    const char *lines[] = {line1, line2, line3};
    /* The draw's share is in the settings (canary fraction); the launch's
     * has its own line. */
    run_print_preamble(run, lines, launch_roles_active() ? 3 : 2);
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
    const run_plan_t *plan = run.env.plan;
    /* An MPMD launch gave the roles (checked in run_init, launch_roles.h);
     * its checks stand for the node count's. */
    int separate = congestor_job_active(); /* node count checked in run_init */
    if (!launch_roles_active() && !separate)
        load_check_node_count(&run);
    launch_roles_collect_env(&run);
    run_add_json_section(&run, (run_json_section_t){
                                   separate ? congestor_job_roles_json : launch_roles_json, NULL});
    congestor_job_arm_stop(&run); /* from here on the congestor job is stopped however we end */
    if (run.env.rank == 0) {
        run.record.rep_placement = xcalloc((size_t)plan->set.repeat, sizeof(placement_t));
    }
    int cells = plan->set.congestor_sweep ? run.env.plan->n_congestors : 0;
    cells += plan->n_burst_cells;
    int steps =
        plan->set.repeat * ((2 + cells) * run.env.plan->n_tests + (plan->set.verbose ? run.env.plan->n_congestors : 0));
    stats_acc_t *acc = xmalloc(sizeof(*acc));
    for (run.repetition = 1; run.repetition <= plan->set.repeat; run.repetition++) {
        if (run.repetition > 1)
            placement_free(&run.placement);
        load_place(&run);
        roles_t ro;
        roles_build(&run, &ro, -1);
        /* One set of barriers serves every loaded phase of a repetition:
         * a rank is a canary or a congestor whatever kernel it runs. */
        load_sync_t sync;
        load_sync_init(&sync, run.env.world, ro.is_congestor);
        if (run.repetition == 1)
            run_setup_done(&run);
        load_write_node_lists(&run);
        if (run.repetition == 1) {
            print_preamble(&run);
            progress_init(run.env.rank == 0 && !plan->set.quiet, run.env.t0, steps);
        }
        if (plan->set.repeat > 1 && run.env.rank == 0)
            printf("\nRepetition %d of %d (seed %llu)\n", run.repetition, plan->set.repeat,
                   (unsigned long long)run_seed(&run));

        canary_phase(&run, &ro, acc, "isolated", "Isolated Network Tests", "isolated");
        load_phase_t phase;
        if (separate) {
            /* The same tests while the congestor job congests. */
            congestor_job_signal_start(&run);
            kernel_phase(&run, -1, &phase);
            canary_phase(&run, &ro, acc, phase.table, phase.title, phase.progress);
            load_phase_impact(&run, &phase);
            congestor_job_signal_stop(&run);
            load_sync_free(&sync);
            roles_free(&run, &ro);
            continue;
        }
        if (plan->set.verbose)
            baseline_phase(&run, &ro, acc);
        /* --congestor-sweep: every congestor node runs one kernel at a time. */
        for (int cell = 0; plan->set.congestor_sweep && cell < run.env.plan->n_congestors; cell++) {
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
    run.repetition = plan->set.repeat;
    if (run.env.rank == 0 && plan->set.congestor_sweep)
        load_summary_print_matrix(stdout, &run);
    if (run.env.rank == 0)
        burst_sweep_print_matrix(stdout, &run);
    if (run.env.rank == 0 && plan->set.repeat > 1)
        load_summary_print_repeats(stdout, &run);
    free(acc);
    node_probe_run(&run, &probe); /* --node-probe: after every published phase */
    suite_finish(&run);
    launch_roles_free();
    node_probe_free(&probe);
    load_timeline_free(&timeline);
    return 0;
}
