/* network_load_test: canaries in isolation, then under congestion
 * (SPEC A.4), with the release/stop protocol of the reference. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "infra/fatal.h"
#include "infra/impact.h"
#include "infra/node_lists.h"
#include "infra/progress.h"
#include "infra/report.h"
#include "infra/turns.h"
#include "suite/suites.h"

#define TAG_CONGESTOR_RESULT 4201

typedef struct {
    int is_congestor;
    int kernel;              /* congestor kernel index into run->congestors */
    MPI_Comm canary_slice;   /* canaries: node-slice communicator */
    MPI_Comm canary_test;    /* canaries in slices of >= 2 ranks */
    MPI_Comm congestor_comm; /* congestors: one kernel within one slice */
    int congestor_active;    /* congestor_comm has >= 2 ranks */
    MPI_Comm kernel_comm;    /* congestors: every rank running my kernel */
    void *state;             /* congestor kernel state */
    int iterations;          /* congestor iterations per measurement */
    const congestor_kernel_t *setup_kernel;
} roles_t;

static void congestor_setup(void *arg)
{
    roles_t *ro = arg;
    ro->state = ro->setup_kernel->setup(ro->congestor_comm);
}

static void build_roles(run_t *run, roles_t *ro)
{
    const placement_t *p = &run->placement;
    const nodes_t *nd = &run->nodes;
    memset(ro, 0, sizeof(*ro));
    int *canary_pos = xmalloc(sizeof(int) * (size_t)nd->n_nodes);
    int *congestor_pos = xmalloc(sizeof(int) * (size_t)nd->n_nodes);
    for (int n = 0; n < nd->n_nodes; n++)
        canary_pos[n] = congestor_pos[n] = -1;
    for (int i = 0; i < p->n_nodes; i++) {
        int node = p->order[i];
        if (i < p->n_congestor_nodes)
            congestor_pos[node] = i;
        else
            canary_pos[node] = i - p->n_congestor_nodes;
    }
    ro->is_congestor = p->is_congestor[nd->my_node];
    ro->canary_slice = nodes_slice_comm(nd, run->world, canary_pos);
    ro->canary_test = suite_test_comm(run->world, ro->canary_slice);

    /* Every rank of a congestor node runs the node's kernel; slice s of a
     * kernel holds local rank s of each of its nodes, ordered as the shuffled
     * list, so all slices of a kernel have their root on the same node. */
    ro->kernel = p->kernel_of_node[nd->my_node];
    int color = ro->is_congestor ? nd->my_local * run->n_congestors + ro->kernel : MPI_UNDEFINED;
    MPI_Comm_split(run->world, color, congestor_pos[nd->my_node], &ro->congestor_comm);
    MPI_Comm_split(run->world, ro->is_congestor ? ro->kernel : MPI_UNDEFINED, run->rank,
                   &ro->kernel_comm);
    int turn = -1;
    if (ro->is_congestor) {
        int n;
        MPI_Comm_size(ro->congestor_comm, &n);
        ro->congestor_active = n >= 2;
        const congestor_kernel_t *k = run->congestors[ro->kernel];
        if (ro->congestor_active) {
            ro->setup_kernel = k;
            ro->iterations = k->iterations_for(run->congestor_iterations, n);
            turn = color;
        }
    }
    /* Congestor communicators set up one after another (infra/turns.h). */
    take_turns(run->world, turn, congestor_setup, ro);
    free(canary_pos);
    free(congestor_pos);
}

static void free_roles(run_t *run, roles_t *ro)
{
    if (ro->state)
        run->congestors[ro->kernel]->teardown(ro->state);
    MPI_Comm *comms[] = {&ro->canary_slice, &ro->canary_test, &ro->congestor_comm,
                         &ro->kernel_comm};
    for (size_t i = 0; i < sizeof(comms) / sizeof(comms[0]); i++)
        if (*comms[i] != MPI_COMM_NULL)
            MPI_Comm_free(comms[i]);
}

