#include "infra/nic_record.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "infra/fatal.h"
#include "infra/nic_probe.h"
#include "infra/nic_state.h"
#include "infra/result.h"

nic_state_t nic_state = {.rail = MPI_COMM_NULL, .nic = MPI_COMM_NULL};

/* Whether name is a NIC of this host as gpcnet-bind names them: a netdev,
 * or an RDMA device port DEV:PORT. */
static int nic_on_host(const char *name)
{
    char path[2 * NIC_NAME_LEN + 64];
    struct stat st;
    if (!name[0] || strchr(name, '/') || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
        return 0;
    const char *colon = strchr(name, ':');
    if (!colon) {
        snprintf(path, sizeof(path), "/sys/class/net/%s", name);
    } else {
        snprintf(path, sizeof(path), "/sys/class/infiniband/%.*s/ports/%s",
                 (int)(colon - name), name, colon + 1);
        if (colon == name || strstr(colon + 1, ".."))
            return 0;
    }
    return stat(path, &st) == 0;
}

static void refuse_missing_nic(MPI_Comm world, int rank, int size, const char *mine, int bad,
                               const char *program)
{
    int first = bad ? rank : size;
    MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, world);
    if (first == size)
        return;
    if (rank == first) {
        char host[MPI_MAX_PROCESSOR_NAME] = "";
        int len = 0;
        MPI_Get_processor_name(host, &len);
        fprintf(stderr,
                "%s: rank %d on host %s: GPCNET_NIC=%.64s is not a NIC of this host (bind "
                "ranks with gpcnet-bind, which checks this before starting the program)\n",
                program, rank, host, mine);
        fflush(stderr);
    }
    MPI_Barrier(world); /* the line is out before any rank finalizes */
    exit_all(2, NULL);
}

void nic_record_init(MPI_Comm world, const nodes_t *nodes, const char *program)
{
    int rank, size;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_size(world, &size);
    rank_nic_t me = {.rail = -1, .node = nodes->my_node, .local = nodes->my_local};
    const char *nic = getenv("GPCNET_NIC");
    const char *index = getenv("GPCNET_NIC_INDEX");
    int bound = nic && nic[0];
#ifdef SMPI_H
    /* Simulated ranks share one process, so one environment: each sees the
     * same GPCNET_NIC. A collective here would only move the simulated
     * clock, and the values of a SimGrid run with it. */
    nic_state.active = bound;
#else
    MPI_Allreduce(&bound, &nic_state.active, 1, MPI_INT, MPI_MAX, world);
#endif
    if (!nic_state.active)
        return;
    int bad = 0;
    if (bound) {
        bad = strlen(nic) >= NIC_NAME_LEN || !nic_on_host(nic);
        snprintf(me.nic, sizeof(me.nic), "%s", nic);
        char *end = NULL;
        long r = index ? strtol(index, &end, 10) : -1;
        me.rail = index && end != index && !*end && r >= 0 && r < 4096 ? (int)r : -1;
    }
    refuse_missing_nic(world, rank, size, nic ? nic : "", bad, program);

    MPI_Allreduce(&me.rail, &nic_state.n_rails, 1, MPI_INT, MPI_MAX, world);
    nic_state.n_rails += 1;
    MPI_Comm_split(world, me.rail >= 0 ? me.rail : MPI_UNDEFINED, rank, &nic_state.rail);
    MPI_Comm_split(world, me.rail >= 0 ? me.node * nic_state.n_rails + me.rail : MPI_UNDEFINED, rank,
                   &nic_state.nic);
    nic_state.size = size;
    nic_state.nodes = nodes;
    nic_state.my_rail = me.rail;
    nic_state.my_node = me.node;
    if (rank == 0)
        nic_state.ranks = xmalloc(sizeof(rank_nic_t) * (size_t)size);
    MPI_Gather(&me, (int)sizeof(me), MPI_BYTE, nic_state.ranks, (int)sizeof(me), MPI_BYTE, 0, world);
}

int nic_record_active(void)
{
    return nic_state.active;
}

/* Merge the group's accumulators (a copy: acc stays as the table row's
 * reduction expects it) and, on the group's first rank, fill out[5]:
 * 1, ranks, avg, p99, samples. */
static void reduce_group(MPI_Comm group, const stats_acc_t *acc, int member, int hib,
                         stats_acc_t *tmp, double *out)
{
    if (group == MPI_COMM_NULL)
        return;
    if (member)
        memcpy(tmp, acc, sizeof(*tmp));
    else
        stats_init(tmp);
    stats_reduce(tmp, group);
    int grank;
    MPI_Comm_rank(group, &grank);
    if (grank != 0)
        return;
    result_t *r = xcalloc(1, sizeof(*r));
    r->higher_is_better = hib;
    stats_to_result(tmp, r);
    out[0] = 1.0;
    out[1] = r->ranks;
    out[2] = r->avg;
    out[3] = r->p99;
    out[4] = r->hist.count;
    free(r);
}

