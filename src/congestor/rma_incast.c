/* RMA Incast (Put Incast): every rank puts 4 KiB into its own slot of the
 * root's window, then flushes. As the reference, the origin is the start of
 * the rank's own window memory. */
#include "congestor/congestor.h"
#include "congestor/congestor_state.h"

static void *setup(MPI_Comm comm, const congestor_params_t *p)
{
    int n;
    MPI_Comm_size(comm, &n);
    congestor_state_t *s = congestor_state_new(comm, p, 0, 0);
    /* Twice the slots, as the reference sizes its incast window. */
    congestor_state_window(s, 2 * (size_t)n * congestor_message_doubles(p));
    return s;
}

static void iterate(void *state)
{
    congestor_state_t *s = state;
    if (s->rank == 0)
        return;
    MPI_Put(s->win_base, s->count, MPI_DOUBLE, 0, (MPI_Aint)s->rank * s->count,
            s->count, MPI_DOUBLE, s->win);
    MPI_Win_flush(0, s->win);
}

const congestor_kernel_t rma_incast = {
    .id = "rma_incast",
    .label = "Put Incast",
    .default_mix = 1,
    .one_sided = 1,
    .iterations_for = congestor_scaled_iterations,
    .setup = setup,
    .teardown = congestor_state_free,
    .pass_begin = congestor_lock_root,
    .pass_end = congestor_unlock_root,
    .iterate = iterate,
    .bytes_per_iteration = congestor_bytes_if_not_root,
};
