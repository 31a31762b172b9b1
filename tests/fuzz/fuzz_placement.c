/* Fuzz the load-test placement with any node count, ranks per node,
 * canary fraction, kernel count and weights. It must succeed exactly when
 * there are at least placement_min_nodes() nodes, and then: the node order
 * is a permutation, floor((1-f) N) nodes run congestors, canary ranks have
 * no kernel, every congestor rank has one, and the same inputs give the
 * same placement. */
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
    int uneven = (int)(take(&d, &n, 1) & 1);
    int base_ppn = 1 + (int)(take(&d, &n, 1) % 8);
    static int ppn[MAX_NODES];
    for (int i = 0; i < n_nodes; i++)
        ppn[i] = uneven ? 1 + (int)(take(&d, &n, 1) % 8) : base_ppn;

    int min_nodes = placement_min_nodes(f, n_kernels);
    placement_t p, q;
    int rc = placement_compute(&p, seed, n_nodes, ppn, f, n_kernels, weighted ? weights : NULL);
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
    for (int node = 0; node < n_nodes; node++) {
        FUZZ_CHECK(p.kernel_offset[node + 1] - p.kernel_offset[node] == ppn[node]);
        for (int r = 0; r < ppn[node]; r++) {
            int k = p.kernel_of[p.kernel_offset[node] + r];
            if (p.is_congestor[node])
                FUZZ_CHECK(k >= 0 && k < n_kernels);
            else
                FUZZ_CHECK(k == -1);
        }
    }
    /* Without weights, dealing round-robin gives every kernel >= 2 nodes
     * in slice 0 (the suite relies on it; with weights it checks). */
    if (!weighted) {
        int per_kernel[MAX_KERNELS] = {0};
        for (int i = 0; i < nc; i++)
            per_kernel[p.kernel_of[p.kernel_offset[p.order[i]]]]++;
        for (int k = 0; k < n_kernels; k++)
            FUZZ_CHECK(per_kernel[k] >= 2);
    }
    /* A pure function of its inputs. */
    FUZZ_CHECK(placement_compute(&q, seed, n_nodes, ppn, f, n_kernels,
                                 weighted ? weights : NULL) == 0);
    FUZZ_CHECK(memcmp(p.order, q.order, sizeof(int) * (size_t)n_nodes) == 0);
    FUZZ_CHECK(memcmp(p.kernel_of, q.kernel_of,
                      sizeof(int) * (size_t)p.kernel_offset[n_nodes]) == 0);
    placement_free(&q);
    placement_free(&p);
    return 0;
}
