#include "suite/kernel_options.h"

#include <stdio.h>
#include <string.h>

#include "suite/option_table.h"

int kernel_options_install(char *err, size_t errlen)
{
    const kernel_options_t *sets[256];
    if (canary_kernel_count > 256) {
        snprintf(err, errlen, "kernel options: more than 256 canary kernels");
        return -1;
    }
    for (int i = 0; i < canary_kernel_count; i++)
        sets[i] = &canary_kernels[i]->options;
    return option_rows_install(sets, canary_kernel_count, err, errlen);
}

canary_params_t kernel_options_canary_params(const canary_kernel_t *k, const options_t *o)
{
    canary_params_t p = canary_params_default(k);
    const void *values = k->options.size ? option_kernel_values(o, &k->options) : NULL;
    if (values)
        memcpy(p.own.bytes, values, k->options.size);
    return p;
}
