/* DL Allreduce (not in the default mix): MPI_Allreduce of 819,200 doubles
 * (6.25 MiB), modelled on deep-learning gradient exchange. Printed as the
 * reference prints it, "Allreduce (6553600 B)"; the id stays dl_allreduce. */
#include <math.h>

#include "congestor/congestor.h"
#include "congestor/congestor_state.h"

#define DL_DOUBLES 819200

/* Its own message size, whatever --congestor-bytes says. */
static void *setup(MPI_Comm comm, const congestor_params_t *p)
{
    return congestor_state_new(comm, p, DL_DOUBLES, DL_DOUBLES);
}

/* Printed size: its own message, not --congestor-bytes. */
static long message_bytes(const congestor_params_t *p) { return DL_DOUBLES * (long)sizeof(double); }

static void iterate(void *state)
{
    congestor_state_t *s = state;
    MPI_Allreduce(s->send, s->recv, DL_DOUBLES, MPI_DOUBLE, MPI_SUM, s->comm);
}

/* As the reference: an allreduce algorithm such as recursive halving /
 * doubling sends about twice the message per rank for large n, so a rank is
 * credited 2 x 6553600 B per iteration. */
static double bytes(void *state) { return 2.0 * DL_DOUBLES * sizeof(double); }

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
    .label = "Allreduce",
    .message_bytes = message_bytes,
    .iterations_for = iterations_for,
    .setup = setup,
    .teardown = congestor_state_free,
    .iterate = iterate,
    .bytes_per_iteration = bytes,
};