/* Every kernel's congestor result reaches world rank 0 in kernel order. */
static void collect_congestors(run_t *run, roles_t *ro, stats_acc_t *acc, double wall_s,
                               const char *table_id, const char *title, int print, int only)
{
    if (ro->is_congestor && (only < 0 || only == ro->kernel))
        stats_reduce(acc, ro->kernel_comm);
    for (int k = 0; k < run->n_congestors; k++) {
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
            result_for_congestor(r, run->congestors[k]);
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

static void congestor_pass_of(run_t *run, roles_t *ro, stats_acc_t *acc)
{
    congestor_pass(run->congestors[ro->kernel], ro->state, ro->congestor_comm,
                   run->congestor_measurements, ro->iterations, run->opt.time_limit, acc);
}

/* Congestors while one canary test runs (SPEC A.4 step 3): a measured
 * warm-up pass, release the canaries, then full passes until every rank of
 * the congestor communicator has seen the canaries' second barrier. */
static void congest_during_test(run_t *run, roles_t *ro, stats_acc_t *acc)
{
    MPI_Request release, done;
    if (!ro->congestor_active) {
        MPI_Ibarrier(run->world, &release);
        MPI_Wait(&release, MPI_STATUS_IGNORE);
        MPI_Ibarrier(run->world, &done);
        MPI_Wait(&done, MPI_STATUS_IGNORE);
        return;
    }
    congestor_pass_of(run, ro, acc);
    MPI_Ibarrier(run->world, &release);
    MPI_Wait(&release, MPI_STATUS_IGNORE);
    int posted_done = 0, seen = 0, all_seen = 0;
    MPI_Request agree = MPI_REQUEST_NULL;
    for (;;) {
        congestor_pass_of(run, ro, NULL);
        if (!posted_done) {
            MPI_Ibarrier(run->world, &done);
            posted_done = 1;
        }
        if (agree != MPI_REQUEST_NULL) {
            MPI_Wait(&agree, MPI_STATUS_IGNORE);
            if (all_seen)
                break;
        }
        int flag = 1;
        if (done != MPI_REQUEST_NULL)
            MPI_Test(&done, &flag, MPI_STATUS_IGNORE);
        seen = flag;
        MPI_Iallreduce(&seen, &all_seen, 1, MPI_INT, MPI_MIN, ro->congestor_comm, &agree);
    }
}

static void canary_during_test(run_t *run, roles_t *ro, int t, stats_acc_t *acc)
{
    MPI_Request release, done;
    MPI_Ibarrier(run->world, &release);
    MPI_Wait(&release, MPI_STATUS_IGNORE);
    if (ro->canary_test != MPI_COMM_NULL)
        canary_measure(run->tests[t], run->limits[t], run->opt.time_limit, ro->canary_slice,
                       run->nodes.my_local, ro->canary_test, run->opt.ring_seed, acc);
    MPI_Ibarrier(run->world, &done);
    MPI_Wait(&done, MPI_STATUS_IGNORE);
}

static void write_node_lists(run_t *run)
{
    if (run->rank != 0)
        return;
    const placement_t *p = &run->placement;
    const char *dir = run->opt.output_dir;
    const char *names = (const char *)run->nodes.names;
    if (node_list_write(dir, NODE_LIST_ALL, names, NODE_NAME_LEN, p->order, p->n_nodes) ||
        node_list_write(dir, NODE_LIST_CONGESTORS, names, NODE_NAME_LEN, p->order,
                        p->n_congestor_nodes) ||
        node_list_write(dir, NODE_LIST_CANARIES, names, NODE_NAME_LEN,
                        p->order + p->n_congestor_nodes, p->n_canary_nodes))
        fprintf(stderr, "gpcnet: warning: cannot write the node lists in %s\n", dir);
}

static void print_impact(run_t *run)
{
    if (run->rank != 0)
        return;
    report_impact_begin(stdout);
    for (int t = 0; t < run->n_tests; t++) {
        const char *id = run->tests[t]->id;
        const result_t *iso = run_find(run, "isolated", id);
        const result_t *load = run_find(run, "loaded", id);
        if (!iso || !load)
            continue;
        int hib = iso->higher_is_better;
        run_impact_t *c = &run->impact[run->n_impact++];
        snprintf(c->test_id, sizeof(c->test_id), "%s", id);
        snprintf(c->name, sizeof(c->name), "%s", iso->name);
        c->avg = impact_ratio(iso->avg, load->avg, hib);
        c->p99 = impact_ratio(iso->p99, load->p99, hib);
        c->avg_printed = impact_ratio_printed(iso->avg, load->avg, hib);
        c->p99_printed = impact_ratio_printed(iso->p99, load->p99, hib);
        report_impact_row(stdout, c->name, c->avg_printed, c->p99_printed);
    }
}

int network_load_test_main(int argc, char **argv)
{
    run_t run;
    run_init(&run, PROGRAM_NETWORK_LOAD_TEST, &argc, &argv);
    const options_t *o = &run.opt;
    int min_nodes = placement_min_nodes(o->canary_fraction, run.n_congestors);
    if (min_nodes < 0 || run.nodes.n_nodes < min_nodes) {
        /* The reference's line, which wrappers (e.g. SuperBench) look for. */
        if (run.rank == 0 && min_nodes > 0)
            printf("ERROR: this application must be run on at least %d nodes\n", min_nodes);
        exit_all(1,
                 "network_load_test: needs at least %d nodes (2 canary nodes and 2 per "
                 "congestor, %d congestor(s), canary fraction %g); found %d nodes (%d ranks). "
                 "Run on more nodes, emulate nodes with --emulate-nodes K, or choose fewer "
                 "--congestors.\n",
                 min_nodes, run.n_congestors, o->canary_fraction, run.nodes.n_nodes, run.size);
    }

    if (placement_compute(&run.placement, run.seed, run.nodes.n_nodes, o->canary_fraction,
                          run.n_congestors, run.weights))
        die("placement failed although the node count was checked");
    run.have_placement = 1;
    /* Weights can starve a kernel of nodes (a2a:64,p2p_incast on 8 congestor
     * nodes): a kernel without two nodes would leave rank 0 waiting for its
     * results forever. Every rank computed the same placement. */
    for (int k = 0; k < run.n_congestors; k++) {
        int got = placement_kernel_nodes(&run.placement, k);
        if (got < 2)
            exit_all(1,
                     "network_load_test: congestor %s gets %d of the %d congestor nodes with "
                     "these --congestors weights; every congestor needs at least 2 nodes. "
                     "Lower the other weights or run on more nodes.\n",
                     run.congestors[k]->id, got, run.placement.n_congestor_nodes);
    }
    roles_t ro;
    build_roles(&run, &ro);
    write_node_lists(&run);

    char line1[128], line2[160];
    snprintf(line1, sizeof(line1), "  %i nodes running Network Tests", run.placement.n_canary_nodes);
    snprintf(line2, sizeof(line2), "  %i nodes running Congestion Tests (min %i nodes per congestor)",
             run.placement.n_congestor_nodes, run.placement.n_congestor_nodes / run.n_congestors);
    const char *lines[] = {line1, line2};
    run_print_preamble(&run, lines, 2);
    int steps = 2 * run.n_tests + (o->verbose ? run.n_congestors : 0);
    progress_init(run.rank == 0 && !o->quiet, run.t0, steps);

    stats_acc_t *acc = xmalloc(sizeof(*acc));

    /* 1. Canaries alone; every congestor waits. */
    if (run.rank == 0)
        report_table_begin(stdout, "Isolated Network Tests", o->verbose);
    for (int t = 0; t < run.n_tests; t++) {
        progress_step("isolated", run.tests[t]->name, o->time_limit);
        stats_init(acc);
        double start = MPI_Wtime();
        if (ro.canary_test != MPI_COMM_NULL)
            canary_measure(run.tests[t], run.limits[t], o->time_limit, ro.canary_slice,
                           run.nodes.my_local, ro.canary_test, o->ring_seed, acc);
        double wall = MPI_Wtime() - start;
        suite_collect_canary(&run, t, acc, ro.canary_test, wall, "isolated",
                             "Isolated Network Tests", 1);
        /* The JSON on disk holds every finished test, not only finished
         * blocks of tests. */
        char phase[96];
        snprintf(phase, sizeof(phase), "isolated:%s", run.tests[t]->id);
        run_phase_done(&run, phase, wall);
    }
    MPI_Barrier(run.world);

    /* 2. (verbose) each congestor kernel alone, for its baseline. */
    if (o->verbose) {
        if (run.rank == 0)
            report_table_begin(stdout, "Isolated Congestion Tests", 1);
        for (int k = 0; k < run.n_congestors; k++) {
            progress_step("congestor baseline", run.congestors[k]->name, o->time_limit);
            stats_init(acc);
            double start = MPI_Wtime();
            if (ro.is_congestor && ro.kernel == k && ro.congestor_active)
                congestor_pass_of(&run, &ro, acc);
            double wall = MPI_Wtime() - start;
            MPI_Barrier(run.world);
            collect_congestors(&run, &ro, acc, wall, "isolated_congestors",
                               "Isolated Congestion Tests", 1, k);
            char phase[96];
            snprintf(phase, sizeof(phase), "congestor_baseline:%s", run.congestors[k]->id);
            run_phase_done(&run, phase, wall);
        }
    }

    /* 3. Each canary test with the congestors running. */
    if (run.rank == 0 && !o->verbose)
        report_table_begin(stdout, "Network Tests running with Congestion Tests", 0);
    for (int t = 0; t < run.n_tests; t++) {
        const canary_kernel_t *k = run.tests[t];
        progress_step("with congestion", k->name, o->time_limit);
        if (run.rank == 0 && o->verbose) {
            /* The reference names the test without its message size here. */
            char base[64], title[160];
            snprintf(base, sizeof(base), "%s", k->name);
            char *cut = strstr(base, " (");
            if (cut)
                *cut = '\0';
            snprintf(title, sizeof(title),
                     "Network Tests running with Congestion Tests (%20s Network Test)", base);
            report_table_begin(stdout, title, 1);
        }
        stats_init(acc);
        double start = MPI_Wtime();
        if (ro.is_congestor)
            congest_during_test(&run, &ro, acc);
        else
            canary_during_test(&run, &ro, t, acc);
        double wall = MPI_Wtime() - start;
        /* Statistics only now, so no reduction stalled the congestors.
         * Congestors are outside the canary communicator: their acc is left
         * alone here and reported by collect_congestors below. */
        suite_collect_canary(&run, t, acc, ro.canary_test, wall, "loaded",
                             "Network Tests running with Congestion Tests", 1);
        char table[96], title[160];
        snprintf(table, sizeof(table), "congestors_during:%s", k->id);
        snprintf(title, sizeof(title), "Congestion Tests running with %s", k->name);
        collect_congestors(&run, &ro, acc, wall, table, title, o->verbose, -1);
        char phase[96];
        snprintf(phase, sizeof(phase), "loaded:%s", k->id);
        run_phase_done(&run, phase, wall);
    }

    print_impact(&run);
    free(acc);
    free_roles(&run, &ro);
    run_finish(&run);
    return 0;
}
