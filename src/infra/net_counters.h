/* Network counters of this node, read from /sys around each load-test
 * phase (docs/studies.md): Linux interface statistics and InfiniBand port
 * counters. A counter that does not exist is marked absent, never 0. Pure
 * C (no MPI): the sampling and the deltas are unit-tested on a fake /sys. */
#ifndef GPCNET_NET_COUNTERS_H
#define GPCNET_NET_COUNTERS_H

#include <stdint.h>

#define NETCTR_MAX_PORTS 8 /* per node; more are counted as truncated (memory at rank 0: nodes x phases x ~800 B) */
#define NETCTR_FIELDS 4
#define NETCTR_NAME_LEN 48

enum { NETCTR_NET = 1, NETCTR_IB = 2 };

typedef struct {
    char name[NETCTR_NAME_LEN]; /* "eth0" or "mlx5_0/1" */
    int kind;                   /* NETCTR_NET or NETCTR_IB */
    uint32_t present;           /* bit f: field f exists */
    uint32_t wrapped;           /* delta: bit f: one wrap assumed */
    uint64_t v[NETCTR_FIELDS];
} netctr_port_t;

typedef struct {
    int n;
    int truncated; /* more ports than NETCTR_MAX_PORTS */
    netctr_port_t port[NETCTR_MAX_PORTS];
} netctr_sample_t;

/* Field names by kind: net tx_bytes rx_bytes tx_dropped rx_dropped; IB
 * port_xmit_data port_rcv_data port_xmit_wait port_xmit_discards. */
const char *netctr_field_name(int kind, int field);

/* Reads SYS_ROOT/class/net and SYS_ROOT/class/infiniband (sys_root NULL:
 * $GPCNET_SYS_ROOT or /sys). Loopback is skipped. */
void netctr_sample(netctr_sample_t *s, const char *sys_root);

/* d = after - before per port and field present in both; a decrease is
 * one wrap (at 32 bits when before fits, else 64) and sets the wrapped bit. */
void netctr_delta(const netctr_sample_t *before, const netctr_sample_t *after, netctr_sample_t *d);

#endif
