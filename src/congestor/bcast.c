/* Bcast (not in the default mix): MPI_Bcast of one 4 KiB message
 * (--congestor-bytes) from rank 0, the MPI library's own broadcast
 * algorithm, beside the hand-made Two-sided and Get broadcasts. */
#include "congestor/congestor.h"
#include "congestor/congestor_state.h"

static void *setup(MPI_Comm comm, const congestor_params_t *p)
{
    return congestor_state_new(comm, p, congestor_message_doubles(p), 0);
}

static void iterate(void *state)
{
    congestor_state_t *s = state;
    MPI_Bcast(s->send, s->count, MPI_DOUBLE, 0, s->comm);
}

const congestor_kernel_t bcast = {
    .id = "bcast",
    .label = "Bcast",
    /* A broadcast's volume per rank does not grow with n: unscaled, as the
     * other broadcasts. */
    .iterations_for = congestor_unscaled_iterations,
    .setup = setup,
    .teardown = congestor_state_free,
    .iterate = iterate,
    /* Every rank but the root receives the message. */
    .bytes_per_iteration = congestor_bytes_if_not_root,
};
