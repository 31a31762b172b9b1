#include "suite/load_roles.h"

#include <stdlib.h>
#include <string.h>

#include "infra/turns.h"
#include "suite/canary_collect.h"

static void congestor_setup(void *arg)
{
    roles_t *ro = arg;
    ro->state = ro->congestor->kernel->setup(ro->congestor_comm, &ro->congestor->params);
}

void roles_build(run_t *run, roles_t *ro, int only_kernel)
{
    const placement_t *p = &run->placement;
    const nodes_t *nd = &run->env.nodes;
    memset(ro, 0, sizeof(*ro));
    int pos = 0; /* my node's place in the shuffled list */
    while (p->order[pos] != nd->my_node)
        pos++;
    int canary_slice, congestor_slice, canary_key;
    if (p->colocated) {
        /* Half the ranks of every node (the lower local ranks) run
         * canaries, the others the node's congestor: they share the NIC. */
        int half = nd->ppn[nd->my_node] / 2;
        ro->is_congestor = nd->my_local >= half;
        canary_slice = nd->my_local;
        congestor_slice = nd->my_local - half;
        canary_key = pos;
    } else {
        ro->is_congestor = p->is_congestor[nd->my_node];
        canary_slice = congestor_slice = nd->my_local;
        canary_key = pos - p->n_congestor_nodes;
    }
    ro->canary_slice_index = canary_slice;
    MPI_Comm_split(run->env.world, ro->is_congestor ? MPI_UNDEFINED : canary_slice, canary_key,
                   &ro->canary_slice);
    ro->canary_test = suite_test_comm(run->env.world, ro->canary_slice);

    /* Every rank of a congestor node runs the node's kernel; slice s of a
     * kernel holds local rank s of each of its nodes, ordered as the shuffled
     * list, so all slices of a kernel have their root on the same node. */
    ro->kernel = !ro->is_congestor ? -1 : only_kernel >= 0 ? only_kernel
                                                            : p->kernel_of_node[nd->my_node];
    int color =
        ro->is_congestor ? congestor_slice * run->env.plan->n_congestors + ro->kernel : MPI_UNDEFINED;
    MPI_Comm_split(run->env.world, color, pos, &ro->congestor_comm);
    MPI_Comm_split(run->env.world, ro->is_congestor ? ro->kernel : MPI_UNDEFINED, run->env.rank,
                   &ro->kernel_comm);
    int turn = -1;
    if (ro->is_congestor) {
        int n;
        MPI_Comm_size(ro->congestor_comm, &n);
        ro->congestor_active = n >= 2;
        ro->congestor = &run->env.plan->congestors[ro->kernel];
        if (ro->congestor_active) {
            ro->iterations =
                ro->congestor->kernel->iterations_for(ro->congestor->base_iterations, n);
            turn = color;
        }
    }
    /* Congestor communicators set up one after another (infra/turns.h). */
    take_turns(run->env.world, turn, congestor_setup, ro);
}

void roles_free(run_t *run, roles_t *ro)
{
    if (ro->state)
        ro->congestor->kernel->teardown(ro->state);
    MPI_Comm *comms[] = {&ro->canary_slice, &ro->canary_test, &ro->congestor_comm,
                         &ro->kernel_comm};
    for (size_t i = 0; i < sizeof(comms) / sizeof(comms[0]); i++)
        if (*comms[i] != MPI_COMM_NULL)
            MPI_Comm_free(comms[i]);
    ro->state = NULL;
}
