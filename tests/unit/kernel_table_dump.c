/* Prints the C kernel tables, one kernel a line (tab-separated):
 *   canary <id> <name> <unit> <load_canary>
 *   congestor <id> <name> MiB/s/rank <default_mix>
 * tests/integration/test_kernel_catalog.py checks gpcnet's Python catalogue
 * (python/gpcnet/catalog.py) against it. Calls no MPI. */
#include <stdio.h>

#include "canary/canary.h"
#include "congestor/congestor.h"

int main(void)
{
    for (int i = 0; i < canary_kernel_count; i++) {
        const canary_kernel_t *k = canary_kernels[i];
        printf("canary\t%s\t%s\t%s\t%d\n", k->id, k->name, k->unit, k->load_canary);
    }
    for (int i = 0; i < congestor_kernel_count; i++) {
        const congestor_kernel_t *k = congestor_kernels[i];
        printf("congestor\t%s\t%s\tMiB/s/rank\t%d\n", k->id, k->name, k->default_mix);
    }
    return 0;
}
