/* The launch variables that select a traffic class or a route
 * (docs/traffic_classes.md): one documented list, read by every rank as its
 * environment holds them (the network library read the same in MPI_Init),
 * and recorded per role in the results document: each distinct value with
 * the ranks and nodes that had it, never an average. */
#ifndef GPCNET_LAUNCH_ENV_H
#define GPCNET_LAUNCH_ENV_H

#include <mpi.h>

#include "infra/json_writer.h"
#include "infra/nodes.h"

/* The watched names, NULL-terminated (launch_env.c; docs/traffic_classes.md
 * lists the same). */
extern const char *const launch_env_names[];

/* A value longer than this is cut and marked "truncated". */
#define LAUNCH_ENV_VALUE_MAX 128
/* Distinct values listed per role and variable; the ranks of any further
 * values are counted in "other_values_ranks". */
#define LAUNCH_ENV_MAX_VALUES 16

/* Collective over world: my_role is this rank's role (an index into the
 * role names given to launch_env_json). Rank 0 keeps the distinct values;
 * its memory is O(ranks x variables set), and nothing at all is sent for a
 * variable no rank has. */
void launch_env_collect(MPI_Comm world, const nodes_t *nodes, int my_role, int n_roles);
/* The "launch_variables" member (rank 0): {"watched": [...], role: {VAR:
 * {"values": [{"value", "ranks", "nodes", "first_node"}...], "unset_ranks",
 * ...}}} with only the variables some rank of the job had. */
void launch_env_json(json_writer_t *w, const nodes_t *nodes, const char *const *role_names);
void launch_env_free(void);

#endif
