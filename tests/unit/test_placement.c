/* Load-test placement: counts, determinism, kernels dealt to whole nodes,
 * weights on node counts, minimum node counts. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "infra/placement.h"

static int count_kernel(const placement_t *p, int kernel)
{
    int c = 0;
    for (int n = 0; n < p->n_nodes; n++)
        c += p->kernel_of_node[n] == kernel;
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

    placement_t a, b;
    CHECK(placement_compute(&a, 9, 9, 0.2, 4, NULL) == -1); /* too few nodes */
    CHECK(placement_compute(&a, 1234, 40, 0.2, 4, NULL) == 0);
    CHECK(placement_compute(&b, 1234, 40, 0.2, 4, NULL) == 0);
    CHECK(a.n_congestor_nodes == 32 && a.n_canary_nodes == 8);
    /* Same seed, same everything: computed by any rank, in any order. */
    CHECK(memcmp(a.order, b.order, sizeof(int) * 40) == 0);
    CHECK(memcmp(a.kernel_of_node, b.kernel_of_node, sizeof(int) * 40) == 0);
    placement_free(&b);
    CHECK(placement_compute(&b, 1235, 40, 0.2, 4, NULL) == 0);
    CHECK(memcmp(a.order, b.order, sizeof(int) * 40) != 0);
    placement_free(&b);

    /* The order is a permutation; roles follow it. */
    int seen[40] = {0}, ok = 1;
    for (int i = 0; i < 40; i++)
        seen[a.order[i]]++;
    for (int i = 0; i < 40; i++)
        ok &= seen[i] == 1 && a.is_congestor[a.order[i]] == (i < 32);
    CHECK(ok);

    /* Canary nodes run no congestor; every congestor node runs one, and the
     * 32 congestor nodes are divided evenly: 8 per kernel (paper 3.3). */
    ok = 1;
    for (int n = 0; n < 40; n++) {
        int k = a.kernel_of_node[n];
        ok &= a.is_congestor[n] ? (k >= 0 && k < 4) : k == -1;
    }
    CHECK(ok);
    for (int k = 0; k < 4; k++) {
        CHECK(count_kernel(&a, k) == 8);
        CHECK(placement_kernel_nodes(&a, k) == 8);
    }
    /* Kernels are spread over the list, not four contiguous blocks in it. */
    int blocks = 1;
    for (int k = 0; k < 4; k++)
        for (int i = 8 * k + 1; i < 8 * (k + 1); i++)
            blocks &= a.kernel_of_node[a.order[i]] == a.kernel_of_node[a.order[8 * k]];
    CHECK(!blocks);
    placement_free(&a);

    /* 10 nodes, the published minimum: 8 congestor nodes, 2 per kernel. */
    CHECK(placement_compute(&a, 3, 10, 0.2, 4, NULL) == 0);
    for (int k = 0; k < 4; k++)
        CHECK(placement_kernel_nodes(&a, k) == 2);
    placement_free(&a);

    /* Uneven split: 11 congestor nodes over 4 kernels -> 3, 3, 3, 2. */
    CHECK(placement_compute(&a, 8, 14, 0.2, 4, NULL) == 0);
    CHECK(a.n_congestor_nodes == 11);
    int most = 0, least = 99;
    for (int k = 0; k < 4; k++) {
        int c = placement_kernel_nodes(&a, k);
        most = c > most ? c : most;
        least = c < least ? c : least;
    }
    CHECK(most == 3 && least == 2);
    placement_free(&a);

    /* Weights apply to node counts: a2a:3 and rma_bcast:1 on 32 nodes. */
    int w[2] = {3, 1};
    CHECK(placement_compute(&a, 5, 40, 0.2, 2, w) == 0);
    CHECK(count_kernel(&a, 0) == 24 && count_kernel(&a, 1) == 8);
    placement_free(&a);

    /* Colocated: every node runs canaries and a congestor; kernels still
     * dealt to whole nodes, evenly. */
    CHECK(placement_min_nodes_colocated(4) == 8 && placement_min_nodes_colocated(1) == 2);
    CHECK(placement_compute_colocated(&a, 5, 7, 4, NULL) == -1);
    CHECK(placement_compute_colocated(&a, 5, 10, 4, NULL) == 0);
    CHECK(a.colocated && a.n_congestor_nodes == 10 && a.n_canary_nodes == 10);
    CHECK(placement_canary_list(&a) == a.order);
    ok = 1;
    for (int n = 0; n < 10; n++)
        ok &= a.is_congestor[n] && a.kernel_of_node[n] >= 0 && a.kernel_of_node[n] < 4;
    CHECK(ok);
    for (int k = 0; k < 4; k++)
        CHECK(placement_kernel_nodes(&a, k) >= 2 && placement_kernel_nodes(&a, k) <= 3);
    placement_free(&a);

    /* network_congestor: every node congests, none measures. */
    CHECK(placement_compute_all(&a, 5, 7, 4, NULL) == -1);
    CHECK(placement_compute_all(&a, 5, 8, 4, NULL) == 0);
    CHECK(!a.colocated && a.n_congestor_nodes == 8 && a.n_canary_nodes == 0);
    for (int k = 0; k < 4; k++)
        CHECK(placement_kernel_nodes(&a, k) == 2);
    placement_free(&a);

    /* The split placement: the canaries are the rest of the list. */
    CHECK(placement_compute(&a, 5, 10, 0.2, 4, NULL) == 0);
    CHECK(placement_canary_list(&a) == a.order + 8);
    placement_free(&a);

    /* Roles the launch gave (an MPMD launch): the given nodes congest, the
     * kernels are dealt over them as over drawn ones, the rest measure. */
    int given[12] = {0, 1, 1, 0, 1, 1, 1, 0, 1, 1, 0, 1}; /* 8 congestor nodes */
    CHECK(placement_compute_given(&a, 7, 12, given, 4, NULL) == 0);
    CHECK(a.n_congestor_nodes == 8 && a.n_canary_nodes == 4 && !a.colocated);
    ok = 1;
    for (int i = 0; i < 12; i++)
        ok &= (i < 8) == given[a.order[i]] && a.is_congestor[a.order[i]] == given[a.order[i]] &&
              (a.kernel_of_node[a.order[i]] >= 0) == given[a.order[i]];
    CHECK(ok);
    for (int k = 0; k < 4; k++)
        CHECK(placement_kernel_nodes(&a, k) == 2);
    placement_compute_given(&b, 7, 12, given, 4, NULL);
    CHECK(memcmp(a.order, b.order, sizeof(int) * 12) == 0); /* a pure function */
    placement_free(&b);
    placement_free(&a);
    CHECK(placement_compute_given(&a, 7, 12, given, 5, NULL) == -1); /* 8 < 2 x 5 */
    int one_canary[6] = {1, 1, 1, 0, 1, 1};
    CHECK(placement_compute_given(&a, 7, 6, one_canary, 1, NULL) == -1);

    /* Canary fraction changes the split. */
    CHECK(placement_compute(&a, 5, 40, 0.5, 4, NULL) == 0);
    CHECK(a.n_congestor_nodes == 20 && a.n_canary_nodes == 20);
    placement_free(&a);
    return check_report("test_placement");
}
