/* Checks the order the load test's synchronisations promise
 * (src/suite/load_test/load_sync.h), on any MPI and under SimGrid:
 *   - no canary starts before every congestor has run its warm-up;
 *   - no congestor stops before every canary has finished.
 * Congestors warm up and canaries "measure" for different times (sleeps,
 * simulated time under SMPI). Rank 0 is a canary, or with the
 * argument "congestor-root" a congestor: SimGrid's linear MPI_Ibarrier let
 * every rank through once rank 0 had entered it.
 * Prints one line and exits 0 when both hold, 1 otherwise.
 *
 *   mpicc -Isrc tests/mpi/load_sync_check.c BUILD/libgpcnet_core.a ... */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "suite/load_test/load_sync.h"

/* One clock for all ranks of one host: MPI_Wtime need not be comparable
 * across processes. SMPI's headers turn clock_gettime and nanosleep into
 * simulated time. */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void nap_ms(double ms)
{
    struct timespec ts = {(time_t)(ms / 1000), (long)((ms - 1000 * (time_t)(ms / 1000)) * 1e6)};
    nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int congestor_root = argc > 1 && strcmp(argv[1], "congestor-root") == 0;
    /* Every third rank a canary, starting at rank 0 or rank 1. */
    int is_congestor = (rank + (congestor_root ? 2 : 0)) % 3 != 0;
    load_sync_t s;
    load_sync_init(&s, MPI_COMM_WORLD, is_congestor);

    /* [0] latest congestor warm-up end, [1] latest canary end;
     * [2] -(earliest canary start), [3] -(earliest congestor stop). */
    double t[4] = {-1e30, -1e30, -1e30, -1e30};
    if (is_congestor) {
        nap_ms(2.0 * (1 + rank % 4));
        t[0] = now();
        load_watch_t w;
        load_sync_release(&s, &w);
        do {
            nap_ms(0.5); /* a pass */
            load_sync_watch_post(&s, &w);
        } while (!load_sync_watch_test(&w));
        t[3] = -now();
    } else {
        load_sync_release(&s, NULL);
        t[2] = -now();
        nap_ms(3.0 * (1 + rank % 5));
        t[1] = now();
        load_sync_canaries_done(&s);
    }
    double all[4];
    MPI_Allreduce(t, all, 4, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    int ok = all[0] <= -all[2] && all[1] <= -all[3];
    if (rank == 0)
        printf("load_sync_check %s: first canary start - last warm-up end %.3f ms, "
               "first congestor stop - last canary end %.3f ms\n",
               ok ? "ok" : "FAILED", 1e3 * (-all[2] - all[0]), 1e3 * (-all[3] - all[1]));
    load_sync_free(&s);
    MPI_Finalize();
    return ok ? 0 : 1;
}
