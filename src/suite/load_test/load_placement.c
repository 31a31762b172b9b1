#include "suite/load_test/load_placement.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "infra/fatal.h"
#include "infra/node_lists.h"
#include "suite/launch_roles.h"
#include "suite/load_test/congestor_job.h"

static void keep_placement(run_t *run);

/* Placement of the current repetition; exits (on every rank alike) when a
 * kernel would get fewer than two nodes. */
void load_place(run_t *run)
{
    const run_plan_t *plan = run->env.plan;
    int launched = launch_roles_active();
    if (congestor_job_active()) {
        /* The congestors are a job of their own: every node here is a
         * canary node, no kernel is dealt. */
        int *none = xcalloc((size_t)run->env.nodes.n_nodes, sizeof(int));
        int rc = placement_compute_given(&run->placement, run_seed(run), run->env.nodes.n_nodes, none,
                                         0, NULL);
        free(none);
        if (rc)
            die("placement failed although the node count was checked");
        run->have_placement = 1;
        keep_placement(run);
        return;
    }
    int rc = launched ? launch_roles_placement(run, &run->placement)
             : plan->set.placement == PLACEMENT_COLOCATED
                 ? placement_compute_colocated(&run->placement, run_seed(run), run->env.nodes.n_nodes,
                                               run->env.plan->n_congestors, run->env.plan->weights)
                 : placement_compute(&run->placement, run_seed(run), run->env.nodes.n_nodes,
                                     plan->set.canary_fraction, run->env.plan->n_congestors, run->env.plan->weights);
    if (rc)
        die("placement failed although the node count was checked");
    run->have_placement = 1;
    /* Weights can starve a kernel of nodes (a2a:64,p2p_incast on 8 congestor
     * nodes): a kernel without two nodes would leave rank 0 waiting for its
     * results forever. Every rank computed the same placement. */
    for (int k = 0; k < run->env.plan->n_congestors; k++) {
        int got = placement_kernel_nodes(&run->placement, k);
        if (got < 2)
            exit_all(launched ? 2 : 1,
                     "network_load_test: congestor %s gets %d of the %d congestor nodes with "
                     "these --congestors weights; every congestor needs at least 2 nodes. "
                     "Lower the other weights or run on more nodes.\n",
                     run->env.plan->congestors[k].kernel->id, got, run->placement.n_congestor_nodes);
    }
    keep_placement(run);
}

/* Kept for the JSON (rank 0): every repetition's placement (its seed is
 * the plan's). */
static void keep_placement(run_t *run)
{
    if (run->env.rank == 0) {
        int r = run->repetition - 1;
        placement_t *keep = &run->record.rep_placement[r];
        *keep = run->placement;
        size_t n = (size_t)run->placement.n_nodes * sizeof(int);
        keep->order = xmalloc(n);
        keep->is_congestor = xmalloc(n);
        keep->kernel_of_node = xmalloc(n);
        memcpy(keep->order, run->placement.order, n);
        memcpy(keep->is_congestor, run->placement.is_congestor, n);
        memcpy(keep->kernel_of_node, run->placement.kernel_of_node, n);
    }
}

/* Too few nodes, or ranks per node, for the chosen placement: exit 1 with
 * the minimum (and the reference's line, which wrappers such as
 * SuperBench look for). */
void load_check_node_count(run_t *run)
{
    const run_plan_t *plan = run->env.plan;
    int colocated = plan->set.placement == PLACEMENT_COLOCATED;
    int min_nodes = colocated ? placement_min_nodes_colocated(run->env.plan->n_congestors)
                              : placement_min_nodes(plan->set.canary_fraction, run->env.plan->n_congestors);
    if (min_nodes < 0 || run->env.nodes.n_nodes < min_nodes) {
        if (run->env.rank == 0 && min_nodes > 0)
            printf("ERROR: this application must be run on at least %d nodes\n", min_nodes);
        if (colocated)
            exit_all(1,
                     "network_load_test: --placement colocated needs at least %d nodes (2 per "
                     "congestor, %d congestor(s)); found %d nodes (%d ranks).\n",
                     min_nodes, run->env.plan->n_congestors, run->env.nodes.n_nodes, run->env.size);
        exit_all(1,
                 "network_load_test: needs at least %d nodes (2 canary nodes and 2 per "
                 "congestor, %d congestor(s), canary fraction %g); found %d nodes (%d ranks). "
                 "Run on more nodes, emulate nodes with --emulate-nodes K, or choose fewer "
                 "--congestors.\n",
                 min_nodes, run->env.plan->n_congestors, plan->set.canary_fraction, run->env.nodes.n_nodes,
                 run->env.size);
    }
    if (colocated && run->env.nodes.ppn_min < 2)
        exit_all(1,
                 "network_load_test: --placement colocated needs at least 2 ranks on every "
                 "node (half run canaries, half congestors); a node has %d.\n",
                 run->env.nodes.ppn_min);
}

/* The node lists of the reference (docs/method.md#placement); repetitions after the
 * first get their own files, "<name>_r<N>.dat". */
void load_write_node_lists(run_t *run)
{
    if (run->env.rank != 0)
        return;
    const placement_t *p = &run->placement;
    const char *dir = run->env.plan->set.output_dir;
    const char *names = (const char *)run->env.nodes.names;
    const char *files[] = {NODE_LIST_ALL, NODE_LIST_CONGESTORS, NODE_LIST_CANARIES};
    const int *ids[] = {p->order, p->order, placement_canary_list(p)};
    int counts[] = {p->n_nodes, p->n_congestor_nodes, p->n_canary_nodes};
    for (int i = 0; i < 3; i++) {
        char file[128];
        node_list_name(file, sizeof(file), files[i], run->repetition);
        if (node_list_write(dir, file, names, NODE_NAME_LEN, ids[i], counts[i], run->env.plan->set.force))
            fprintf(stderr, "gpcnet: warning: cannot write the node list %s in %s: %s\n", file, dir,
                    strerror(errno));
    }
}

