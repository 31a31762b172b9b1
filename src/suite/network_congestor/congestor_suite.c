#define _POSIX_C_SOURCE 200809L
/* network_congestor: the congestor kernels on their own, to run beside a
 * real application (docs/method.md#congestor-program).
 *
 * Every node runs one kernel on all its ranks, dealt as the load test
 * deals them. The ranks congest in rounds (one congestor measurement each)
 * and, after every round, agree in one non-blocking MPI_Iallreduce(SUM)
 * over all ranks on whether to stop and on the bytes each kernel moved, so
 * the decision is the same everywhere and costs no extra stall: the
 * reduction of round r runs while round r+1 congests. Stop triggers:
 * --duration, SIGINT/SIGTERM, --stop-file (congestor_stop.c: looked at
 * after each round and in a paced round's pauses); --deadline stays the
 * hard cap (watchdog). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "congestor/flows.h"
#include "infra/agree.h"
#include "infra/fatal.h"
#include "infra/report.h"
#include "suite/launch_env.h"
#include "suite/launch_roles.h"
#include "suite/network_congestor/congestor_report.h"
#include "suite/network_congestor/congestor_stop.h"
#include "suite/load_roles.h"
#include "suite/record/run_record.h"
#include "suite/network_congestor/congestor_suite.h"
#include "suite/record/phase_end.h"
#include "suite/run_lifecycle.h"

#define MIB (1024.0 * 1024.0)

/* Report layout: per kernel [k] bytes moved and [K + k] ranks that report
 * a bandwidth (non-roots). */
typedef struct {
    MPI_Comm comm;      /* its own communicator: posted at each rank's own pace */
    int len, posted, done;
    double next_tick;
    double *mine;       /* [len] at the tick being reduced */
    double *sum;        /* [len] on rank 0 */
    MPI_Request req;
} ticks_t;

static void ticks_post(ticks_t *tk, double bytes, int kernel)
{
    tk->mine[kernel] = bytes;
    MPI_Ireduce(tk->mine, tk->sum, tk->len, MPI_DOUBLE, MPI_SUM, 0, tk->comm, &tk->req);
    tk->posted++;
}

/* One report at a time: the next tick is posted once the previous one is
 * reduced, so a slow rank delays reports, never the congestion. */
static void ticks_progress(run_t *run, congestor_report_t *cr, ticks_t *tk, double now,
                           double bytes, int kernel, int wait)
{
    if (tk->posted > tk->done) {
        int flag = 0;
        if (wait)
            MPI_Wait(&tk->req, MPI_STATUS_IGNORE), flag = 1;
        else
            MPI_Test(&tk->req, &flag, MPI_STATUS_IGNORE);
        if (!flag)
            return;
        tk->done++;
        if (run->env.rank == 0)
            congestor_report_interval(run, cr, tk->sum, tk->done * run->env.plan->set.report_interval);
    }
    if (!wait && now >= tk->next_tick) {
        tk->next_tick += run->env.plan->set.report_interval;
        ticks_post(tk, bytes, kernel);
    }
}

/* Rank 0 decides when to stop and says so with an MPI_Ibcast that every
 * other rank posted at the start and tests every round; the ranks of one
 * congestor communicator then agree (a non-blocking MIN, infra/agree.h, as
 * the load test does) to stop after the same round, so no message is left
 * unmatched. */
