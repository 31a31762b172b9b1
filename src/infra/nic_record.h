/* Which NIC every rank used, and the canaries' results per NIC and per rail
 * (docs/method.md#multi-nic-nodes, docs/results-json.md#nics).
 *
 * The binding itself is done before the program starts, by gpcnet-bind
 * (python/gpcnet/bind_cli.py): it sets the MPI library's per-process
 * variables and records its choice in GPCNET_NIC (the name) and
 * GPCNET_NIC_INDEX (its place in the node's NIC list: the rail). This file
 * only reads them. Without GPCNET_NIC on any rank, one MPI_Allreduce of an
 * int at start-up agrees on that (a rank cannot know the others' variables
 * otherwise), and nothing else is communicated or written: the published
 * run's output is unchanged.
 *
 * Per-NIC results: after each canary test, before its published reduction,
 * every rank's own accumulator is also merged over the ranks of its rail
 * and over the ranks of its (node, NIC), with the same merge as the table
 * row (stats_reduce), outside any timed region. World rank 0 keeps the
 * Avg and 99% of each group: O(nodes x NICs) numbers per canary test. */
#ifndef GPCNET_NIC_RECORD_H
#define GPCNET_NIC_RECORD_H

#include <mpi.h>

#include "infra/json_writer.h"
#include "infra/nodes.h"
#include "infra/stats.h"

/* Collective over world, after nodes_discover. Reads GPCNET_NIC and
 * GPCNET_NIC_INDEX; a rank whose NIC is not on its host (no
 * /sys/class/net/NAME, or no /sys/class/infiniband/DEV/ports/PORT for
 * DEV:PORT) ends the job before anything is measured: the first such rank
 * says so in one line naming its host and the NIC, every rank exits 2.
 * program names the program in that line. */
void nic_record_init(MPI_Comm world, const nodes_t *nodes, const char *program);

/* Whether any rank was bound (the same on every rank). */
int nic_record_active(void);

/* Collective over world when active (a no-op otherwise): every rank, with
 * its own accumulator of the canary test just measured (member: whether it
 * took part; acc is not changed). Call before the table row's reduction. */
void nic_record_canary(const char *table_id, int repetition, const char *test_id,
                       const char *unit, int higher_is_better,
                       const stats_acc_t *acc, int member, MPI_Comm world);

/* Collective over world when active and rounds > 0 (a no-op otherwise):
 * after --node-probe's phase, the same exchanges between NICs, one rail
 * after the other: on every node the lowest rank bound to rail r stands
 * for that NIC (infra/nic_probe.h). Rank 0 keeps one value per NIC. */
void nic_record_probe(MPI_Comm world, int rounds);

/* The "nics" member of the results document (rank 0; nothing when no rank
 * was bound). The signature of a run_json_section_t: run and ctx unused. */
struct run;
void nic_record_json(json_writer_t *w, const struct run *run, const void *ctx);

void nic_record_free(void);

#endif
