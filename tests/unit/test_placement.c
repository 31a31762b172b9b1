/* Load-test placement: counts, determinism, one rank per node per
 * congestor communicator, uneven PPN, weights, minimum node counts. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "infra/placement.h"

static int count_kernel(const placement_t *p, const int *ppn, int slice, int kernel)
{
    int c = 0;
    for (int n = 0; n < p->n_nodes; n++)
        if (ppn[n] > slice && p->kernel_of[p->kernel_offset[n] + slice] == kernel)
            c++;
    return c;
}

int main(void)
{
    /* Minimums: 2 canary nodes and 2 nodes per congestor. */
    CHECK(placement_min_nodes(0.2, 4) == 10);
    CHECK(placement_min_nodes(0.2, 1) == 6); /* floor(0.8 N) >= 2 and >= 2 canaries */
    CHECK(placement_min_nodes(0.5, 4) == 16);
    CHECK(placement_min_nodes(0.2, 6) == 15);
    CHECK(placement_congestor_nodes(10, 0.2) == 8);
    CHECK(placement_congestor_nodes(696, 0.2) == 556); /* floor(0.8 * 696) */

    int ppn[40];
    for (int i = 0; i < 40; i++)
        ppn[i] = 4;
    placement_t a, b;
    CHECK(placement_compute(&a, 9, 9, ppn, 0.2, 4, NULL) == -1); /* too few nodes */
    CHECK(placement_compute(&a, 1234, 40, ppn, 0.2, 4, NULL) == 0);
    CHECK(placement_compute(&b, 1234, 40, ppn, 0.2, 4, NULL) == 0);
    CHECK(a.n_congestor_nodes == 32 && a.n_canary_nodes == 8);
    /* Same seed, same everything: computed by any rank, in any order. */
    CHECK(memcmp(a.order, b.order, sizeof(int) * 40) == 0);
    CHECK(memcmp(a.kernel_of, b.kernel_of, sizeof(int) * 160) == 0);
    placement_free(&b);
    CHECK(placement_compute(&b, 1235, 40, ppn, 0.2, 4, NULL) == 0);
    CHECK(memcmp(a.order, b.order, sizeof(int) * 40) != 0);
    placement_free(&b);

    /* The order is a permutation; roles follow it. */
    int seen[40] = {0}, ok = 1;
    for (int i = 0; i < 40; i++)
        seen[a.order[i]]++;
    for (int i = 0; i < 40; i++)
        ok &= seen[i] == 1 && a.is_congestor[a.order[i]] == (i < 32);
    CHECK(ok);

    /* Canary ranks run no congestor; every congestor rank runs one. Within
     * a slice each kernel holds 32/4 = 8 nodes, each node once. */
    ok = 1;
    for (int n = 0; n < 40; n++)
        for (int s = 0; s < 4; s++) {
            int k = a.kernel_of[a.kernel_offset[n] + s];
            ok &= a.is_congestor[n] ? (k >= 0 && k < 4) : k == -1;
        }
    CHECK(ok);
    for (int s = 0; s < 4; s++)
        for (int k = 0; k < 4; k++)
            CHECK(count_kernel(&a, ppn, s, k) == 8);
    /* Nodes are dealt differently in different slices (shuffled per slice). */
    int differs = 0;
    for (int n = 0; n < 40; n++)
        differs |= a.is_congestor[n] && a.kernel_of[a.kernel_offset[n]] != a.kernel_of[a.kernel_offset[n] + 1];
    CHECK(differs);
    placement_free(&a);

    /* Uneven ranks per node: slices shrink, nothing breaks. */
    int uneven[12] = {4, 1, 3, 4, 2, 4, 4, 1, 4, 3, 2, 4};
    CHECK(placement_compute(&a, 77, 12, uneven, 0.2, 4, NULL) == 0);
    ok = 1;
    for (int n = 0; n < 12; n++)
        for (int s = 0; s < uneven[n]; s++) {
            int k = a.kernel_of[a.kernel_offset[n] + s];
            ok &= a.is_congestor[n] ? (k >= 0 && k < 4) : k == -1;
        }
    CHECK(ok);
    CHECK(a.kernel_offset[12] == 36);
    placement_free(&a);

    /* Weights: a2a:3 and rma_bcast:1 -> three times as many a2a ranks. */
    int w[2] = {3, 1};
    CHECK(placement_compute(&a, 5, 40, ppn, 0.2, 2, w) == 0);
    CHECK(count_kernel(&a, ppn, 0, 0) == 24 && count_kernel(&a, ppn, 0, 1) == 8);
    placement_free(&a);

    /* Canary fraction changes the split. */
    CHECK(placement_compute(&a, 5, 40, ppn, 0.5, 4, NULL) == 0);
    CHECK(a.n_congestor_nodes == 20 && a.n_canary_nodes == 20);
    placement_free(&a);
    return check_report("test_placement");
}