static void congest(run_t *run, roles_t *ro, congestor_report_t *cr)
{
    const run_plan_t *plan = run->env.plan;
    const congestor_kernel_t *k = run->env.plan->congestors[ro->kernel].kernel;
    int n_kernels = run->env.plan->n_congestors;
    double per_iteration = ro->congestor_active ? k->bytes_per_iteration(ro->state) : 0.0;
    double bytes = 0.0;

    ticks_t tk = {MPI_COMM_NULL, 2 * n_kernels, 0, 0, plan->set.report_interval, NULL, NULL,
                  MPI_REQUEST_NULL};
    MPI_Comm_dup(run->env.world, &tk.comm);
    tk.mine = xcalloc((size_t)tk.len, sizeof(double));
    tk.sum = xcalloc((size_t)tk.len, sizeof(double));
    tk.mine[n_kernels + ro->kernel] = per_iteration > 0.0 ? 1.0 : 0.0;
    congestor_stop_state_t st;
    congestor_stop_begin(&st, run, cr);

    if (ro->congestor_active && k->pass_begin)
        k->pass_begin(ro->state);
    MPI_Barrier(run->env.world);
    double t0 = MPI_Wtime();
    /* --burst: the ON/OFF clock starts at this barrier on every rank. */
    int all_seen = 0, seen_posted = 0;
    burst_run_t burst = {.t0 = t0, .end_s = plan->set.duration, .stop_asked = congestor_stop_in_pause,
                         .stop_ctx = &st};
    burst_clock_init(&burst.clock, &run->env.plan->congestor_params.burst, run_seed(run));
    int paced = !burst_is_steady(&burst.clock.shape);
    agree_t agreement = AGREE_NONE;
    struct timespec nap = {0, 5 * 1000 * 1000};
    for (;;) {
        if (ro->congestor_active) {
            if (paced)
                burst_iterate(k, ro->state, &burst, ro->iterations, NULL);
            else
                for (int i = 0; i < ro->iterations; i++)
                    k->iterate(ro->state);
            bytes += per_iteration * ro->iterations;
        } else {
            nanosleep(&nap, NULL); /* a slice of one rank has no peer to load */
        }
        double now = MPI_Wtime() - t0;
        ticks_progress(run, cr, &tk, now, bytes, ro->kernel, 0);
        congestor_stop_look(&st, now);
        if (!ro->congestor_active) {
            if (st.seen)
                break;
            continue;
        }
        agree_wait(&agreement); /* none posted yet the first time: all_seen stays 0 */
        if (all_seen)
            break;
        /* A copy: seen may change while the reduction is in flight, and MPI
         * forbids touching a pending reduction's input. */
        seen_posted = st.seen;
        agree_post(&agreement, &seen_posted, &all_seen, 1, MPI_INT, MPI_MIN, ro->congestor_comm);
    }
    double elapsed = MPI_Wtime() - t0;
    if (ro->congestor_active && k->pass_end)
        k->pass_end(ro->state);
    congestor_stop_end(&st);
    /* Every rank posts the same number of report reductions. Agree on the
     * count before waiting for any: a rank that waited first for a report
     * another rank had not posted yet would wait for that rank, itself
     * waiting in the agreement (seen under MPICH, where the one-sided
     * kernels fall behind the others by many rounds). */
    int ticks = tk.posted;
    MPI_Allreduce(MPI_IN_PLACE, &ticks, 1, MPI_INT, MPI_MAX, run->env.world);
    while (tk.posted < ticks) {
        ticks_progress(run, cr, &tk, elapsed, bytes, ro->kernel, 1);
        ticks_post(&tk, bytes, ro->kernel);
    }
    ticks_progress(run, cr, &tk, elapsed, bytes, ro->kernel, 1);
    /* Exact totals, including the last round; rank 0's clock. */
    tk.mine[ro->kernel] = bytes;
    MPI_Reduce(tk.mine, tk.sum, tk.len, MPI_DOUBLE, MPI_SUM, 0, run->env.world);
    congestor_report_gather_ranks(run, cr, bytes, per_iteration > 0.0, ro->kernel);
    if (run->env.rank == 0)
        congestor_report_finish(run, cr, tk.sum, elapsed);
    MPI_Comm_free(&tk.comm);
    free(tk.mine);
    free(tk.sum);
}

/* Rank 0 reads the flow list (node names) and every rank gets the pairs;
 * a bad list ends the job with exit 2 and the line at fault. */
static int read_flows(run_t *run, int **pairs)
{
    char err[1024] = "";
    int n = 0;
    if (run->env.rank == 0) {
        n = flows_parse(run->env.plan->set.flows_file, (const char *)run->env.nodes.names, NODE_NAME_LEN,
                        run->env.nodes.n_nodes, pairs, err, sizeof(err));
        if (n < 0)
            n = 0;
    }
    MPI_Bcast(err, (int)sizeof(err), MPI_CHAR, 0, run->env.world);
    if (err[0])
        exit_all(2, "network_congestor: %s\n", err);
    MPI_Bcast(&n, 1, MPI_INT, 0, run->env.world);
    if (run->env.rank != 0)
        *pairs = xmalloc(sizeof(int) * 2 * (size_t)n);
    MPI_Bcast(*pairs, 2 * n, MPI_INT, 0, run->env.world);
    return n;
}

/* The ranks of every node in a flow form one communicator: they agree on
 * the stop together, so every message of a round is matched. */
