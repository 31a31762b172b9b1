#include "congestor/congestor.h"

extern const congestor_kernel_t a2a, p2p_incast, rma_incast, rma_bcast, dl_allreduce, p2p_bcast;

/* The default mix first, in the reference's order, then the extras. */
const congestor_kernel_t *const congestor_kernels[] = {
    &a2a, &p2p_incast, &rma_incast, &rma_bcast, &dl_allreduce, &p2p_bcast,
};
const int congestor_kernel_count = sizeof(congestor_kernels) / sizeof(congestor_kernels[0]);

int congestor_scaled_iterations(int base, int n)
{
    if (n <= 32)
        return base;
    int it = (int)((double)base * 32.0 / n);
    return it < 1 ? 1 : it;
}

int congestor_unscaled_iterations(int base, int n)
{
    (void)n;
    return base;
}
