#define _POSIX_C_SOURCE 200809L /* strdup, opendir */
#include "infra/net_counters.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *net_fields[NETCTR_FIELDS] = {"tx_bytes", "rx_bytes", "tx_dropped", "rx_dropped"};
static const char *ib_fields[NETCTR_FIELDS] = {"port_xmit_data", "port_rcv_data", "port_xmit_wait",
                                               "port_xmit_discards"};

const char *netctr_field_name(int kind, int field)
{
    if (field < 0 || field >= NETCTR_FIELDS)
        return NULL;
    return kind == NETCTR_IB ? ib_fields[field] : net_fields[field];
}

static int read_u64(const char *path, uint64_t *out)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    unsigned long long v;
    int ok = fscanf(f, "%llu", &v) == 1;
    fclose(f);
    if (ok)
        *out = (uint64_t)v;
    return ok;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted entry names of a directory (without . and ..); caller frees. */
static int list_dir(const char *path, char ***names)
{
    DIR *d = opendir(path);
    *names = NULL;
    if (!d)
        return 0;
    int n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            char **grown = realloc(*names, sizeof(char *) * (size_t)cap);
            if (!grown)
                break;
            *names = grown;
        }
        (*names)[n++] = strdup(e->d_name);
    }
    closedir(d);
    if (n)
        qsort(*names, (size_t)n, sizeof(char *), by_name);
    return n;
}

static void free_list(char **names, int n)
{
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

static void add_port(netctr_sample_t *s, int kind, const char *name, const char *dir)
{
    netctr_port_t p;
    memset(&p, 0, sizeof(p));
    p.kind = kind;
    snprintf(p.name, sizeof(p.name), "%s", name);
    for (int f = 0; f < NETCTR_FIELDS; f++) {
        char path[1200];
        snprintf(path, sizeof(path), "%.1100s/%s", dir, netctr_field_name(kind, f));
        if (read_u64(path, &p.v[f]))
            p.present |= 1u << f;
    }
    if (!p.present)
        return;
    if (s->n == NETCTR_MAX_PORTS) {
        s->truncated = 1;
        return;
    }
    s->port[s->n++] = p;
}

void netctr_sample(netctr_sample_t *s, const char *sys_root)
{
    memset(s, 0, sizeof(*s));
    if (!sys_root)
        sys_root = getenv("GPCNET_SYS_ROOT");
    if (!sys_root || !*sys_root)
        sys_root = "/sys";
    char path[1024], **names;
    snprintf(path, sizeof(path), "%s/class/net", sys_root);
    int n = list_dir(path, &names);
    for (int i = 0; i < n; i++) {
        if (strcmp(names[i], "lo") == 0)
            continue;
        snprintf(path, sizeof(path), "%s/class/net/%s/statistics", sys_root, names[i]);
        add_port(s, NETCTR_NET, names[i], path);
    }
    free_list(names, n);
    snprintf(path, sizeof(path), "%s/class/infiniband", sys_root);
    n = list_dir(path, &names);
    for (int i = 0; i < n; i++) {
        char **ports;
        snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports", sys_root, names[i]);
        int np = list_dir(path, &ports);
        for (int j = 0; j < np; j++) {
            char name[NETCTR_NAME_LEN];
            snprintf(name, sizeof(name), "%.30s/%.15s", names[i], ports[j]);
            snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports/%s/counters", sys_root, names[i],
                     ports[j]);
            add_port(s, NETCTR_IB, name, path);
        }
        free_list(ports, np);
    }
    free_list(names, n);
}

void netctr_delta(const netctr_sample_t *before, const netctr_sample_t *after, netctr_sample_t *d)
{
    memset(d, 0, sizeof(*d));
    d->truncated = before->truncated || after->truncated;
    for (int i = 0; i < after->n; i++) {
        const netctr_port_t *a = &after->port[i], *b = NULL;
        for (int j = 0; j < before->n && !b; j++)
            if (before->port[j].kind == a->kind && strcmp(before->port[j].name, a->name) == 0)
                b = &before->port[j];
        if (!b)
            continue;
        netctr_port_t *p = &d->port[d->n++];
        memcpy(p->name, a->name, sizeof(p->name));
        p->kind = a->kind;
        p->present = a->present & b->present;
        for (int f = 0; f < NETCTR_FIELDS; f++) {
            if (!(p->present & (1u << f)))
                continue;
            if (a->v[f] >= b->v[f]) {
                p->v[f] = a->v[f] - b->v[f];
            } else {
                /* One wrap: unsigned arithmetic gives the 64-bit answer. */
                p->v[f] = b->v[f] <= UINT32_MAX ? a->v[f] + (UINT64_C(1) << 32) - b->v[f] : a->v[f] - b->v[f];
                p->wrapped |= 1u << f;
            }
        }
    }
}
