#include "congestor/congestor.h"

#include <stdio.h>
#include <string.h>

/* The table: one row per kernel, naming the congestor_kernel_t its file
 * defines. The default mix first, in the reference's order, then the
 * extras; --congestors and --help list them in this order. */
#define CONGESTOR_TABLE(ROW) \
    ROW(a2a)                 \
    ROW(p2p_incast)          \
    ROW(rma_incast)          \
    ROW(rma_bcast)           \
    ROW(dl_allreduce)        \
    ROW(p2p_bcast)           \
    ROW(allgather)           \
    ROW(bcast)               \
    ROW(moe_alltoallv)       \
    ROW(fsdp)                \
    ROW(pipeline)

#define DECLARE(kernel) extern const congestor_kernel_t kernel;
#define ENTRY(kernel) &kernel,
CONGESTOR_TABLE(DECLARE)
const congestor_kernel_t *const congestor_kernels[] = {CONGESTOR_TABLE(ENTRY)};
const int congestor_kernel_count = sizeof(congestor_kernels) / sizeof(congestor_kernels[0]);

int congestor_scaled_iterations(int base, int n)
{
    if (n <= 32)
        return base;
    int it = (int)((double)base * 32.0 / n);
    return it < 1 ? 1 : it;
}

congestor_params_t congestor_params_default(const congestor_kernel_t *k)
{
    congestor_params_t p = CONGESTOR_PARAMS_DEFAULT;
    if (k->options.size)
        memcpy(p.own.bytes, k->options.defaults, k->options.size);
    return p;
}

void congestor_display_name(const congestor_kernel_t *k, const congestor_params_t *p, char *buf,
                            size_t len)
{
    long bytes = k->message_bytes ? k->message_bytes(p) : p->message_bytes;
    snprintf(buf, len, "%s (%ld B)", k->label, bytes);
}

int congestor_unscaled_iterations(int base, int n)
{
    (void)n;
    return base;
}
