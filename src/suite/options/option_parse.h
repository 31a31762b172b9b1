/* The command line of the three programs: defaults, parsing and
 * validation, --help and the official-default check, all generated from
 * the option table (suite/options/option_table.h). options.h holds only the
 * types, so the table can describe them without a circle. */
#ifndef GPCNET_OPTION_PARSE_H
#define GPCNET_OPTION_PARSE_H

#include <stddef.h>

#include "infra/option_row.h"
#include "suite/options/options.h"

void options_defaults(options_t *o, program_t program);

/* Whether the kernel that declared set runs (ctx: the caller's, the run
 * plan). */
typedef struct {
    int (*kernel_runs)(const void *ctx, const kernel_options_t *set);
    const void *ctx;
} option_runs_t;

/* Parse argv. On OPT_ERROR, err holds a one-line message (no usage). */
opt_status_t options_parse(options_t *o, program_t program, int argc, char **argv,
                           const name_catalog_t *tests, const name_catalog_t *congestors,
                           char *err, size_t errlen);

/* Usage text for the program, written into buf. */
void options_usage(program_t program, const name_catalog_t *tests,
                   const name_catalog_t *congestors, char *buf, size_t len);

/* The official-default check: the names of the settings in o that differ
 * from the published configuration, comma-separated into buf (empty when
 * none); returns how many. The test and congestor lists are judged by the
 * caller, who knows the kernels' defaults (tests_default,
 * congestors_default: 1 when the selection is the default one). A
 * kernel's own option counts only when runs says its kernel runs (runs
 * NULL: every kernel). */
int options_non_default(const options_t *o, program_t program, int tests_default,
                        int congestors_default, const option_runs_t *runs, char *buf, size_t len);

#endif
