/* What a run prints and records of its options, generated from the option
 * table (option_table.c): the settings lines of the preamble and the JSON
 * "config" object (docs/results-json.md). */
#ifndef GPCNET_OPTION_REPORT_H
#define GPCNET_OPTION_REPORT_H

#include "infra/json_writer.h"
#include "suite/run_context.h"

/* The "  Settings (...)" line and one line per setting (stdout). */
void options_print_settings(const run_t *run);
/* The "config" object of the results JSON. */
void options_write_config(json_writer_t *w, const run_t *run);

#endif
