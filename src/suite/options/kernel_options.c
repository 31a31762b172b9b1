#include "suite/options/kernel_options.h"

#include <stdio.h>
#include <string.h>

#include "suite/options/option_table.h"

#define MAX_SETS 256

int kernel_options_sets(const kernel_options_t **sets, const char **kernels, int max)
{
    if (canary_kernel_count + congestor_kernel_count > max)
        return -1;
    int n = 0;
    for (int i = 0; i < canary_kernel_count; i++) {
        kernels[n] = canary_kernels[i]->id;
        sets[n++] = &canary_kernels[i]->options;
    }
    for (int i = 0; i < congestor_kernel_count; i++) {
        kernels[n] = congestor_kernels[i]->id;
        sets[n++] = &congestor_kernels[i]->options;
    }
    return n;
}

int kernel_options_install(char *err, size_t errlen)
{
    const kernel_options_t *sets[MAX_SETS];
    const char *kernels[MAX_SETS];
    int n = kernel_options_sets(sets, kernels, MAX_SETS);
    if (n < 0) {
        snprintf(err, errlen, "kernel options: more than %d kernels", MAX_SETS);
        return -1;
    }
    return option_rows_install(sets, kernels, n, err, errlen);
}

/* Copies set's values in o over own (left as it is when set declares
 * nothing or is not installed). */
static void own_from_options(const kernel_options_t *set, const options_t *o,
                             kernel_params_area_t *own)
{
    const void *values = set->size ? option_kernel_values(o, set) : NULL;
    if (values)
        memcpy(own->bytes, values, set->size);
}

canary_params_t kernel_options_canary_params(const canary_kernel_t *k, const options_t *o)
{
    canary_params_t p = canary_params_default(k);
    own_from_options(&k->options, o, &p.own);
    return p;
}

congestor_params_t kernel_options_congestor_params(const congestor_kernel_t *k,
                                                   const options_t *o,
                                                   congestor_params_t shared)
{
    shared.own = congestor_params_default(k).own;
    own_from_options(&k->options, o, &shared.own);
    return shared;
}
