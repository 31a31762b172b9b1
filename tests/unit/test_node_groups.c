/* Node grouping by host name (infra/node_groups.h). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "infra/node_groups.h"

#define W 16

int main(void)
{
    /* Ranks laid out round-robin over hosts b, a, c: nodes follow the sorted
     * names (a=0, b=1, c=2), locals follow rank order within a host. */
    const char *host[] = {"b", "a", "c", "b", "a", "c", "b"};
    int n = 7;
    char names[7 * W];
    memset(names, 0, sizeof(names));
    for (int r = 0; r < n; r++)
        strcpy(names + r * W, host[r]);
    int node[7], local[7], *ppn = NULL;
    int nodes = node_groups_by_name(names, W, n, node, local, &ppn);
    CHECK(nodes == 3);
    int want_node[] = {1, 0, 2, 1, 0, 2, 1};
    int want_local[] = {0, 0, 0, 1, 1, 1, 2};
    for (int r = 0; r < n; r++) {
        CHECK(node[r] == want_node[r]);
        CHECK(local[r] == want_local[r]);
    }
    CHECK(ppn && ppn[0] == 2 && ppn[1] == 3 && ppn[2] == 2);
    free(ppn);

    /* One host: one node, locals 0..n-1. */
    for (int r = 0; r < n; r++)
        strcpy(names + r * W, "solo");
    nodes = node_groups_by_name(names, W, n, node, local, &ppn);
    CHECK(nodes == 1 && ppn[0] == n);
    for (int r = 0; r < n; r++)
        CHECK(node[r] == 0 && local[r] == r);
    free(ppn);

    /* Names that share a prefix stay apart ("node-1" vs "node-10"). */
    const char *pre[] = {"node-10", "node-1", "node-10", "node-2"};
    for (int r = 0; r < 4; r++)
        strcpy(names + r * W, pre[r]);
    nodes = node_groups_by_name(names, W, 4, node, local, &ppn);
    CHECK(nodes == 3 && node[1] == 0 && node[0] == 1 && node[2] == 1 && node[3] == 2);
    free(ppn);

    CHECK(node_groups_by_name(names, W, 0, node, local, &ppn) == -1);

    /* Large: 100000 ranks on 25000 hosts, 4 each, hosts interleaved. */
    int big = 100000, hosts = 25000;
    char *bn = malloc((size_t)big * W);
    int *bnode = malloc(sizeof(int) * (size_t)big), *blocal = malloc(sizeof(int) * (size_t)big);
    for (int r = 0; r < big; r++)
        snprintf(bn + (size_t)r * W, W, "h%05d", (r * 7919) % hosts);
    nodes = node_groups_by_name(bn, W, big, bnode, blocal, &ppn);
    CHECK(nodes == hosts);
    int ok = 1;
    for (int i = 0; i < hosts; i++)
        ok &= ppn[i] == 4;
    for (int r = 0; r < big; r++)
        ok &= bnode[r] == (r * 7919) % hosts && blocal[r] == r / hosts;
    CHECK(ok);
    free(ppn);
    free(bn);
    free(bnode);
    free(blocal);
    return check_report("test_node_groups");
}
