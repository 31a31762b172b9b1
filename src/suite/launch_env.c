#include "suite/launch_env.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "infra/fatal.h"

/* The variables a launch sets to put a job's traffic in a class or on a
 * route; docs/traffic_classes.md says for each what reads it and where that
 * is documented. Add a name here and there together. */
const char *const launch_env_names[] = {
    "UCX_IB_SL",                       /* UCX: InfiniBand service level */
    "UCX_IB_TRAFFIC_CLASS",            /* UCX: IB traffic class / RoCE DSCP<<2 */
    "NCCL_IB_SL",                      /* NCCL: InfiniBand service level */
    "NCCL_IB_TC",                      /* NCCL: traffic class (RoCE) */
    "MV2_DEFAULT_SERVICE_LEVEL",       /* MVAPICH2: IB service level / RoCE priority */
    "OMPI_MCA_btl_openib_ib_service_level", /* Open MPI before 5: openib BTL */
    "HFI_SL",                          /* PSM2 (Omni-Path): service level */
    "FI_OPX_ROUTE_CONTROL",            /* libfabric OPX (Omni-Path): route control */
    "MPICH_OFI_DEFAULT_TCLASS",        /* Cray MPICH: libfabric traffic class */
    "SLINGSHOT_TCS",                   /* Slurm/Flux on Slingshot: classes allowed */
    "GPCNET_TRAFFIC_CLASS",            /* our testbed: the class gpcnet-bind joined */
    NULL,
};

#define MAX_ROLES 4

typedef struct {
    char value[LAUNCH_ENV_VALUE_MAX + 1];
    int truncated;
    long ranks, nodes;
    int first_node, last_node;
} env_value_t;

typedef struct {
    int n_values;
    env_value_t values[LAUNCH_ENV_MAX_VALUES];
    long set_ranks;   /* ranks with the variable, listed or not */
    long other_ranks, other_nodes; /* ranks (nodes) with a value past the list */
    int other_last_node;
} env_var_t;

static struct {
    int collected, n_roles, n_names;
    long role_ranks[MAX_ROLES];
    env_var_t *vars; /* [n_roles][n_names] */
} env;

static int n_names(void)
{
    int n = 0;
    while (launch_env_names[n])
        n++;
    return n;
}

/* My record: one byte of role, then per variable set: its index, whether
 * the value was cut, the value and its NUL. */
static char *pack_mine(int my_role, int *len)
{
    int names = n_names();
    char *buf = xmalloc(1 + (size_t)names * (LAUNCH_ENV_VALUE_MAX + 3));
    int n = 0;
    buf[n++] = (char)my_role;
    for (int i = 0; i < names; i++) {
        const char *v = getenv(launch_env_names[i]);
        if (!v)
            continue;
        size_t l = strlen(v);
        int cut = l > LAUNCH_ENV_VALUE_MAX;
        if (cut)
            l = LAUNCH_ENV_VALUE_MAX;
        buf[n++] = (char)i;
        buf[n++] = (char)cut;
        memcpy(buf + n, v, l);
        n += (int)l;
        buf[n++] = '\0';
    }
    *len = n;
    return buf;
}

static void count(env_var_t *var, const char *value, int cut, int node)
{
    var->set_ranks++;
    for (int i = 0; i < var->n_values; i++) {
        env_value_t *e = &var->values[i];
        if (e->truncated == cut && strcmp(e->value, value) == 0) {
            e->ranks++;
            if (e->last_node != node)
                e->nodes++;
            e->last_node = node;
            return;
        }
    }
    if (var->n_values < LAUNCH_ENV_MAX_VALUES) {
        env_value_t *e = &var->values[var->n_values++];
        snprintf(e->value, sizeof(e->value), "%s", value);
        e->truncated = cut;
        e->ranks = e->nodes = 1;
        e->first_node = e->last_node = node;
        return;
    }
    var->other_ranks++;
    if (var->other_last_node != node)
        var->other_nodes++;
    var->other_last_node = node;
}

