/* The two synchronisations around each loaded test (docs/method.md#load-sequence).
 * Release: the canaries start once every congestor has run its warm-up
 * pass. Done: the congestors learn, between passes, that every canary has
 * finished.
 *
 * Real MPI: the reference's calls. The release is an MPI_Ibarrier waited
 * for at once; a congestor posts the done MPI_Ibarrier after its first full
 * pass and tests it between passes; the canaries post it and wait.
 *
 * SimGrid's SMPI (3.32) runs MPI_Ibarrier linearly through rank 0 with all
 * of its messages posted at once, so a rank's barrier completes as soon as
 * rank 0 has entered it, not when every rank has: the canaries would start
 * before the congestors load the network, and the congestors would stop
 * when rank 0 finished, whichever role it has. Under SMPI the release is a
 * blocking MPI_Barrier, and done is an MPI_Barrier of the canaries followed
 * by an MPI_Ibcast from the first canary, whose receive every congestor
 * posts at the release. That also leaves no congestor's message waiting on
 * a busy rank 0 for a whole test: SMPI keeps every such small message in
 * one list that it searches at every message end (docs/scale.md). */
#ifndef GPCNET_LOAD_SYNC_H
#define GPCNET_LOAD_SYNC_H

#include <mpi.h>

/* The communicators, each a copy of world of its own so that no
 * implementation can match one synchronisation's messages with another's:
 * SimGrid 3.32's MPI_Ibarrier receives with MPI_ANY_SOURCE, so on one
 * communicator a fast rank's next release could complete the done barrier
 * in place of a slow rank's (docs/reliability.md H9d). done numbers the
 * canaries first, so its rank 0 is a canary whenever there is one. */
typedef struct {
    MPI_Comm release, done;
    MPI_Comm canaries; /* all canary ranks; MPI_COMM_NULL on congestors */
} load_sync_t;

/* A congestor's view of the canaries' end. */
typedef struct {
    MPI_Request req; /* MPI_REQUEST_NULL once completed */
    int posted;
    int value; /* the broadcast's buffer under SMPI */
} load_watch_t;

/* Collective over world, which holds canary ranks (the load test checks
 * its node count before it places them). */
void load_sync_init(load_sync_t *s, MPI_Comm world, int is_congestor);
void load_sync_free(load_sync_t *s);

/* Canaries and congestors alike; w is NULL on canaries. */
void load_sync_release(const load_sync_t *s, load_watch_t *w);
/* Congestors: starts watching, once (the reference: after the first pass). */
void load_sync_watch_post(const load_sync_t *s, load_watch_t *w);
/* Congestors: whether the canaries are done, without waiting. */
int load_sync_watch_test(load_watch_t *w);
/* Congestors: waits for the canaries' end (posted before). */
void load_sync_watch_wait(load_watch_t *w);
/* Canaries, after their test. */
void load_sync_canaries_done(const load_sync_t *s);

#endif
