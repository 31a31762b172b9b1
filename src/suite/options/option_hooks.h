/* What the run resolved, printed and recorded in an option's place (or
 * in the place of a record key that is no option): the seed, the kernels
 * and their loops, the nodes, the paths, the bursts, the canary share of
 * an MPMD launch. option_report.c writes every other key from its row. */
#ifndef GPCNET_OPTION_HOOKS_H
#define GPCNET_OPTION_HOOKS_H

#include "infra/json_writer.h"
#include "suite/options/option_table.h"
#include "suite/run_context.h"

/* What the run resolved, written in a key's place instead of the row's
 * value (NULL: the row's value, by its type). */
typedef struct {
    const char *key;
    int show_in;                                        /* programs (OPT_NT | ...) */
    void (*show)(const run_t *run);                     /* settings line(s) */
    void (*config)(json_writer_t *w, const run_t *run); /* config entries */
} option_hook_t;

/* The hook of key, or NULL (the row's value, by its type). */
const option_hook_t *option_hook(const char *key);

/* The keys the records list that are not options, and their places. */
extern const opt_record_key_t option_record_keys[];
extern const int option_record_key_count;

#endif
