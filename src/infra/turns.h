/* Taking turns: run a step group by group instead of all groups at once.
 *
 * Window creation needs it. Open MPI 4.1's osc/rdma names the shared-memory
 * file of a new window after host, job and communicator id; disjoint
 * communicators (our slices) share ids, so when several on one host create
 * windows at the same moment the files collide and ranks die of a bus
 * error. That happens with emulated nodes, and on real nodes too when
 * several slices' ranks share a host. One group at a time avoids it and
 * costs one barrier per group at set-up, outside any timed region. */
#ifndef GPCNET_TURNS_H
#define GPCNET_TURNS_H

#include <mpi.h>

typedef void (*turn_fn)(void *arg);

/* Collective over all: each rank calls fn(arg) in turn my_turn (0-based;
 * -1 for never); turns are separated by barriers on all. */
void take_turns(MPI_Comm all, int my_turn, turn_fn fn, void *arg);

#endif
