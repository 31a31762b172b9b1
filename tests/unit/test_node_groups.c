/* The pure parts of node discovery (infra/node_groups.h). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "infra/node_groups.h"

#define W 16

static void set_names(char *names, const char *const *v, int n)
{
    memset(names, 0, (size_t)n * W);
    for (int i = 0; i < n; i++)
        strcpy(names + i * W, v[i]);
}

int main(void)
{
    /* Leaders b, a, c, a: numbered in sorted name order, equal names (two
     * emulated nodes of host a) in leader order. */
    const char *v[] = {"b", "a", "c", "a"};
    char names[8 * W];
    set_names(names, v, 4);
    int id[4], sorted[4];
    CHECK(node_ids_by_name(names, W, 4, id, sorted) == 3);
    CHECK(id[0] == 2 && id[1] == 0 && id[2] == 3 && id[3] == 1);
    CHECK(sorted[0] == 1 && sorted[1] == 3 && sorted[2] == 0 && sorted[3] == 2);
    /* Prefixes stay apart: node-1 < node-10 < node-2. */
    const char *p[] = {"node-10", "node-2", "node-1"};
    set_names(names, p, 3);
    CHECK(node_ids_by_name(names, W, 3, id, NULL) == 3);
    CHECK(id[0] == 1 && id[1] == 2 && id[2] == 0);
    CHECK(node_ids_by_name(names, W, 0, id, NULL) == -1);

    /* Ranks 0..6 on nodes led by 0, 1 and 3 (ids 2, 0, 1): locals in rank order. */
    int pairs[] = {0, 2, 1, 0, 0, -1, 3, 1, 1, -1, 3, -1, 0, -1};
    int node[7], local[7], *ppn = NULL;
    CHECK(node_map_ranks(pairs, 7, node, local, &ppn) == 3);
    int want_node[] = {2, 0, 2, 1, 0, 1, 2}, want_local[] = {0, 0, 1, 0, 1, 1, 2};
    for (int r = 0; r < 7; r++)
        CHECK(node[r] == want_node[r] && local[r] == want_local[r]);
    CHECK(ppn && ppn[0] == 2 && ppn[1] == 2 && ppn[2] == 3);
    free(ppn);
    /* A leader that is not its own leader is refused, not followed. */
    int bad[] = {1, 0, 0, -1};
    CHECK(node_map_ranks(bad, 2, node, local, &ppn) == -1);

    /* 100000 leaders with shuffled names: ids are a permutation in name order. */
    int big = 100000;
    char *bn = malloc((size_t)big * W);
    int *bid = malloc(sizeof(int) * (size_t)big);
    for (int i = 0; i < big; i++)
        snprintf(bn + (size_t)i * W, W, "h%06d", (int)(((long)i * 7919) % big));
    CHECK(node_ids_by_name(bn, W, big, bid, NULL) == big);
    int ok = 1;
    for (int i = 0; i < big; i++)
        ok &= bid[i] == (int)(((long)i * 7919) % big);
    CHECK(ok);
    free(bn);
    free(bid);
    return check_report("test_node_groups");
}
