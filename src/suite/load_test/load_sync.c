#include "suite/load_test/load_sync.h"

#include <stddef.h>

void load_sync_init(load_sync_t *s, MPI_Comm world, int is_congestor)
{
    int rank, size;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_size(world, &size);
    MPI_Comm_dup(world, &s->release);
    MPI_Comm_split(world, 0, is_congestor ? size + rank : rank, &s->done);
    MPI_Comm_split(world, is_congestor ? MPI_UNDEFINED : 0, rank, &s->canaries);
}

void load_sync_free(load_sync_t *s)
{
    MPI_Comm *comms[] = {&s->release, &s->done, &s->canaries};
    for (size_t i = 0; i < sizeof(comms) / sizeof(comms[0]); i++)
        if (*comms[i] != MPI_COMM_NULL)
            MPI_Comm_free(comms[i]);
}

static void watch_start(const load_sync_t *s, load_watch_t *w)
{
    w->posted = 1;
#ifdef SMPI_H
    MPI_Ibcast(&w->value, 1, MPI_INT, 0, s->done, &w->req);
#else
    MPI_Ibarrier(s->done, &w->req);
#endif
}

void load_sync_release(const load_sync_t *s, load_watch_t *w)
{
    if (w)
        *w = (load_watch_t){MPI_REQUEST_NULL, 0, 0};
#ifdef SMPI_H
    MPI_Barrier(s->release);
    if (w)
        watch_start(s, w); /* before any canary can finish */
#else
    MPI_Request release;
    MPI_Ibarrier(s->release, &release);
    MPI_Wait(&release, MPI_STATUS_IGNORE);
#endif
}

void load_sync_watch_post(const load_sync_t *s, load_watch_t *w)
{
    if (!w->posted)
        watch_start(s, w);
}

/* A completed request is MPI_REQUEST_NULL. */
int load_sync_watch_test(load_watch_t *w)
{
    if (w->posted && w->req != MPI_REQUEST_NULL) {
        int flag;
        MPI_Test(&w->req, &flag, MPI_STATUS_IGNORE);
    }
    return w->posted && w->req == MPI_REQUEST_NULL;
}

void load_sync_watch_wait(load_watch_t *w)
{
    MPI_Wait(&w->req, MPI_STATUS_IGNORE);
}

void load_sync_canaries_done(const load_sync_t *s)
{
#ifdef SMPI_H
    MPI_Barrier(s->canaries);
    int done = 1;
    MPI_Request req;
    MPI_Ibcast(&done, 1, MPI_INT, 0, s->done, &req);
#else
    MPI_Request req;
    MPI_Ibarrier(s->done, &req);
#endif
    MPI_Wait(&req, MPI_STATUS_IGNORE);
}
