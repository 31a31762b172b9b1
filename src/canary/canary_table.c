#include <stdio.h>
#include <string.h>

#include "canary/canary.h"

/* The table: one row per kernel, naming the canary_kernel_t its file
 * defines and whether it is in network_test's published default set
 * (DEFAULT_SET) or an extra (EXTRA: run only when --tests names it). The
 * default set is written here and nowhere else, and a row without its
 * second word does not compile, so a new kernel cannot join it unnoticed.
 * network_test runs them in this order (docs/method.md#canaries). */
#define DEFAULT_SET 1
#define EXTRA 0
#define CANARY_TABLE(ROW)                  \
    ROW(rr_two_sided_lat, DEFAULT_SET)     \
    ROW(rr_get_lat, DEFAULT_SET)           \
    ROW(rr_two_sided_bw, DEFAULT_SET)      \
    ROW(rr_put_bw, DEFAULT_SET)            \
    ROW(rr_two_sided_bw_sync, DEFAULT_SET) \
    ROW(nat_two_sided_bw, DEFAULT_SET)     \
    ROW(multiple_allreduce, DEFAULT_SET)   \
    ROW(multiple_alltoall, DEFAULT_SET)    \
    ROW(allreduce_1mib, EXTRA)             \
    ROW(allreduce_16mib, EXTRA)            \
    ROW(alltoall_1mib, EXTRA)              \
    ROW(alltoall_16mib, EXTRA)             \
    ROW(multiple_allgather, EXTRA)         \
    ROW(multiple_bcast, EXTRA)

#define DECLARE(kernel, set) extern const canary_kernel_t kernel;
#define ENTRY(kernel, set) &kernel,
#define IN_SET(kernel, set) set,
CANARY_TABLE(DECLARE)
const canary_kernel_t *const canary_kernels[] = {CANARY_TABLE(ENTRY)};
const int canary_in_default_set[] = {CANARY_TABLE(IN_SET)};
const int canary_kernel_count = sizeof(canary_kernels) / sizeof(canary_kernels[0]);

const canary_kernel_t *canary_find(const char *id)
{
    for (int i = 0; i < canary_kernel_count; i++)
        if (strcmp(canary_kernels[i]->id, id) == 0)
            return canary_kernels[i];
    return NULL;
}

canary_params_t canary_params_default(const canary_kernel_t *k)
{
    canary_params_t p = CANARY_PARAMS_DEFAULT;
    if (k->options.size)
        memcpy(p.own.bytes, k->options.defaults, k->options.size);
    return p;
}

void canary_display_name(const canary_kernel_t *k, const canary_params_t *p, char *buf,
                         size_t len)
{
    if (!k->size_bytes) {
        snprintf(buf, len, "%s", k->label);
        return;
    }
    long bytes = k->size_bytes(p);
    const long mib = 1L << 20;
    if (k->size_per_rank && bytes % mib == 0)
        snprintf(buf, len, "%s (%ld MiB/rank)", k->label, bytes / mib);
    else
        snprintf(buf, len, "%s (%ld B%s)", k->label, bytes, k->size_per_rank ? "/rank" : "");
}
