#include "infra/nic_probe.h"

#include <math.h>
#include <stdlib.h>

#include "infra/fatal.h"
#include "infra/pair_rounds.h"

#define TAG_NIC_PROBE 4402

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int k)
{
    qsort(v, (size_t)k, sizeof(double), by_value);
    return k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
}

/* Both directions at once: either NIC's slow link slows the pair. */
static void exchange(char *out, char *in, int partner, MPI_Comm leaders)
{
    MPI_Request req[2];
    MPI_Irecv(in, NIC_PROBE_BYTES, MPI_BYTE, partner, TAG_NIC_PROBE, leaders, &req[0]);
    MPI_Isend(out, NIC_PROBE_BYTES, MPI_BYTE, partner, TAG_NIC_PROBE, leaders, &req[1]);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
}

double nic_probe_rail(MPI_Comm leaders, int rounds)
{
    int n, me;
    MPI_Comm_size(leaders, &n);
    MPI_Comm_rank(leaders, &me);
    char *out = xcalloc(NIC_PROBE_BYTES, 1), *in = xmalloc(NIC_PROBE_BYTES);
    double *of_round = xmalloc(sizeof(double) * (size_t)(rounds > 0 ? rounds : 1));
    double each[NIC_PROBE_EXCHANGES];
    int taken = 0;
    for (int r = 0; r < rounds; r++) {
        MPI_Barrier(leaders); /* one round's pairs at a time */
        int partner = pair_rounds_partner(n, r, me);
        if (partner < 0)
            continue;
        exchange(out, in, partner, leaders); /* untimed: connection set-up */
        for (int i = 0; i < NIC_PROBE_EXCHANGES; i++) {
            double start = MPI_Wtime();
            exchange(out, in, partner, leaders);
            each[i] = (MPI_Wtime() - start) * 1e6;
        }
        of_round[taken++] = median(each, NIC_PROBE_EXCHANGES);
    }
    double usec = taken ? median(of_round, taken) : NAN;
    free(of_round);
    free(out);
    free(in);
    return usec;
}
