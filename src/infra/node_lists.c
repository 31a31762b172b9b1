#include "infra/node_lists.h"

#include <stdio.h>

int node_list_write(const char *dir, const char *file, const char *names, size_t name_len,
                    const int *ids, int n)
{
    char path[8192];
    snprintf(path, sizeof(path), "%s/%s", dir, file);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    for (int i = 0; i < n; i++)
        fprintf(f, "%-32s\n", names + (size_t)ids[i] * name_len);
    return fclose(f) == 0 ? 0 : -1;
}
