/* One loaded phase of network_load_test (docs/method.md#load-sequence):
 * the congestors' passes beside each canary test, the release/stop
 * protocol of the reference, and the Congestion Impact of the phase. Its
 * callers are load_suite.c (the published phase, --congestor-sweep) and
 * burst_sweep.c (one phase per burst shape). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "infra/agree.h"
#include "infra/fatal.h"
#include "infra/impact.h"
#include "infra/progress.h"
#include "infra/report.h"
#include "suite/load_test/load_phase.h"
#include "suite/record/phase_counters.h"
#include "suite/canary_collect.h"
#include "suite/record/phase_end.h"
#include "suite/record/run_record.h"

#define TAG_CONGESTOR_RESULT 4201

void collect_congestors(run_t *run, roles_t *ro, stats_acc_t *acc, double wall_s,
                        const char *table_id, const char *title, int print, int only)
{
    if (ro->is_congestor && (only < 0 || only == ro->kernel))
        stats_reduce(acc, ro->kernel_comm);
    for (int k = 0; k < run->env.plan->n_congestors; k++) {
        if (only >= 0 && k != only)
            continue;
        int holder = 0;
        if (ro->is_congestor && ro->kernel == k) {
            int kr;
            MPI_Comm_rank(ro->kernel_comm, &kr);
            holder = kr == 0;
        }
        if (!holder && run->env.rank != 0)
            continue;
        result_t *r = xmalloc(sizeof(*r));
        if (holder) {
            result_for_congestor(r, &run->env.plan->congestors[k]);
            r->iterations = ro->iterations;
            stats_to_result(acc, r);
            r->wall_s = wall_s;
        }
        result_deliver(r, holder, TAG_CONGESTOR_RESULT + k, run->env.world);
        if (run->env.rank == 0) {
            run_record(run, table_id, title, r);
            if (print)
                report_row(stdout, r, run->env.plan->set.verbose);
        }
        free(r);
    }
}

void congestor_pass_of(run_t *run, roles_t *ro, stats_acc_t *acc, burst_run_t *burst)
{
    congestor_pass(ro->congestor, ro->state, ro->congestor_comm, ro->iterations, NULL, acc, burst);
}

/* Congestors while one canary test runs (docs/method.md#load-sequence): a measured
 * warm-up pass, release the canaries, then full passes until every rank of
 * the congestor communicator has seen the canaries' end (suite/load_test/load_sync.h). */
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
    if (run->env.plan->set.converge_tol > 0.0) {
        /* --converge: the canaries' test may last a fraction of a pass, so
         * the passes look for its end after every measurement instead of
         * running out a pass of up to the time limit (the published
         * protocol below). The load the canaries see is the same. */
        load_sync_watch_post(sync, &done);
        while (!congestor_pass(ro->congestor, ro->state, ro->congestor_comm, ro->iterations,
                               &done.req, NULL, burst))
            ;
        load_sync_watch_wait(&done);
        return;
    }
    int seen = 0, all_seen = 0;
    agree_t agreement = AGREE_NONE;
    for (;;) {
        congestor_pass(ro->congestor, ro->state, ro->congestor_comm, ro->iterations, NULL, NULL,
                       burst);
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
        canary_measure(&run->env.plan->tests[t], ro->canary_slice, ro->canary_slice_index,
                       ro->canary_test, acc, bursts->tl);
    load_sync_canaries_done(sync);
}

/* The Congestion Impact of one loaded phase (rank 0, load_phase.h): the published phase
 * prints it as the reference's Key Results, a sweep cell in its matrix at
 * the end. */
void load_phase_impact(run_t *run, const load_phase_t *ph)
{
    if (run->env.rank != 0)
        return;
    const char *loaded = ph->table, *set = ph->impact_set;
    int key_results = !ph->own_table;
    if (key_results)
        report_impact_begin(stdout);
    for (int t = 0; t < run->env.plan->n_tests; t++) {
        const char *id = run->env.plan->tests[t].kernel->id;
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

void load_phase_run(run_t *run, roles_t *ro, const load_sync_t *sync, stats_acc_t *acc,
                    const load_phase_t *ph, load_timeline_t *timeline)
{
    const run_plan_t *plan = run->env.plan;
    const char *table = ph->table, *title = ph->title;
    /* The published layout: one table, or one per test when verbose; a
     * sweep cell prints one table of its own. */
    if (run->env.rank == 0 && (ph->own_table || !plan->set.verbose))
        report_table_begin(stdout, title, plan->set.verbose);
    for (int t = 0; t < run->env.plan->n_tests; t++) {
        const canary_kernel_t *k = run->env.plan->tests[t].kernel;
        const char *name = plan->tests[t].name;
        progress_step(ph->progress, name, plan->set.time_limit);
        if (run->env.rank == 0 && plan->set.verbose && !ph->own_table) {
            /* The reference names the test without its message size here. */
            char base[64], vtitle[160];
            snprintf(base, sizeof(base), "%s", k->label);
            snprintf(vtitle, sizeof(vtitle),
                     "Network Tests running with Congestion Tests (%20s Network Test)", base);
            report_table_begin(stdout, vtitle, 1);
        }
        stats_init(acc);
        phase_counters_begin(run);
        load_bursts_t bursts;
        load_bursts_begin(run, ro, &ph->burst, &bursts); /* nothing unless bursty or --timeline */
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
        snprintf(ctitle, sizeof(ctitle), "Congestion Tests running with %s", name);
        collect_congestors(run, ro, acc, wall, ctable, ctitle, plan->set.verbose, ph->kernel);
        load_bursts_end(run, ro, &bursts, timeline, t, table);
        char phase[128];
        snprintf(phase, sizeof(phase), "%s:%s", table, k->id);
        suite_phase_end(run, phase, wall);
    }
    load_phase_impact(run, ph);
}
