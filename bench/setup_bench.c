/* Set-up cost without MPI (docs/scale.md): the computing parts of node
 * discovery and load-test placement, timed at 10k, 100k and 1M ranks:
 * numbering the nodes by name (rank 0), mapping every rank to its node and
 * computing the placement (every rank).
 *
 *   setup_bench [RANKS...]      default: 10000 100000 1000000
 *
 * Each size runs with 1 and 4 ranks per node. Host names are node-<i> with
 * the hosts in a shuffled rank order, so grouping cannot lean on the
 * launcher's layout. Prints one line per (ranks, PPN) with the CPU seconds
 * of each step and exits 1 when a result is inconsistent (wrong node count or
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

/* CPU time of this process: on a shared host, wall time would mostly
 * measure the other jobs. */
static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
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
    /* Rank 0's part: the node leaders' names, hosts in a shuffled order. */
    int *host_order = must(malloc(sizeof(int) * (size_t)hosts));
    for (int h = 0; h < hosts; h++)
        host_order[h] = h;
    rng_t rng;
    rng_init(&rng, 12345);
    rng_shuffle(&rng, host_order, hosts);
    char *names = must(malloc((size_t)hosts * NAME_LEN));
    for (int h = 0; h < hosts; h++)
        snprintf(names + (size_t)h * NAME_LEN, NAME_LEN, "node-%d", host_order[h]);
    int *id_of_leader = must(malloc(sizeof(int) * (size_t)hosts));
    int *sorted = must(malloc(sizeof(int) * (size_t)hosts));
    double t0 = now();
    int n_hosts = node_ids_by_name(names, NAME_LEN, hosts, id_of_leader, sorted);
    double t_number = now() - t0;

    /* Every rank's part: (leader, node id) of every rank to its node. */
    int *pairs = must(malloc(sizeof(int) * 2 * (size_t)ranks));
    for (int r = 0; r < ranks; r++) {
        pairs[2 * r] = r - r % ppn;
        pairs[2 * r + 1] = r % ppn == 0 ? id_of_leader[r / ppn] : -1;
    }
    int *node_of_rank = must(malloc(sizeof(int) * (size_t)ranks));
    int *local_of_rank = must(malloc(sizeof(int) * (size_t)ranks));
    int *per_node = NULL;
    t0 = now();
    int nodes = node_map_ranks(pairs, ranks, node_of_rank, local_of_rank, &per_node);
    double t_map = now() - t0;
    int bad = nodes != hosts || n_hosts != hosts;
    for (int n = 0; !bad && n < nodes; n++)
        bad = per_node[n] != ppn;

    /* Every rank's placement and the node positions it derives from it. */
    placement_t p;
    memset(&p, 0, sizeof(p));
    int *canary_pos = must(malloc(sizeof(int) * (size_t)(nodes > 0 ? nodes : 1)));
    int *congestor_pos = must(malloc(sizeof(int) * (size_t)(nodes > 0 ? nodes : 1)));
    t0 = now();
    int failed = bad || placement_compute(&p, 5, nodes, 0.2, KERNELS, NULL);
    if (!failed) {
        for (int i = 0; i < p.n_nodes; i++) {
            int node = p.order[i];
            congestor_pos[node] = i < p.n_congestor_nodes ? i : -1;
            canary_pos[node] = i < p.n_congestor_nodes ? -1 : i - p.n_congestor_nodes;
        }
        for (int k = 0; k < KERNELS; k++)
            bad |= placement_kernel_nodes(&p, k) < 2;
    }
    double t_place = now() - t0;
    for (int i = 0; !failed && !bad && i < p.n_congestor_nodes; i++)
        bad |= p.kernel_of_node[p.order[i]] < 0;
    bad |= failed;

    double total = t_number + t_map + t_place;
    printf("%9d %4d %9d %12.4f %12.4f %12.4f %12.4f %10.1f%s\n", ranks, ppn, nodes, t_number,
           t_map, t_place, total, 1e9 * total / ranks, bad ? "  INCONSISTENT" : "");
    if (!failed)
        placement_free(&p);
    free(canary_pos);
    free(congestor_pos);
    free(per_node);
    free(node_of_rank);
    free(local_of_rank);
    free(pairs);
    free(sorted);
    free(id_of_leader);
    free(names);
    free(host_order);
    return bad;
}

int main(int argc, char **argv)
{
    int defaults[] = {10000, 100000, 1000000};
    int n = argc > 1 ? argc - 1 : 3;
    printf("%9s %4s %9s %12s %12s %12s %12s %10s\n", "ranks", "ppn", "nodes", "numbering_s",
           "rank_map_s", "placement_s", "total_s", "ns/rank");
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