static void flows_roles(run_t *run, roles_t *ro, congestor_report_t *cr, const int *pairs, int n)
{
    const nodes_t *nd = &run->env.nodes;
    memset(ro, 0, sizeof(*ro));
    ro->canary_slice = ro->canary_test = ro->kernel_comm = MPI_COMM_NULL;
    ro->is_congestor = 1;
    ro->kernel = 0;
    ro->congestor = &run->env.plan->congestors[0]; /* the flows kernel (run_plan_build) */
    int in = flows_involve(pairs, n, nd->my_node);
    MPI_Comm_split(run->env.world, in ? 0 : MPI_UNDEFINED, run->env.rank, &ro->congestor_comm);
    if (in) {
        int size;
        MPI_Comm_size(ro->congestor_comm, &size);
        ro->congestor_active = size >= 2;
        ro->state = flows_state_new(ro->congestor_comm, run->env.world, pairs, n, nd->my_node,
                                    nd->my_local, nd->node_of_rank, nd->local_of_rank, run->env.size,
                                    &ro->congestor->params);
    }
    cr->flow_busiest = flows_busiest(pairs, n, nd->n_nodes);
    cr->flow_round = flows_round_iterations(ro->congestor->base_iterations, cr->flow_busiest);
    if (in)
        ro->iterations = cr->flow_round;
    cr->nodes[0] = cr->ranks[0] = 0;
    for (int node = 0; node < nd->n_nodes; node++)
        if (flows_involve(pairs, n, node)) {
            cr->nodes[0]++;
            cr->ranks[0] += nd->ppn[node];
        }
    cr->n_flows = n;
}

int network_congestor_main(int argc, char **argv)
{
    run_t run;
    run_init(&run, PROGRAM_NETWORK_CONGESTOR, &argc, &argv);
    const run_plan_t *plan = run.env.plan;
    int *pairs = NULL, n_flows = 0, flows = plan->set.flows_file[0] != '\0';
    if (flows) /* the plan's one kernel is then the flows kernel */
        n_flows = read_flows(&run, &pairs);
    int need = flows ? 2 : 2 * run.env.plan->n_congestors;
    if (run.env.nodes.n_nodes < need) {
        if (run.env.rank == 0)
            printf("ERROR: this application must be run on at least %d nodes\n", need);
        exit_all(1,
                 "network_congestor: needs at least %d nodes (2 per congestor, %d congestor(s)); "
                 "found %d nodes (%d ranks). Emulate nodes with --emulate-nodes K or choose "
                 "fewer --congestors.\n",
                 need, run.env.plan->n_congestors, run.env.nodes.n_nodes, run.env.size);
    }
    congestor_stop_check_dir(&run, "--stop-file", plan->set.stop_file);
    congestor_stop_check_dir(&run, "--start-file", plan->set.start_file);
    if (placement_compute_all(&run.placement, run_seed(&run), run.env.nodes.n_nodes, run.env.plan->n_congestors,
                              run.env.plan->weights))
        die("placement failed although the node count was checked");
    run.have_placement = 1;
    for (int k = 0; k < run.env.plan->n_congestors; k++)
        if (placement_kernel_nodes(&run.placement, k) < 2)
            exit_all(1,
                     "network_congestor: congestor %s gets %d of the %d nodes with these "
                     "--congestors weights; every congestor needs at least 2 nodes.\n",
                     run.env.plan->congestors[k].kernel->id, placement_kernel_nodes(&run.placement, k),
                     run.env.nodes.n_nodes);

    congestor_stop_on_signals();
    /* A congestor job beside a canary job of its own: the class or route
     * its launch chose, recorded as the load test records it. */
    launch_env_collect(run.env.world, &run.env.nodes, 0, 1);
    run_add_json_section(&run, (run_json_section_t){launch_roles_json, "congestors"});

    congestor_report_t cr;
    congestor_report_init(&run, &cr);
    roles_t ro;
    if (flows)
        flows_roles(&run, &ro, &cr, pairs, n_flows);
    else
        roles_build(&run, &ro, -1);
    congestor_report_preamble(&run, &cr);
    suite_phase_end(&run, "setup", MPI_Wtime() - run.env.t0);
    if (congestor_stop_wait_for_start(&run, &cr))
        congest(&run, &ro, &cr);
    else if (run.env.rank == 0)
        congestor_report_finish(&run, &cr, NULL, 0.0);
    roles_free(&run, &ro);
    suite_finish(&run); /* the final JSON, congestor_run included */
    launch_roles_free();
    congestor_report_free(&cr);
    free(pairs);
    return 0;
}
