#include "infra/node_groups.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *name;
    int rank;
} named_rank_t;

static int by_name_then_rank(const void *a, const void *b)
{
    const named_rank_t *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    if (c)
        return c;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

int node_groups_by_name(const char *names, size_t stride, int n, int *node_of_rank,
                        int *local_of_rank, int **ppn)
{
    if (n < 1)
        return -1;
    named_rank_t *v = malloc(sizeof(*v) * (size_t)n);
    if (!v)
        return -1;
    for (int r = 0; r < n; r++) {
        v[r].name = names + (size_t)r * stride;
        v[r].rank = r;
    }
    qsort(v, (size_t)n, sizeof(*v), by_name_then_rank);
    int nodes = 0, local = 0;
    for (int i = 0; i < n; i++) {
        if (i == 0 || strcmp(v[i].name, v[i - 1].name) != 0) {
            nodes++;
            local = 0;
        }
        node_of_rank[v[i].rank] = nodes - 1;
        local_of_rank[v[i].rank] = local++;
    }
    int *count = calloc((size_t)nodes, sizeof(int));
    if (!count) {
        free(v);
        return -1;
    }
    for (int r = 0; r < n; r++)
        count[node_of_rank[r]]++;
    free(v);
    *ppn = count;
    return nodes;
}
