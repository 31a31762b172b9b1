/* The declarative option table: one row per option (as fio's), read by the
 * parser (option_parse.c), --help (options_usage.c), the official-default
 * check (option_parse.c) and the settings lines and JSON config
 * (option_report.c). Adding a general option the run takes as given is
 * one row here and its member in run_settings_t, which the row's .field
 * names (SET) and the plan copies whole (docs/design.md#adding-an-option);
 * a kernel's own options are rows in its file (infra/option_row.h),
 * appended here by option_rows_install. */
#ifndef GPCNET_OPTION_TABLE_H
#define GPCNET_OPTION_TABLE_H

#include <stddef.h>

#include "infra/json_writer.h"
#include "infra/option_row.h"
#include "suite/options/options.h"

extern const opt_row_t option_table[];
extern const int option_table_count;

/* Every option: the table's rows, then the rows the kernels declare
 * (option_rows_install), appended in kernel order. Everything generated
 * from the table (parsing, --help, the official-default check, the
 * settings lines, the JSON config) reads the rows through these. */
int option_count(void);
const opt_row_t *option_row(int i);

/* Appends the rows of n kernels' declarations (kernels[i]: the id of the
 * kernel declaring sets[i]) after the table's (once,
 * before options_defaults; a second call replaces the first). Each
 * kernel's parameter struct gets its place in options_t.kernel_values,
 * starting as its defaults, and its rows are the kernel's rows with .field
 * moved there and .def read from the defaults. A row the table cannot
 * take (a name or key already used, a type kernels cannot declare, a
 * field outside the struct, too many rows) is refused: -1, with one line
 * in err naming the row. */
int option_rows_install(const kernel_options_t *const *sets, const char *const *kernels, int n,
                        char *err, size_t errlen);
/* The declaration a kernel's row came from, and its kernel's id (kernels[]
 * of option_rows_install) in *kernel when not NULL; NULL for a row of the
 * table. A kernel's options are used, printed and recorded only in runs
 * of that kernel (docs/design.md#adding-a-kernel). */
const kernel_options_t *option_row_kernel(const opt_row_t *row, const char **kernel);
/* The values of set's parameter struct in o, or NULL when set is not
 * installed. */
const void *option_kernel_values(const options_t *o, const kernel_options_t *set);
/* Writes every installed kernel's defaults into o (options_defaults). */
void option_rows_defaults(options_t *o);

/* The three records that list keys in the reference's order. */
typedef enum { OPT_ORDER_OFFICIAL, OPT_ORDER_SETTINGS, OPT_ORDER_CONFIG } opt_order_t;
/* A key a record lists that no row has ("mpi", "official_default",
 * "loops"), and its place (option_report.c). */
typedef struct {
    const char *key;
    opt_at_t at;
} opt_record_key_t;
/* Room for every key: the table's, the kernels' rows' (at most 64,
 * option_rows.c) and the record keys that are not options. */
#define OPT_MAX_KEYS 160
/* The keys of record which, in its order: those with a place (the rows'
 * .at, and extra's) by place, then every other key of the rows, once
 * each, in row order. Returns how many. */
int option_keys(opt_order_t which, const opt_record_key_t *extra, int n_extra, const char **keys,
                int max);

/* A program's bit (OPT_NT, OPT_LT or OPT_NC). */
int option_program_bit(program_t program);
/* The row that defines the option name (not a variant), or NULL. */
const opt_row_t *option_find(const char *name);
/* The row of key (the first with it), or NULL. */
const opt_row_t *option_by_key(const char *key);
/* The row name (or its alias) has in program, else any row of that name;
 * NULL when no row has it. */
const opt_row_t *option_lookup(const char *name, program_t program);
/* The programs that take name (or alias), over all its rows. */
int option_scope(const char *name);
/* The field of a row in o. */
void *option_field(const options_t *o, const opt_row_t *row);
/* 1 when o's value of row differs from its default. A row with a keyword
 * has the keyword as its default (--seed time: rank 0's clock), so any
 * value given differs. */
int option_differs(const options_t *o, const opt_row_t *row);
/* The settings line of row, its value in o as its type prints it
 * ("   time limit = 10 s per test", stdout). */
void option_settings_line(const opt_row_t *row, const options_t *o);
/* The config entry of row in program's JSON: its value in o by its type,
 * null or nothing where the row says so (.config, .config_set,
 * .config_null). */
void option_config_entry(json_writer_t *w, const opt_row_t *row, const options_t *o,
                         program_t program);

#endif
