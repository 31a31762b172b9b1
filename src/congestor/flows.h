/* The flows kernel of network_congestor (--flows FILE): point-to-point
 * traffic along a list of node pairs that a tool computes, e.g. the
 * topology-aware "bullies" of the fat-tree congestion studies (pairs across
 * adjacent leaves, across pods, incasts into one node). Every rank of a
 * source node sends --congestor-bytes messages to the rank of the same
 * local index on the destination node, continuously. */
#ifndef GPCNET_FLOWS_H
#define GPCNET_FLOWS_H

#include <mpi.h>
#include <stddef.h>

#include "congestor/congestor.h"
#include "congestor/flow_list.h"

extern const congestor_kernel_t flows_kernel;


/* State for my rank: world ranks of my partners, found from the flows and
 * the node map (node_of_rank, local_of_rank over `size` world ranks).
 * comm: the communicator of every rank in a flow (world ranks translated). */
void *flows_state_new(MPI_Comm comm, MPI_Comm world, const int *pairs, int n_flows, int my_node,
                      int my_local, const int *node_of_rank, const int *local_of_rank, int size,
                      const congestor_params_t *p);
/* Is this node in any flow? */
int flows_involve(const int *pairs, int n_flows, int node);

/* A round (the stretch between two looks at the stop, network_congestor)
 * is FLOWS_ROUND_ITERATIONS iterations, fewer when the busiest node is in
 * many flows: each iteration of each of its ranks posts one message per
 * flow, and a round of 8 x thousands of messages would outlast --duration
 * and the stop file by far. So a round holds at most FLOWS_ROUND_MESSAGES
 * messages per rank, and at least one iteration. */
#define FLOWS_ROUND_ITERATIONS 8
#define FLOWS_ROUND_MESSAGES 256

/* The most flows (sent plus received) of any one node of the list. */
int flows_busiest(const int *pairs, int n_flows, int n_nodes);
/* Iterations per round for base (--congestor-iterations; the default base
 * gives the scaled round above, any other is kept) and the busiest node's
 * flow count. The same on every rank: every rank has the whole list. */
int flows_round_iterations(int base, int busiest);

#endif
