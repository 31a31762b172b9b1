/* Set-up cost without MPI (docs/scale.md): what one rank computes for node
 * grouping and load-test placement, timed at 10k, 100k and 1M ranks.
 *
 *   setup_bench [RANKS...]      default: 10000 100000 1000000
 *
 * Each size runs with 1 and 4 ranks per node. Host names are node-<i> with
 * the hosts in a shuffled rank order, so grouping cannot lean on the
 * launcher's layout. Prints one line per (ranks, PPN) with the seconds of
 * each step and exits 1 when a result is inconsistent (wrong node count or
 * PPN, a congestor node without a kernel). */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "infra/node_groups.h"
#include "infra/placement.h"
#include "infra/rng.h"

#define NAME_LEN 96 /* as NODE_NAME_LEN: the stride of the gathered names */
#define KERNELS 3   /* the default congestor mix */

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void *must(void *p)
{
    if (!p) {
        fprintf(stderr, "setup_bench: out of memory\n");
        exit(1);
    }
    return p;
}

static int one(int ranks, int ppn)
{
    int hosts = ranks / ppn;
    if (hosts < 1) {
        fprintf(stderr, "setup_bench: %d ranks is fewer than %d per node\n", ranks, ppn);
        return 1;
    }
    ranks = hosts * ppn;
    /* Hosts in a shuffled order; each host's ranks together. */
    int *host_order = must(malloc(sizeof(int) * (size_t)hosts));
    for (int h = 0; h < hosts; h++)
        host_order[h] = h;
    rng_t rng;
    rng_init(&rng, 12345);
    rng_shuffle(&rng, host_order, hosts);
    char *names = must(malloc((size_t)ranks * NAME_LEN));
    for (int r = 0; r < ranks; r++)
        snprintf(names + (size_t)r * NAME_LEN, NAME_LEN, "node-%d", host_order[r / ppn]);
    int *node_of_rank = must(malloc(sizeof(int) * (size_t)ranks));
    int *local_of_rank = must(malloc(sizeof(int) * (size_t)ranks));
    int *per_node = NULL;

    double t0 = now();
    int nodes = node_groups_by_name(names, NAME_LEN, ranks, node_of_rank, local_of_rank, &per_node);
    double t_group = now() - t0;
    int bad = nodes != hosts;
    for (int n = 0; !bad && n < nodes; n++)
        bad = per_node[n] != ppn;

    placement_t p;
    memset(&p, 0, sizeof(p));
    t0 = now();
    int failed = placement_compute(&p, 5, nodes, per_node, 0.2, KERNELS, NULL);
    /* What every rank derives from the placement before building its
     * communicators: the position of each node among canaries/congestors. */
    int *canary_pos = must(malloc(sizeof(int) * (size_t)nodes));
    int *congestor_pos = must(malloc(sizeof(int) * (size_t)nodes));
    if (!failed)
        for (int i = 0; i < p.n_nodes; i++) {
            int node = p.order[i];
            congestor_pos[node] = i < p.n_congestor_nodes ? i : -1;
            canary_pos[node] = i < p.n_congestor_nodes ? -1 : i - p.n_congestor_nodes;
        }
    double t_place = now() - t0;
    for (int i = 0; !failed && !bad && i < p.n_congestor_nodes; i++) {
        int node = p.order[i];
        for (int l = 0; l < per_node[node]; l++)
            bad |= p.kernel_of[p.kernel_offset[node] + l] < 0;
    }
    bad |= failed;

    printf("%9d %4d %9d %12.4f %12.4f %12.4f %10.1f%s\n", ranks, ppn, nodes, t_group, t_place,
           t_group + t_place, 1e9 * (t_group + t_place) / ranks, bad ? "  INCONSISTENT" : "");
    if (!failed)
        placement_free(&p);
    free(canary_pos);
    free(congestor_pos);
    free(per_node);
    free(node_of_rank);
    free(local_of_rank);
    free(names);
    free(host_order);
    return bad;
}

int main(int argc, char **argv)
{
    int defaults[] = {10000, 100000, 1000000};
    int n = argc > 1 ? argc - 1 : 3;
    printf("%9s %4s %9s %12s %12s %12s %10s\n", "ranks", "ppn", "nodes", "grouping_s",
           "placement_s", "total_s", "ns/rank");
    int bad = 0;
    for (int i = 0; i < n; i++) {
        char *end;
        long ranks = argc > 1 ? strtol(argv[i + 1], &end, 10) : defaults[i];
        if (argc > 1 && (*end || ranks < 4 || ranks > 100000000)) {
            fprintf(stderr, "setup_bench: '%s' is not a rank count from 4 to 100000000\n",
                    argv[i + 1]);
            return 2;
        }
        bad |= one((int)ranks, 1);
        bad |= one((int)ranks, 4);
    }
    return bad;
}
