/* The state nic_record.c keeps and nic_record_json.c writes out; private
 * to those two files (infra/nic_record.h is the interface). */
#ifndef GPCNET_NIC_STATE_H
#define GPCNET_NIC_STATE_H

#include <mpi.h>

#include "infra/nodes.h"

#define NIC_NAME_LEN 64

typedef struct {
    char nic[NIC_NAME_LEN]; /* "" when the rank was not bound */
    int rail;               /* GPCNET_NIC_INDEX, -1 when not given */
    int node, local;
} rank_nic_t;

/* One group's Avg and 99% (a rail, or one NIC of one node). */
typedef struct {
    int root;    /* world rank of the group's first rank: names the group */
    int ranks;   /* ranks that measured */
    double avg, p99, samples;
} group_result_t;

typedef struct {
    char table[96], test[32], unit[16];
    int repetition, higher_is_better;
    int n_rails, n_nics;
    group_result_t *rails, *nics;
} canary_entry_t;

typedef struct {
    int active;
    int n_rails;            /* 1 + the largest rail index */
    MPI_Comm rail, nic;     /* my rail's ranks; my (node, NIC)'s ranks */
    int size;
    rank_nic_t *ranks;      /* rank 0: [size] */
    const nodes_t *nodes;   /* node names (rank 0) */
    int n_entries, cap_entries;
    canary_entry_t *entries;
    int my_rail, my_node;
    int probe_rounds;       /* 0: no probe */
    double probe_wall_s;
    double *probe_usec;     /* rank 0: [size], NaN where a rank did not stand for its NIC */
} nic_state_t;

/* The one instance (nic_record.c). */
extern nic_state_t nic_state;

#endif
