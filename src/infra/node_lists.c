#include "infra/node_lists.h"

#include <stdio.h>
#include <string.h>

#include "infra/safe_file.h"

int node_list_write(const char *dir, const char *file, const char *names, size_t name_len,
                    const int *ids, int n, int replace)
{
    char path[8192], tmp[8300];
    snprintf(path, sizeof(path), "%s/%s", dir, file);
    FILE *f = safe_tmp_open(path, tmp, sizeof(tmp));
    if (!f)
        return -1;
    for (int i = 0; i < n; i++)
        fprintf(f, "%-32s\n", names + (size_t)ids[i] * name_len);
    return safe_tmp_commit(f, tmp, path, replace);
}

int node_list_name(char *buf, size_t len, const char *file, int repetition)
{
    size_t stem = strlen(file) - 4; /* less ".dat" */
    if (repetition > 1)
        return snprintf(buf, len, "%.*s_r%d.dat", (int)stem, file, repetition);
    return snprintf(buf, len, "%s", file);
}

int node_lists_existing(const char *dir, int repetitions, char *found, size_t found_len)
{
    const char *files[] = {NODE_LIST_ALL, NODE_LIST_CONGESTORS, NODE_LIST_CANARIES};
    for (int r = 1; r <= repetitions; r++)
        for (int i = 0; i < 3; i++) {
            char file[128];
            node_list_name(file, sizeof(file), files[i], r);
            snprintf(found, found_len, "%s/%s", dir, file);
            if (safe_exists(found))
                return 1;
        }
    found[0] = '\0';
    return 0;
}
