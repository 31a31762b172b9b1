/* One congestor pass (SPEC A.4). */
#include "congestor/congestor.h"

#include <stdlib.h>

#include "infra/fatal.h"

#define MIB (1024.0 * 1024.0)

void congestor_pass(const congestor_kernel_t *k, void *state, MPI_Comm comm, int measurements,
                    int iterations, double time_limit, stats_acc_t *acc)
{
    if (k->pass_begin)
        k->pass_begin(state);
    double bytes = k->bytes_per_iteration(state);
    /* Samples only where measured and this rank reports a bandwidth. */
    double *durations = acc && bytes > 0.0 ? xmalloc(sizeof(double) * (size_t)iterations) : NULL;
    double t0 = MPI_Wtime();
    double mine = 0.0, agreed = 0.0, bulk_time = 0.0;
    MPI_Request req;
    /* The timeout of measurement m is agreed while measurement m-1 runs. */
    MPI_Iallreduce(&mine, &agreed, 1, MPI_DOUBLE, MPI_MAX, comm, &req);
    long done = 0;
    for (int m = 0; m < measurements; m++) {
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        if (agreed >= time_limit)
            break;
        mine = MPI_Wtime() - t0;
        MPI_Iallreduce(&mine, &agreed, 1, MPI_DOUBLE, MPI_MAX, comm, &req);
        if (acc)
            MPI_Barrier(comm);
        k->iterate(state); /* warm-up */
        double bt1 = MPI_Wtime();
        if (durations) {
            /* Measured: only the kernel and its timer reads in the loop;
             * samples are made after it. */
            for (int i = 0; i < iterations; i++) {
                double t1 = MPI_Wtime();
                k->iterate(state);
                durations[i] = MPI_Wtime() - t1;
            }
            bulk_time += MPI_Wtime() - bt1;
            for (int i = 0; i < iterations; i++)
                stats_add_sample(acc, bytes / (durations[i] * MIB));
        } else {
            for (int i = 0; i < iterations; i++)
                k->iterate(state);
        }
        done++;
    }
    if (req != MPI_REQUEST_NULL)
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    free(durations);
    if (k->pass_end)
        k->pass_end(state);
    if (acc) {
        acc->measurements = (double)done;
        acc->timed_out = done < measurements ? 1.0 : 0.0;
        if (bytes > 0.0 && done > 0)
            stats_add_bulk(acc, bytes * (double)(done * iterations) / (bulk_time * MIB));
    }
}
