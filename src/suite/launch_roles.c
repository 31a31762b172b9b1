#include "suite/launch_roles.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "infra/fatal.h"
#include "suite/launch_env.h"

static struct {
    int active;        /* roles from the launch */
    int *congestor;    /* per node: 1 when application 1's */
    int n_canary, n_congestor;
} launch;

static int my_appnum(MPI_Comm world)
{
    int *value = NULL, flag = 0;
    MPI_Comm_get_attr(world, MPI_APPNUM, &value, &flag);
    return flag && value ? *value : 0;
}

static uint64_t fnv1a(uint64_t h, const char *s)
{
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return (h ^ 0xffu) * 1099511628211ULL; /* a separator: "ab","c" != "a","bc" */
}

int launch_apps_check(MPI_Comm world, const char *program, int argc, char **argv)
{
    uint64_t h = fnv1a(14695981039346656037ULL, program);
    for (int i = 1; i < argc; i++)
        h = fnv1a(h, argv[i]);
    int app = my_appnum(world);
    /* max(app), max(h) and max(~h) = ~min(h) in one reduction. */
    uint64_t v[3] = {(uint64_t)(app > 0 ? app : 0), h, ~h}, m[3];
    MPI_Allreduce(v, m, 3, MPI_UINT64_T, MPI_MAX, world);
    if (m[0] > 0 && m[1] != ~m[2])
        exit_all(2,
                 "%s: the %d applications of this MPMD launch run different programs or options; "
                 "give every application the same program and options (only the environment may "
                 "differ, e.g. mpirun -np A -x UCX_IB_SL=1 %s ARGS : -np B -x UCX_IB_SL=2 %s ARGS)\n",
                 program, (int)m[0] + 1, program, program);
    return (int)m[0] + 1;
}

int launch_roles_init(run_t *run, int apps)
{
    if (apps <= 1)
        return 0;
    const char *prog = "network_load_test";
    if (apps > 2)
        exit_all(2,
                 "%s: the launch has %d applications; roles from the launch take two (application "
                 "0 runs canaries, application 1 congestors): launch '-np A %s ... : -np B %s ...'\n",
                 prog, apps, prog, prog);
    if (run->env.opt.canary_fraction_given)
        exit_all(2,
                 "%s: --canary-fraction and an MPMD launch both choose the canaries; drop "
                 "--canary-fraction (application 0 of the launch runs canaries, application 1 "
                 "congestors)\n",
                 prog);
    if (run->env.plan->set.placement == PLACEMENT_COLOCATED)
        exit_all(2,
                 "%s: --placement colocated mixes canaries and congestors within a node, and an "
                 "MPMD launch gives every node one role; drop --placement colocated or launch "
                 "one application\n",
                 prog);
    const nodes_t *nd = &run->env.nodes;
    int *app = xmalloc(sizeof(int) * (size_t)run->env.size);
    int mine = my_appnum(run->env.world);
    MPI_Allgather(&mine, 1, MPI_INT, app, 1, MPI_INT, run->env.world);
    launch.congestor = xmalloc(sizeof(int) * (size_t)nd->n_nodes);
    for (int n = 0; n < nd->n_nodes; n++)
        launch.congestor[n] = -1;
    int mixed = -1;
    for (int r = 0; r < run->env.size; r++) {
        int n = nd->node_of_rank[r];
        if (launch.congestor[n] < 0)
            launch.congestor[n] = app[r];
        else if (launch.congestor[n] != app[r] && mixed < 0)
            mixed = n;
    }
    free(app);
    /* Every rank computed the same from the same data: all exit together. */
    if (mixed >= 0)
        exit_all(2,
                 "%s: node %s has ranks of both applications of the launch; every node runs one "
                 "role: give each application whole nodes (mpirun: -np a multiple of the ranks "
                 "per node and --map-by ppr:PPN:node; emulated nodes: -np a multiple of "
                 "--emulate-nodes K)\n",
                 prog, run->env.rank == 0 ? nd->names[mixed] : "?");
    for (int n = 0; n < nd->n_nodes; n++) {
        launch.n_congestor += launch.congestor[n] == 1;
        launch.n_canary += launch.congestor[n] == 0;
    }
    int need = 2 * run->env.plan->n_congestors;
    if (launch.n_canary < 2 || launch.n_congestor < need)
        exit_all(2,
                 "%s: the launch gives %d canary node(s) (application 0) and %d congestor "
                 "node(s) (application 1); the load test needs at least 2 canary nodes and 2 "
                 "per congestor (%d congestor(s): %d): launch more nodes in the smaller part or "
                 "choose fewer --congestors\n",
                 prog, launch.n_canary, launch.n_congestor, run->env.plan->n_congestors, need);
    launch.active = 1;
    return 1;
}

void launch_roles_collect_env(run_t *run)
{
    if (launch.active)
        launch_env_collect(run->env.world, &run->env.nodes, launch.congestor[run->env.nodes.my_node], 2);
    else
        launch_env_collect(run->env.world, &run->env.nodes, 0, 1);
}

int launch_roles_active(void) { return launch.active; }

int launch_roles_placement(run_t *run, placement_t *p)
{
    return placement_compute_given(p, run_seed(run), run->env.nodes.n_nodes, launch.congestor,
                                   run->env.plan->n_congestors, run->env.plan->weights);
}

double launch_roles_canary_share(const run_t *run)
{
    return launch.active ? (double)launch.n_canary / run->env.nodes.n_nodes : 0.0;
}

void launch_roles_share_line(const run_t *run, char *buf, size_t len)
{
    snprintf(buf, len, "  canary share: from the launch (%d of %d nodes)", launch.n_canary,
             run->env.nodes.n_nodes);
}

void launch_roles_json(json_writer_t *w, const run_t *run, const void *ctx)
{
    jw_object_begin(w, "roles");
    if (ctx) {
        /* network_congestor: every rank congests, in a job of its own. */
        jw_string(w, "source", "congestor_job");
        const char *const roles[] = {ctx};
        launch_env_json(w, &run->env.nodes, roles);
        jw_object_end(w);
        return;
    }
    jw_string(w, "source", launch.active ? "launch" : "draw");
    if (launch.active) {
        jw_int(w, "applications", 2);
        jw_int(w, "canary_nodes", launch.n_canary);
        jw_int(w, "congestor_nodes", launch.n_congestor);
        jw_number(w, "canary_share", launch_roles_canary_share(run));
        const char *const roles[] = {"canaries", "congestors"};
        launch_env_json(w, &run->env.nodes, roles);
    } else {
        /* The draw gives roles after MPI_Init: one group, the whole job. */
        const char *const roles[] = {"all"};
        launch_env_json(w, &run->env.nodes, roles);
    }
    jw_object_end(w);
}

void launch_roles_free(void)
{
    free(launch.congestor);
    memset(&launch, 0, sizeof(launch));
    launch_env_free();
}
