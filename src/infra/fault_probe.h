/* Naming the host behind a stalled job (--fault-probe, docs/reliability.md#fault-probe).
 *
 * When a host dies or its link goes down, every other rank soon waits on
 * it inside some MPI call that never returns, and only --deadline ends the
 * job. From inside those calls no rank can ask who is missing, so a thread
 * of each rank does, a few seconds before the deadline: every rank sends
 * rank 0 one small message on a communicator of its own, and rank 0 names
 * the hosts whose ranks did not answer in time. The aborted JSON then
 * carries "failed_hosts" beside "aborted_in".
 *
 * The thread sleeps until then and makes no MPI call before; the price is
 * MPI_THREAD_MULTIPLE for the whole run (another thread may call MPI while
 * the main one is blocked), which is why the probe is asked for, never on
 * by default: the reference initialises MPI without threads. */
#ifndef GPCNET_FAULT_PROBE_H
#define GPCNET_FAULT_PROBE_H

#include <mpi.h>

#include "infra/nodes.h"

/* Whether the command line asks for the probe: read before MPI_Init, which
 * must then ask for MPI_THREAD_MULTIPLE. */
int fault_probe_wanted(int argc, char **argv);

/* Collective over world (duplicates it). The probe starts window_s seconds
 * before deadline_s, counted from now, and rank 0's collection ends a
 * quarter of the window before the deadline. nd is read now and kept
 * (rank 0 copies the node names it may report). */
void fault_probe_start(MPI_Comm world, const nodes_t *nd, double deadline_s, double window_s);

/* Collective over world: ends the thread (a probe under way finishes first,
 * within its window) and frees the communicator. Harmless when not started. */
void fault_probe_stop(void);

#endif
