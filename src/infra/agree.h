/* A small reduction posted now and completed later: the congestors'
 * agreements (time limit, canaries done, stop) overlap the next round of
 * traffic instead of stalling it.
 *
 * Real MPI: MPI_Iallreduce. SimGrid's SMPI implements MPI_Iallreduce as
 * every rank sending to every other (G^2 messages per call on G ranks; at
 * 410 congestor ranks one call is 168k simulated messages, most of a
 * 2048-rank simulated load test). Under SMPI the reduction is a blocking
 * MPI_Allreduce (log G rounds) when it is waited for. The caller does not
 * touch the input between post and wait, so the result is the same; only
 * the overlap is lost, in the simulation alone. docs/scale.md. */
#ifndef GPCNET_AGREE_H
#define GPCNET_AGREE_H

#include <mpi.h>

typedef struct {
    const void *in;
    void *out;
    int count;
    MPI_Datatype type;
    MPI_Op op;
    MPI_Comm comm;
    MPI_Request req;
    int pending;
} agree_t;

#define AGREE_NONE {NULL, NULL, 0, MPI_DATATYPE_NULL, MPI_OP_NULL, MPI_COMM_NULL, MPI_REQUEST_NULL, 0}

/* Starts reducing count values of in into out on every rank of comm. in
 * must stay unchanged until agree_wait returns. */
void agree_post(agree_t *a, const void *in, void *out, int count, MPI_Datatype type, MPI_Op op,
                MPI_Comm comm);
/* Completes the pending reduction, if any (else returns at once, out
 * untouched); out then holds the result. */
void agree_wait(agree_t *a);

#endif
