/* Fuzz the load-test placement with any node count, canary fraction,
 * kernel count and weights. It must succeed exactly when there are at least
 * placement_min_nodes() nodes, and then: the node order is a permutation,
 * floor((1-f) N) nodes run congestors, canary nodes have no kernel, every
 * congestor node has one, node counts follow the weights, and the same
 * inputs give the same placement. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "infra/placement.h"

#define MAX_NODES 512
#define MAX_KERNELS 8

static uint32_t take(const uint8_t **d, size_t *n, int bytes)
{
    uint32_t v = 0;
    for (int i = 0; i < bytes; i++) {
        v = (v << 8) | (*n ? **d : 0);
        if (*n) {
            (*d)++;
            (*n)--;
        }
    }
    return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *d = data;
    size_t n = size;
    uint64_t seed = ((uint64_t)take(&d, &n, 4) << 32) | take(&d, &n, 4);
    int n_nodes = 1 + (int)(take(&d, &n, 2) % MAX_NODES);
    double f = (1 + (int)(take(&d, &n, 1) % 90)) / 100.0; /* 0.01 .. 0.90 */
    int n_kernels = 1 + (int)(take(&d, &n, 1) % MAX_KERNELS);
    int weights[MAX_KERNELS];
    int weighted = (int)(take(&d, &n, 1) & 1);
    for (int k = 0; k < n_kernels; k++)
        weights[k] = weighted ? 1 + (int)(take(&d, &n, 1) % 64) : 1;

    int min_nodes = placement_min_nodes(f, n_kernels);
    placement_t p, q;
    int rc = placement_compute(&p, seed, n_nodes, f, n_kernels, weighted ? weights : NULL);
    FUZZ_CHECK(min_nodes >= 2);
    FUZZ_CHECK((rc == 0) == (n_nodes >= min_nodes));
    if (rc != 0)
        return 0;

    int nc = placement_congestor_nodes(n_nodes, f);
    FUZZ_CHECK(p.n_nodes == n_nodes && p.n_congestor_nodes == nc);
    FUZZ_CHECK(p.n_canary_nodes == n_nodes - nc && p.n_canary_nodes >= 2);
    FUZZ_CHECK(nc >= 2 * n_kernels);
    static int seen[MAX_NODES];
    memset(seen, 0, sizeof(seen));
    for (int i = 0; i < n_nodes; i++) {
        int node = p.order[i];
        FUZZ_CHECK(node >= 0 && node < n_nodes && !seen[node]);
        seen[node] = 1;
        FUZZ_CHECK(p.is_congestor[node] == (i < nc));
    }
    int per_kernel[MAX_KERNELS] = {0};
    for (int node = 0; node < n_nodes; node++) {
        int k = p.kernel_of_node[node];
        if (p.is_congestor[node]) {
            FUZZ_CHECK(k >= 0 && k < n_kernels);
            per_kernel[k]++;
        } else {
            FUZZ_CHECK(k == -1);
        }
    }
    /* Node counts follow the weights: within one dealing cycle of the
     * exact share. Without weights every kernel gets >= 2 nodes (the suite
     * relies on it; with weights it checks). */
    int total_w = 0;
    for (int k = 0; k < n_kernels; k++)
        total_w += weighted ? weights[k] : 1;
    for (int k = 0; k < n_kernels; k++) {
        int w = weighted ? weights[k] : 1;
        FUZZ_CHECK(per_kernel[k] >= (nc / total_w) * w);
        FUZZ_CHECK(per_kernel[k] <= (nc / total_w + 1) * w);
        FUZZ_CHECK(per_kernel[k] == placement_kernel_nodes(&p, k));
        if (!weighted)
            FUZZ_CHECK(per_kernel[k] >= 2);
    }
    /* A pure function of its inputs. */
    FUZZ_CHECK(placement_compute(&q, seed, n_nodes, f, n_kernels,
                                 weighted ? weights : NULL) == 0);
    FUZZ_CHECK(memcmp(p.order, q.order, sizeof(int) * (size_t)n_nodes) == 0);
    FUZZ_CHECK(memcmp(p.kernel_of_node, q.kernel_of_node, sizeof(int) * (size_t)n_nodes) == 0);
    placement_free(&q);
    placement_free(&p);
    return 0;
}
