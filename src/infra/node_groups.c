#include "infra/node_groups.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *name;
    int index;
} named_t;

static int by_name_then_index(const void *a, const void *b)
{
    const named_t *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c != 0 ? c : (x->index > y->index) - (x->index < y->index);
}

int node_ids_by_name(const char *names, size_t stride, int n, int *id_of, int *sorted)
{
    if (n < 1)
        return -1;
    named_t *v = malloc(sizeof(*v) * (size_t)n);
    if (!v)
        return -1;
    for (int i = 0; i < n; i++) {
        v[i].name = names + (size_t)i * stride;
        v[i].index = i;
    }
    qsort(v, (size_t)n, sizeof(*v), by_name_then_index);
    int hosts = 0;
    for (int j = 0; j < n; j++) {
        id_of[v[j].index] = j;
        if (sorted)
            sorted[j] = v[j].index;
        if (j == 0 || strcmp(v[j].name, v[j - 1].name) != 0)
            hosts++;
    }
    free(v);
    return hosts;
}

int node_map_ranks(const int *pairs, int size, int *node_of_rank, int *local_of_rank, int **ppn)
{
    int n = 0;
    for (int r = 0; r < size; r++) {
        int leader = pairs[2 * r];
        if (leader < 0 || leader >= size || pairs[2 * leader] != leader)
            return -1;
        n += leader == r;
    }
    if (n < 1)
        return -1;
    int *count = calloc((size_t)n, sizeof(int));
    if (!count)
        return -1;
    for (int r = 0; r < size; r++) {
        int node = pairs[2 * pairs[2 * r] + 1];
        if (node < 0 || node >= n) {
            free(count);
            return -1;
        }
        node_of_rank[r] = node;
        local_of_rank[r] = count[node]++;
    }
    *ppn = count;
    return n;
}
