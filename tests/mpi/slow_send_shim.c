/* A preload that makes one rank's sends slow, as a degraded link out of its
 * node would: the world rank in GPCNET_SLOW_RANK sleeps GPCNET_SLOW_USEC
 * microseconds (default 2000) before every MPI_Send and MPI_Isend, or, when
 * GPCNET_SLOW_TAGS lists tags (comma-separated), before those with one of
 * them only. Used by tests/integration/test_node_probe.py to check that the
 * per-node probe names that rank's node: with the probes' tags only, the
 * delay can stand far out of a loaded host's scheduling noise without
 * slowing the rest of the run. A sleep, not a busy wait: on a shared host a
 * busy wait would take a core from the other ranks and slow them too. Built
 * with mpicc -shared; calls the PMPI_ twins. */
#define _POSIX_C_SOURCE 199309L
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int slow = -1; /* 1: this rank is the slow one, 0: not, -1: not known yet */
static long delay_ns = 2000000;

static const char *tags; /* GPCNET_SLOW_TAGS, or NULL: every send */

static int tag_listed(int tag)
{
    const char *p = tags;
    while (p && *p) {
        char *end;
        long t = strtol(p, &end, 10);
        if (end != p && t == tag)
            return 1;
        p = strchr(end, ',');
        if (p)
            p++;
    }
    return 0;
}

static void delay(int tag)
{
    if (slow < 0) {
        const char *who = getenv("GPCNET_SLOW_RANK"), *usec = getenv("GPCNET_SLOW_USEC");
        int rank;
        PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
        slow = who && atoi(who) == rank;
        if (usec)
            delay_ns = atol(usec) * 1000L;
        tags = getenv("GPCNET_SLOW_TAGS");
        if (tags && !*tags)
            tags = NULL;
    }
    if (slow && (!tags || tag_listed(tag))) {
        struct timespec ts = {delay_ns / 1000000000L, delay_ns % 1000000000L};
        nanosleep(&ts, NULL);
    }
}

int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    delay(tag);
    return PMPI_Send(buf, count, type, dest, tag, comm);
}

int MPI_Isend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
              MPI_Request *req)
{
    delay(tag);
    return PMPI_Isend(buf, count, type, dest, tag, comm, req);
}
