#include "congestor/congestor.h"

#include <stdio.h>
#include <string.h>

int congestor_message_doubles = CONGESTOR_DEFAULT_DOUBLES;

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

void congestor_display_name(const congestor_kernel_t *k, char *buf, size_t len)
{
    const char *published = "(4096 B)";
    const char *at = strstr(k->name, published);
    if (!at || congestor_message_doubles == CONGESTOR_DEFAULT_DOUBLES) {
        snprintf(buf, len, "%s", k->name);
        return;
    }
    snprintf(buf, len, "%.*s(%ld B)%s", (int)(at - k->name), k->name,
             (long)congestor_message_doubles * (long)sizeof(double), at + strlen(published));
}

int congestor_unscaled_iterations(int base, int n)
{
    (void)n;
    return base;
}
