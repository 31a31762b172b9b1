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

#endif
