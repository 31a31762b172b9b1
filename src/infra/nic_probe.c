#include "infra/nic_probe.h"

#include <math.h>
#include <stdlib.h>

#include "infra/fatal.h"
#include "infra/pair_exchange.h"
#include "infra/pair_rounds.h"

#define TAG_NIC_PROBE 4402

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
        /* untimed: connection set-up */
        pair_exchange(out, in, NIC_PROBE_BYTES, partner, TAG_NIC_PROBE, leaders);
        for (int i = 0; i < NIC_PROBE_EXCHANGES; i++) {
            double start = MPI_Wtime();
            pair_exchange(out, in, NIC_PROBE_BYTES, partner, TAG_NIC_PROBE, leaders);
            each[i] = (MPI_Wtime() - start) * 1e6;
        }
        of_round[taken++] = median_in_place(each, NIC_PROBE_EXCHANGES);
    }
    double usec = taken ? median_in_place(of_round, taken) : NAN;
    free(of_round);
    free(out);
    free(in);
    return usec;
}
