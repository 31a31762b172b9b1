/* When network_congestor starts and stops (docs/experiments.md): the start
 * file, SIGINT/SIGTERM, --duration and the stop file. Rank 0 decides the
 * stop and says so with an MPI_Ibcast that every other rank posted at the
 * start; the ranks look at it after every round and, in a paced round, in
 * its pauses (burst_run_t.stop_asked). */
#ifndef GPCNET_CONGESTOR_STOP_H
#define GPCNET_CONGESTOR_STOP_H

#include <mpi.h>

#include "suite/network_congestor/congestor_report.h"
#include "suite/run_context.h"

typedef struct {
    const run_t *run;
    congestor_report_t *cr; /* rank 0 records the reason in it */
    MPI_Comm comm;          /* the stop broadcast's own */
    int stop;               /* its buffer: rank 0's word */
    MPI_Request req;
    int seen;               /* the stop is decided (rank 0) or heard (others) */
    double file_looked;     /* MPI_Wtime of this rank's last look in a pause */
} congestor_stop_state_t;

/* SIGINT and SIGTERM stop the run cleanly from here on. */
void congestor_stop_on_signals(void);
/* A start or stop file must be able to appear: exit 2 on every rank when
 * the directory of `path` (given to `option`) is missing. Collective. */
void congestor_stop_check_dir(run_t *run, const char *option, const char *path);
/* Rank 0 waits for --start-file (or a stop) and tells everyone: 1 to go,
 * 0 when stopped first. Collective. */
int congestor_stop_wait_for_start(run_t *run, congestor_report_t *cr);

/* Collective over world: the stop broadcast's communicator and, on the
 * other ranks, their posted receive. */
void congestor_stop_begin(congestor_stop_state_t *st, const run_t *run, congestor_report_t *cr);
/* Rank 0: a signal, --duration (`now` seconds into the congestion; < 0:
 * not looked at) or the stop file decides the stop, said to every rank at
 * once. Elsewhere: has rank 0 said so? Returns seen. */
int congestor_stop_look(congestor_stop_state_t *st, double now);
/* burst_run_t.stop_asked (ctx: the congestor_stop_state_t). */
int congestor_stop_in_pause(void *ctx, double paused_s);
/* Waits for the broadcast and frees its communicator. */
void congestor_stop_end(congestor_stop_state_t *st);

#endif
