/* P2P Incast (Two-sided Incast): every rank sends 4 KiB to the root, which
 * has one receive posted per sender. */
#include "congestor/congestor.h"
#include "congestor/congestor_state.h"

static void *setup(MPI_Comm comm, const congestor_params_t *p)
{
    int n;
    MPI_Comm_size(comm, &n);
    return congestor_state_new(comm, p, congestor_message_doubles(p), (size_t)n * congestor_message_doubles(p));
}

static void iterate(void *state)
{
    congestor_state_t *s = state;
    if (s->rank == 0) {
        for (int i = 1; i < s->n; i++)
            MPI_Irecv(s->recv + (size_t)i * s->count, s->count, MPI_DOUBLE, i,
                      987, s->comm, &s->req[i - 1]);
        MPI_Waitall(s->n - 1, s->req, MPI_STATUSES_IGNORE);
    } else {
        MPI_Send(s->send, s->count, MPI_DOUBLE, 0, 987, s->comm);
    }
}

const congestor_kernel_t p2p_incast = {
    .id = "p2p_incast",
    .label = "Two-sided Incast",
    .default_mix = 1,
    .iterations_for = congestor_scaled_iterations,
    .setup = setup,
    .teardown = congestor_state_free,
    .iterate = iterate,
    .bytes_per_iteration = congestor_bytes_if_not_root,
};
