/* Two-sided Bcast (not in the default mix): the root sends 4 KiB to every
 * other rank with MPI_Isend. */
#include "congestor/congestor.h"
#include "congestor/congestor_state.h"

static void *setup(MPI_Comm comm, const congestor_params_t *p)
{
    return congestor_state_new(comm, p, congestor_message_doubles(p), congestor_message_doubles(p));
}

static void iterate(void *state)
{
    congestor_state_t *s = state;
    if (s->rank == 0) {
        for (int i = 1; i < s->n; i++)
            MPI_Isend(s->send, s->count, MPI_DOUBLE, i, 987, s->comm, &s->req[i - 1]);
        MPI_Waitall(s->n - 1, s->req, MPI_STATUSES_IGNORE);
    } else {
        MPI_Recv(s->recv, s->count, MPI_DOUBLE, 0, 987, s->comm, MPI_STATUS_IGNORE);
    }
}

const congestor_kernel_t p2p_bcast = {
    .id = "p2p_bcast",
    .label = "Two-sided Bcast",
    .iterations_for = congestor_unscaled_iterations, /* as the reference; docs/fidelity.md */
    .setup = setup,
    .teardown = congestor_state_free,
    .iterate = iterate,
    .bytes_per_iteration = congestor_bytes_if_not_root,
};
