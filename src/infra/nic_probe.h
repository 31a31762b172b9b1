/* One rail of the per-NIC probe (docs/method.md#multi-nic-nodes): the
 * node probe's exchanges (suite/node_probe.h), run between the ranks that
 * stand for one NIC index of every node, so a NIC's time depends on its
 * own link and its partner's only. */
#ifndef GPCNET_NIC_PROBE_H
#define GPCNET_NIC_PROBE_H

#include <mpi.h>

#define NIC_PROBE_BYTES 131072 /* each way, per exchange */
#define NIC_PROBE_EXCHANGES 5  /* timed, after one untimed; a round keeps their median */

/* Collective over leaders (one rank per node, ordered by node): rounds of
 * disjoint pairs (infra/pair_rounds.h). Returns this rank's median over
 * its rounds of the round's median exchange time, in usec (NaN: it sat
 * every round out). */
double nic_probe_rail(MPI_Comm leaders, int rounds);

#endif
