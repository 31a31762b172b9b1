#include "infra/nodes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "infra/fatal.h"

static int cmp_str(const void *a, const void *b) { return strcmp(a, b); }

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

    int *leaders = xmalloc(sizeof(int) * (size_t)size);
    MPI_Allgather(&leader, 1, MPI_INT, leaders, 1, MPI_INT, world);
    nd->node_of_rank = xmalloc(sizeof(int) * (size_t)size);
    nd->local_of_rank = xmalloc(sizeof(int) * (size_t)size);
    int *node_of_leader = xmalloc(sizeof(int) * (size_t)size);
    int n = 0;
    for (int r = 0; r < size; r++) {
        /* A rank that is its own leader opens a new node, in world order. */
        if (leaders[r] == r)
            node_of_leader[r] = n++;
    }
    nd->n_nodes = n;
    nd->ppn = xcalloc((size_t)n, sizeof(int));
    for (int r = 0; r < size; r++) {
        int node = node_of_leader[leaders[r]];
        nd->node_of_rank[r] = node;
        nd->local_of_rank[r] = nd->ppn[node]++;
    }
    nd->my_node = nd->node_of_rank[rank];
    nd->my_local = nd->local_of_rank[rank];
    nd->ppn_min = nd->ppn_max = nd->ppn[0];
    for (int i = 1; i < n; i++) {
        if (nd->ppn[i] < nd->ppn_min)
            nd->ppn_min = nd->ppn[i];
        if (nd->ppn[i] > nd->ppn_max)
            nd->ppn_max = nd->ppn[i];
    }
    free(node_of_leader);
    free(leaders);

    /* Names: only rank 0 writes them out, so only rank 0 gathers them. */
    char me[MPI_MAX_PROCESSOR_NAME];
    int len = 0;
    MPI_Get_processor_name(me, &len);
    char mine[NODE_NAME_LEN];
    memset(mine, 0, sizeof(mine));
    snprintf(mine, sizeof(mine), "%.*s", NODE_NAME_LEN - 1, me);
    char *all = rank == 0 ? xmalloc((size_t)size * NODE_NAME_LEN) : NULL;
    MPI_Gather(mine, NODE_NAME_LEN, MPI_CHAR, all, NODE_NAME_LEN, MPI_CHAR, 0, world);
    if (rank == 0) {
        memcpy(nd->hostname, mine, NODE_NAME_LEN);
        nd->names = xcalloc((size_t)n, NODE_NAME_LEN);
        for (int r = 0; r < size; r++) {
            if (nd->local_of_rank[r] != 0)
                continue;
            char *dst = nd->names[nd->node_of_rank[r]];
            if (nd->emulated)
                snprintf(dst, NODE_NAME_LEN, "%.60s#%d", all + (size_t)r * NODE_NAME_LEN,
                         nd->node_of_rank[r]);
            else
                memcpy(dst, all + (size_t)r * NODE_NAME_LEN, NODE_NAME_LEN);
        }
        qsort(all, (size_t)size, NODE_NAME_LEN, cmp_str);
        nd->n_hosts = 0;
        for (int r = 0; r < size; r++)
            if (r == 0 || strcmp(all + (size_t)r * NODE_NAME_LEN,
                                 all + (size_t)(r - 1) * NODE_NAME_LEN) != 0)
                nd->n_hosts++;
        free(all);
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
