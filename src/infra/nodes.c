#include "infra/nodes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "infra/fatal.h"
#include "infra/node_groups.h"

/* Number the nodes in sorted host-name order, as the reference does (it
 * decides the natural ring and the order of every node-slice
 * communicator); nodes with the same name (emulated nodes of one host) in
 * world rank order. Node leaders send their name to world rank 0, which
 * sorts and sends each leader its number back: O(nodes) memory on rank 0
 * only, O(nodes log nodes) time (node_ids_by_name). Returns my node id on
 * leaders, -1 on the others; on rank 0 fills nd->names and nd->n_hosts. */
static int number_nodes(nodes_t *nd, MPI_Comm world, int rank, int is_leader,
                        const char *my_name)
{
    MPI_Comm leaders;
    MPI_Comm_split(world, is_leader ? 0 : MPI_UNDEFINED, rank, &leaders);
    if (!is_leader)
        return -1;
    int n, lrank, node_id = -1;
    MPI_Comm_size(leaders, &n);
    MPI_Comm_rank(leaders, &lrank); /* world rank 0 leads its node: lrank 0 */
    char *all = lrank == 0 ? xmalloc((size_t)n * NODE_NAME_LEN) : NULL;
    MPI_Gather(my_name, NODE_NAME_LEN, MPI_CHAR, all, NODE_NAME_LEN, MPI_CHAR, 0, leaders);
    int *id_of_leader = NULL;
    if (lrank == 0) {
        id_of_leader = xmalloc(sizeof(int) * (size_t)n);
        int *sorted = xmalloc(sizeof(int) * (size_t)n);
        nd->n_hosts = node_ids_by_name(all, NODE_NAME_LEN, n, id_of_leader, sorted);
        if (nd->n_hosts < 0)
            die("out of memory numbering %d nodes", n);
        nd->names = xcalloc((size_t)n, NODE_NAME_LEN);
        for (int i = 0; i < n; i++) {
            const char *name = all + (size_t)sorted[i] * NODE_NAME_LEN;
            if (nd->emulated)
                snprintf(nd->names[i], NODE_NAME_LEN, "%.60s#%d", name, i);
            else
                memcpy(nd->names[i], name, NODE_NAME_LEN);
        }
        free(sorted);
    }
    MPI_Scatter(id_of_leader, 1, MPI_INT, &node_id, 1, MPI_INT, 0, leaders);
    free(id_of_leader);
    free(all);
    MPI_Comm_free(&leaders);
    return node_id;
}

int nodes_discover(nodes_t *nd, MPI_Comm world, int emulate_ppn, int emulate_nodes)
{
    int rank, size;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_size(world, &size);
    memset(nd, 0, sizeof(*nd));
    if (emulate_nodes > size)
        return -1;

    /* The world rank of my node's first rank identifies my node. */
    int leader;
    if (emulate_ppn > 0) {
        leader = rank - rank % emulate_ppn;
    } else if (emulate_nodes > 0) {
        /* Group g holds ranks [g*size/N, (g+1)*size/N): sizes differ by <= 1. */
        long g = ((long)(rank + 1) * emulate_nodes - 1) / size;
        leader = (int)(g * size / emulate_nodes);
    } else {
        MPI_Comm shm;
        MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shm);
        leader = rank;
        MPI_Allreduce(MPI_IN_PLACE, &leader, 1, MPI_INT, MPI_MIN, shm);
        MPI_Comm_free(&shm);
    }
    nd->emulated = emulate_ppn > 0 || emulate_nodes > 0;

    char me[MPI_MAX_PROCESSOR_NAME];
    int len = 0;
    MPI_Get_processor_name(me, &len);
    char mine[NODE_NAME_LEN];
    memset(mine, 0, sizeof(mine));
    snprintf(mine, sizeof(mine), "%.*s", NODE_NAME_LEN - 1, me);
    if (rank == 0)
        memcpy(nd->hostname, mine, NODE_NAME_LEN);
    int my_id = number_nodes(nd, world, rank, leader == rank, mine);

    /* Every rank learns every rank's node: (leader, leader's node id). */
    int pair[2] = {leader, my_id};
    int *pairs = xmalloc(sizeof(int) * 2 * (size_t)size);
    MPI_Allgather(pair, 2, MPI_INT, pairs, 2, MPI_INT, world);
    nd->node_of_rank = xmalloc(sizeof(int) * (size_t)size);
    nd->local_of_rank = xmalloc(sizeof(int) * (size_t)size);
    int n = node_map_ranks(pairs, size, nd->node_of_rank, nd->local_of_rank, &nd->ppn);
    if (n < 1)
        die("node discovery: inconsistent node leaders");
    nd->n_nodes = n;
    free(pairs);
    nd->my_node = nd->node_of_rank[rank];
    nd->my_local = nd->local_of_rank[rank];
    nd->ppn_min = nd->ppn_max = nd->ppn[0];
    for (int i = 1; i < n; i++) {
        if (nd->ppn[i] < nd->ppn_min)
            nd->ppn_min = nd->ppn[i];
        if (nd->ppn[i] > nd->ppn_max)
            nd->ppn_max = nd->ppn[i];
    }
    return 0;
}

void nodes_free(nodes_t *nd)
{
    free(nd->ppn);
    free(nd->node_of_rank);
    free(nd->local_of_rank);
    free(nd->names);
    memset(nd, 0, sizeof(*nd));
}

MPI_Comm nodes_slice_comm(const nodes_t *nd, MPI_Comm world, const int *position_of_node)
{
    int pos = position_of_node[nd->my_node];
    int color = pos >= 0 ? nd->my_local : MPI_UNDEFINED;
    MPI_Comm slice;
    MPI_Comm_split(world, color, pos, &slice);
    return slice;
}

double *nodes_gather_leaders(const nodes_t *nd, MPI_Comm world, const double *mine, int count)
{
    int rank, size;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_size(world, &size);
    double *all = NULL;
    int *counts = NULL, *displs = NULL;
    if (rank == 0) {
        all = xmalloc(sizeof(double) * (size_t)nd->n_nodes * (size_t)count);
        counts = xcalloc((size_t)size, sizeof(int));
        displs = xcalloc((size_t)size, sizeof(int));
        for (int w = 0; w < size; w++)
            if (nd->local_of_rank[w] == 0) {
                counts[w] = count;
                displs[w] = nd->node_of_rank[w] * count;
            }
    }
    MPI_Gatherv(mine, nd->my_local == 0 ? count : 0, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, 0,
                world);
    free(counts);
    free(displs);
    return all;
}
