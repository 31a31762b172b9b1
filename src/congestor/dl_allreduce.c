/* DL Allreduce (not in the default mix): MPI_Allreduce of 819,200 doubles
 * (6.25 MiB), modelled on deep-learning gradient exchange. */
#include <math.h>

#include "congestor/congestor.h"
#include "congestor/congestor_state.h"

#define DL_DOUBLES 819200

static void *setup(MPI_Comm comm) { return congestor_state_new(comm, DL_DOUBLES, DL_DOUBLES); }

static void iterate(void *state)
{
    congestor_state_t *s = state;
    MPI_Allreduce(s->send, s->recv, DL_DOUBLES, MPI_DOUBLE, MPI_SUM, s->comm);
}

static double bytes(void *state) { return (double)DL_DOUBLES * sizeof(double); }

/* 512 / (1 + ln(n / 32)) above 32 ranks: fewer, heavier iterations. */
static int iterations_for(int base, int n)
{
    if (n <= 32)
        return base;
    int it = (int)((double)base / (1.0 + log((double)n / 32.0)));
    return it < 1 ? 1 : it;
}

const congestor_kernel_t dl_allreduce = {
    .id = "dl_allreduce",
    .name = "DL Allreduce (6553600 B)",
    .iterations_for = iterations_for,
    .setup = setup,
    .teardown = congestor_state_free,
    .iterate = iterate,
    .bytes_per_iteration = bytes,
};
