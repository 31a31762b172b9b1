/* RMA Bcast (Get Bcast): every rank gets 4 KiB from the root's window, then
 * flushes. As the reference, the data lands in the rank's own window memory
 * (offset 0, the same place the root's data is read from). */
#include "congestor/congestor.h"
#include "congestor/congestor_state.h"

static void *setup(MPI_Comm comm, const congestor_params_t *p)
{
    congestor_state_t *s = congestor_state_new(comm, p, 0, 0);
    congestor_state_window(s, congestor_message_doubles(p));
    return s;
}

static void iterate(void *state)
{
    congestor_state_t *s = state;
    if (s->rank == 0)
        return;
    MPI_Get(s->win_base, s->count, MPI_DOUBLE, 0, 0, s->count, MPI_DOUBLE, s->win);
    MPI_Win_flush(0, s->win);
}

const congestor_kernel_t rma_bcast = {
    .id = "rma_bcast",
    .label = "Get Bcast",
    .default_mix = 1,
    .one_sided = 1,
    .iterations_for = congestor_unscaled_iterations, /* as the reference; docs/fidelity.md */
    .setup = setup,
    .teardown = congestor_state_free,
    .pass_begin = congestor_lock_root,
    .pass_end = congestor_unlock_root,
    .iterate = iterate,
    .bytes_per_iteration = congestor_bytes_if_not_root,
};
