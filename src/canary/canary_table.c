#include <string.h>

#include "canary/canary.h"

/* The table: one row per kernel, naming the canary_kernel_t its file
 * defines. network_test runs them in this order (docs/method.md#canaries),
 * all but the extras, which run only when --tests names them. */
#define CANARY_TABLE(ROW)      \
    ROW(rr_two_sided_lat)      \
    ROW(rr_get_lat)            \
    ROW(rr_two_sided_bw)       \
    ROW(rr_put_bw)             \
    ROW(rr_two_sided_bw_sync)  \
    ROW(nat_two_sided_bw)      \
    ROW(multiple_allreduce)    \
    ROW(multiple_alltoall)     \
    ROW(allreduce_1mib)        \
    ROW(allreduce_16mib)       \
    ROW(alltoall_1mib)         \
    ROW(alltoall_16mib)        \
    ROW(multiple_allgather)    \
    ROW(multiple_bcast)

#define DECLARE(kernel) extern const canary_kernel_t kernel;
#define ENTRY(kernel) &kernel,
CANARY_TABLE(DECLARE)
const canary_kernel_t *const canary_kernels[] = {CANARY_TABLE(ENTRY)};
const int canary_kernel_count = sizeof(canary_kernels) / sizeof(canary_kernels[0]);

const canary_kernel_t *canary_find(const char *id)
{
    for (int i = 0; i < canary_kernel_count; i++)
        if (strcmp(canary_kernels[i]->id, id) == 0)
            return canary_kernels[i];
    return NULL;
}