static group_result_t *collect_roots(const double *all, int offset, int *n_out)
{
    int n = 0;
    for (int w = 0; w < nic_state.size; w++)
        n += all[w * 10 + offset] > 0.0 && all[w * 10 + offset + 4] > 0.0;
    group_result_t *g = xcalloc((size_t)(n > 0 ? n : 1), sizeof(*g));
    n = 0;
    for (int w = 0; w < nic_state.size; w++) {
        const double *v = all + w * 10 + offset;
        if (v[0] > 0.0 && v[4] > 0.0) /* a group that measured nothing is left out */
            g[n++] = (group_result_t){w, (int)v[1], v[2], v[3], v[4]};
    }
    *n_out = n;
    return g;
}

void nic_record_canary(const char *table_id, int repetition, const char *test_id,
                       const char *unit, int higher_is_better,
                       const stats_acc_t *acc, int member, MPI_Comm world)
{
    if (!nic_state.active)
        return;
    int rank;
    MPI_Comm_rank(world, &rank);
    stats_acc_t *tmp = xmalloc(sizeof(*tmp));
    double mine[10] = {0};
    reduce_group(nic_state.rail, acc, member, higher_is_better, tmp, mine);
    reduce_group(nic_state.nic, acc, member, higher_is_better, tmp, mine + 5);
    free(tmp);
    double *all = rank == 0 ? xmalloc(sizeof(double) * 10 * (size_t)nic_state.size) : NULL;
    MPI_Gather(mine, 10, MPI_DOUBLE, all, 10, MPI_DOUBLE, 0, world);
    if (rank != 0)
        return;
    if (nic_state.n_entries == nic_state.cap_entries) {
        nic_state.cap_entries = nic_state.cap_entries ? 2 * nic_state.cap_entries : 16;
        nic_state.entries = realloc(nic_state.entries, sizeof(canary_entry_t) * (size_t)nic_state.cap_entries);
        if (!nic_state.entries)
            die("out of memory recording per-NIC results");
    }
    canary_entry_t *e = &nic_state.entries[nic_state.n_entries++];
    memset(e, 0, sizeof(*e));
    snprintf(e->table, sizeof(e->table), "%s", table_id);
    snprintf(e->test, sizeof(e->test), "%s", test_id);
    snprintf(e->unit, sizeof(e->unit), "%s", unit);
    e->repetition = repetition;
    e->higher_is_better = higher_is_better;
    e->rails = collect_roots(all, 0, &e->n_rails);
    e->nics = collect_roots(all, 5, &e->n_nics);
    free(all);
}

void nic_record_probe(MPI_Comm world, int rounds)
{
    if (!nic_state.active || rounds <= 0)
        return;
    int rank, nic_rank = -1;
    MPI_Comm_rank(world, &rank);
    if (nic_state.nic != MPI_COMM_NULL)
        MPI_Comm_rank(nic_state.nic, &nic_rank);
    double mine = NAN;
    MPI_Barrier(world);
    double start = MPI_Wtime();
    for (int r = 0; r < nic_state.n_rails; r++) {
        /* Rails one after the other: a rail's pairs share nothing with
         * another rail's, even on a fabric where the rails meet. */
        MPI_Comm leaders;
        int lead = nic_state.my_rail == r && nic_rank == 0;
        MPI_Comm_split(world, lead ? 0 : MPI_UNDEFINED, nic_state.my_node, &leaders);
        if (leaders != MPI_COMM_NULL) {
            mine = nic_probe_rail(leaders, rounds);
            MPI_Comm_free(&leaders);
        }
        MPI_Barrier(world);
    }
    if (rank == 0) {
        free(nic_state.probe_usec);
        nic_state.probe_usec = xmalloc(sizeof(double) * (size_t)nic_state.size);
        nic_state.probe_wall_s = MPI_Wtime() - start;
        nic_state.probe_rounds = rounds;
    }
    MPI_Gather(&mine, 1, MPI_DOUBLE, nic_state.probe_usec, 1, MPI_DOUBLE, 0, world);
}


void nic_record_free(void)
{
    for (int i = 0; i < nic_state.n_entries; i++) {
        free(nic_state.entries[i].rails);
        free(nic_state.entries[i].nics);
    }
    free(nic_state.entries);
    free(nic_state.ranks);
    free(nic_state.probe_usec);
    if (nic_state.rail != MPI_COMM_NULL)
        MPI_Comm_free(&nic_state.rail);
    if (nic_state.nic != MPI_COMM_NULL)
        MPI_Comm_free(&nic_state.nic);
    memset(&nic_state, 0, sizeof(nic_state));
    nic_state.rail = nic_state.nic = MPI_COMM_NULL;
}
