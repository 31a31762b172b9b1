#define _POSIX_C_SOURCE 200809L /* mkdtemp */
/* Network counters: a fake /sys (absent files, garbage, loopback, IB
 * ports), deltas with 32- and 64-bit wraps, ports that disappear. */
#include "check.h"
#include "infra/net_counters.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char root[] = "/tmp/gpcnet-netctr-XXXXXX";

static void put(const char *rel, const char *text)
{
    char path[512], cmd[600];
    snprintf(path, sizeof(path), "%s/%s", root, rel);
    snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
    if (system(cmd) != 0)
        return;
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static const netctr_port_t *find(const netctr_sample_t *s, const char *name)
{
    for (int i = 0; i < s->n; i++)
        if (strcmp(s->port[i].name, name) == 0)
            return &s->port[i];
    return NULL;
}

int main(void)
{
    CHECK(mkdtemp(root) != NULL);
    put("class/net/eth0/statistics/tx_bytes", "4294967290\n");
    put("class/net/eth0/statistics/rx_bytes", "100\n");
    put("class/net/eth0/statistics/tx_dropped", "garbage\n");
    put("class/net/lo/statistics/tx_bytes", "7\n");
    put("class/net/bond0/statistics/.keep", "");          /* no counters: not a port */
    put("class/infiniband/mlx5_0/ports/1/counters/port_xmit_data", "18446744073709551000\n");
    put("class/infiniband/mlx5_0/ports/1/counters/port_xmit_wait", "10\n");

    netctr_sample_t b, a, d;
    netctr_sample(&b, root);
    CHECK(b.n == 2 && !b.truncated);
    const netctr_port_t *eth = find(&b, "eth0"), *ib = find(&b, "mlx5_0/1");
    CHECK(eth && eth->kind == NETCTR_NET && eth->present == 0x3u);   /* tx_dropped unreadable: absent */
    CHECK(ib && ib->kind == NETCTR_IB && ib->present == 0x5u);       /* xmit_data, xmit_wait */
    CHECK(find(&b, "lo") == NULL && find(&b, "bond0") == NULL);
    CHECK(strcmp(netctr_field_name(NETCTR_IB, 2), "port_xmit_wait") == 0);

    put("class/net/eth0/statistics/tx_bytes", "10\n");              /* 32-bit wrap */
    put("class/net/eth0/statistics/rx_bytes", "150\n");
    put("class/net/eth0/statistics/tx_dropped", "3\n");             /* appears: still absent in the delta */
    put("class/infiniband/mlx5_0/ports/1/counters/port_xmit_data", "100\n");   /* 64-bit wrap */
    put("class/infiniband/mlx5_0/ports/1/counters/port_xmit_wait", "25\n");
    put("class/net/eth1/statistics/tx_bytes", "5\n");               /* new port: no delta */
    netctr_sample(&a, root);
    netctr_delta(&b, &a, &d);
    CHECK(d.n == 2);
    eth = find(&d, "eth0");
    ib = find(&d, "mlx5_0/1");
    CHECK(eth && eth->v[0] == 16 && (eth->wrapped & 1u));
    CHECK(eth->v[1] == 50 && !(eth->wrapped & 2u));
    CHECK(!(eth->present & 4u));
    CHECK(ib && ib->v[0] == 100 + (UINT64_MAX - UINT64_C(18446744073709551000)) + 1);
    CHECK(ib->v[2] == 15 && (ib->present & 4u) && !(ib->present & 2u));
    CHECK(find(&d, "eth1") == NULL);

    netctr_sample_t none;
    netctr_sample(&none, "/nonexistent/sys");
    CHECK(none.n == 0);

    char cmd[600];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
    CHECK(system(cmd) == 0);
    return check_report("test_net_counters");
}
