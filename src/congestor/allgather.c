/* Allgather (not in the default mix): MPI_Allgather in which every rank
 * contributes one 4 KiB message (--congestor-bytes) and receives the n
 * contributions, the collective of sharded-parameter training. */
#include "congestor/congestor.h"
#include "congestor/congestor_state.h"

static void *setup(MPI_Comm comm, const congestor_params_t *p)
{
    int n;
    MPI_Comm_size(comm, &n);
    return congestor_state_new(comm, p, congestor_message_doubles(p),
                               (size_t)n * (size_t)congestor_message_doubles(p));
}

static void iterate(void *state)
{
    congestor_state_t *s = state;
    MPI_Allgather(s->send, s->count, MPI_DOUBLE, s->recv, s->count, MPI_DOUBLE, s->comm);
}

/* Its message to each of the n-1 others, as Alltoall. */
static double bytes(void *state)
{
    congestor_state_t *s = state;
    return (double)s->count * sizeof(double) * (s->n - 1);
}

const congestor_kernel_t allgather = {
    .id = "allgather",
    .label = "Allgather",
    .iterations_for = congestor_scaled_iterations, /* its volume grows with n, as Alltoall's */
    .setup = setup,
    .teardown = congestor_state_free,
    .iterate = iterate,
    .bytes_per_iteration = bytes,
};
