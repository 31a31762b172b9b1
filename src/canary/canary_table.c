#include <string.h>

#include "canary/canary.h"

extern const canary_kernel_t rr_two_sided_lat, rr_get_lat, rr_two_sided_bw, rr_put_bw,
    rr_two_sided_bw_sync, nat_two_sided_bw, multiple_allreduce, multiple_alltoall;

/* network_test runs them in this order (docs/method.md#canaries). */
const canary_kernel_t *const canary_kernels[] = {
    &rr_two_sided_lat, &rr_get_lat,        &rr_two_sided_bw,    &rr_put_bw,
    &rr_two_sided_bw_sync, &nat_two_sided_bw, &multiple_allreduce, &multiple_alltoall,
};
const int canary_kernel_count = sizeof(canary_kernels) / sizeof(canary_kernels[0]);

const canary_kernel_t *canary_find(const char *id)
{
    for (int i = 0; i < canary_kernel_count; i++)
        if (strcmp(canary_kernels[i]->id, id) == 0)
            return canary_kernels[i];
    return NULL;
}
