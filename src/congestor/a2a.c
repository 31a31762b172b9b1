/* A2A (Alltoall): pairwise exchange with MPI_Sendrecv over n steps; partner
 * rank XOR i for power-of-two sizes, else send to +i and receive from -i. */
#include "congestor/congestor.h"
#include "congestor/congestor_state.h"

static void *setup(MPI_Comm comm, const congestor_params_t *p)
{
    int n;
    MPI_Comm_size(comm, &n);
    size_t doubles = (size_t)n * (size_t)congestor_message_doubles(p);
    return congestor_state_new(comm, p, doubles, doubles);
}

static void iterate(void *state)
{
    congestor_state_t *s = state;
    int pof2 = (s->n & (s->n - 1)) == 0;
    for (int i = 0; i < s->n; i++) {
        int dst, src;
        if (pof2) {
            dst = src = s->rank ^ i;
        } else {
            dst = (s->rank + i) % s->n;
            src = (s->rank - i + s->n) % s->n;
        }
        MPI_Sendrecv(s->send + (size_t)i * s->count, s->count, MPI_DOUBLE, dst,
                     987, s->recv + (size_t)i * s->count, s->count, MPI_DOUBLE,
                     src, 987, s->comm, MPI_STATUS_IGNORE);
    }
}

/* 4 KiB to each of the n-1 others. */
static double bytes(void *state)
{
    congestor_state_t *s = state;
    return (double)s->count * sizeof(double) * (s->n - 1);
}

const congestor_kernel_t a2a = {
    .id = "a2a",
    .label = "Alltoall",
    .default_mix = 1,
    .iterations_for = congestor_scaled_iterations,
    .setup = setup,
    .teardown = congestor_state_free,
    .iterate = iterate,
    .bytes_per_iteration = bytes,
};
