/* The options the kernels declare in their own files
 * (canary_kernel_t.options, infra/option_row.h): appended to the option
 * table before parsing, and copied into each plan entry's parameter block
 * after (docs/design.md#adding-a-kernel). */
#ifndef GPCNET_KERNEL_OPTIONS_H
#define GPCNET_KERNEL_OPTIONS_H

#include <stddef.h>

#include "canary/canary.h"
#include "congestor/congestor.h"
#include "suite/options/options.h"

/* Every kernel's declaration, the canaries' then the congestors', in
 * their tables' order, into sets and its kernel's id into kernels (at
 * most max); returns how many, or -1 when more than max. */
int kernel_options_sets(const kernel_options_t **sets, const char **kernels, int max);

/* Appends every kernel's option rows to the option table, in that order
 * (option_rows_install). Before options_parse; -1 with one line in err
 * when a kernel's row cannot be taken (a programming error:
 * tests/unit/test_option_table.c installs the real kernels). */
int kernel_options_install(char *err, size_t errlen);

/* The parameter block of k for a run with options o: the published sizes
 * and k's own struct as o holds it (its defaults when k declares no
 * options or they are not installed). */
canary_params_t kernel_options_canary_params(const canary_kernel_t *k, const options_t *o);
/* The same for congestor k, on the run's shared block (message size,
 * burst shape). */
congestor_params_t kernel_options_congestor_params(const congestor_kernel_t *k,
                                                   const options_t *o,
                                                   congestor_params_t shared);

#endif
