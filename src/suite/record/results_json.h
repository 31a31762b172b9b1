/* The results document (docs/results-json.md), written by world rank 0
 * after every phase: temporary file, then rename, so the file on disk is
 * always complete and valid for what has finished. */
#ifndef GPCNET_RESULTS_JSON_H
#define GPCNET_RESULTS_JSON_H

#include "suite/run_context.h"

#define RESULTS_SCHEMA_VERSION 1

/* Returns 0, or -1 after a warning on stderr (the run goes on: the text
 * tables are still printed). */
int results_json_write(const run_t *run);

#endif
