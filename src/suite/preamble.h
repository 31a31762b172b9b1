/* The preamble of network_test and network_load_test (preamble.c). */
#ifndef GPCNET_PREAMBLE_H
#define GPCNET_PREAMBLE_H

#include "suite/run_context.h"

/* Print the preamble and settings (rank 0). */
void run_print_preamble(const run_t *run, const char *const *extra_lines, int n_extra);

#endif