void launch_env_collect(MPI_Comm world, const nodes_t *nodes, int my_role, int n_roles)
{
    int rank, size;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_size(world, &size);
    int len;
    char *mine = pack_mine(my_role, &len);
    int *lens = NULL, *displs = NULL;
    char *all = NULL;
    if (rank == 0) {
        lens = xmalloc(sizeof(int) * (size_t)size);
        displs = xmalloc(sizeof(int) * (size_t)size);
    }
    MPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, world);
    if (rank == 0) {
        long total = 0;
        for (int r = 0; r < size; r++) {
            displs[r] = (int)total;
            total += lens[r];
        }
        /* 1 byte per rank when nothing is set; the displacements are int. */
        if (total > 0x7fffffffL)
            die("launch variables: %ld bytes from %d ranks exceed one gather\n", total, size);
        all = xmalloc((size_t)total + 1);
    }
    MPI_Gatherv(mine, len, MPI_CHAR, all, lens, displs, MPI_CHAR, 0, world);
    free(mine);
    if (rank != 0)
        return;

    env.n_roles = n_roles < MAX_ROLES ? n_roles : MAX_ROLES;
    env.n_names = n_names();
    env.vars = xcalloc((size_t)env.n_roles * (size_t)env.n_names, sizeof(env_var_t));
    for (int i = 0; i < env.n_roles * env.n_names; i++) {
        env.vars[i].other_last_node = -1;
        for (int j = 0; j < LAUNCH_ENV_MAX_VALUES; j++)
            env.vars[i].values[j].last_node = -1;
    }
    /* Ranks node by node, so that a node is counted once per value. */
    int *by_node = xmalloc(sizeof(int) * (size_t)size);
    int *start = xcalloc((size_t)nodes->n_nodes + 1, sizeof(int));
    for (int r = 0; r < size; r++)
        start[nodes->node_of_rank[r] + 1]++;
    for (int n = 0; n < nodes->n_nodes; n++)
        start[n + 1] += start[n];
    for (int r = 0; r < size; r++)
        by_node[start[nodes->node_of_rank[r]]++] = r;
    free(start);
    for (int k = 0; k < size; k++) {
        int r = by_node[k], node = nodes->node_of_rank[r];
        const char *p = all + displs[r], *end = p + lens[r];
        int role = (unsigned char)*p++;
        if (role >= env.n_roles)
            continue;
        env.role_ranks[role]++;
        while (p < end) {
            int var = (unsigned char)p[0], cut = p[1];
            const char *value = p + 2;
            p = value + strlen(value) + 1;
            if (var < env.n_names)
                count(&env.vars[role * env.n_names + var], value, cut, node);
        }
    }
    free(by_node);
    free(all);
    free(lens);
    free(displs);
    env.collected = 1;
}

void launch_env_json(json_writer_t *w, const nodes_t *nodes, const char *const *role_names)
{
    jw_object_begin(w, "launch_variables");
    jw_array_begin(w, "watched");
    for (int i = 0; launch_env_names[i]; i++)
        jw_string(w, NULL, launch_env_names[i]);
    jw_array_end(w);
    for (int role = 0; env.collected && role < env.n_roles; role++) {
        jw_object_begin(w, role_names[role]);
        for (int i = 0; i < env.n_names; i++) {
            /* A variable some rank had appears in every role, so that a
             * role without it says so (unset_ranks). */
            long anywhere = 0;
            for (int r = 0; r < env.n_roles; r++)
                anywhere += env.vars[r * env.n_names + i].set_ranks;
            if (!anywhere)
                continue;
            const env_var_t *v = &env.vars[role * env.n_names + i];
            jw_object_begin(w, launch_env_names[i]);
            jw_array_begin(w, "values");
            for (int j = 0; j < v->n_values; j++) {
                const env_value_t *e = &v->values[j];
                jw_object_begin(w, NULL);
                jw_string(w, "value", e->value);
                if (e->truncated)
                    jw_bool(w, "truncated", 1);
                jw_int(w, "ranks", e->ranks);
                jw_int(w, "nodes", e->nodes);
                jw_string(w, "first_node", nodes->names[e->first_node]);
                jw_object_end(w);
            }
            jw_array_end(w);
            jw_int(w, "unset_ranks", env.role_ranks[role] - v->set_ranks);
            if (v->other_ranks) {
                jw_int(w, "other_values_ranks", v->other_ranks);
                jw_int(w, "other_values_nodes", v->other_nodes);
            }
            jw_object_end(w);
        }
        jw_object_end(w);
    }
    jw_object_end(w);
}

void launch_env_free(void)
{
    free(env.vars);
    memset(&env, 0, sizeof(env));
}
