/* The declarative option table: one row per option (as fio's), read by the
 * parser (options.c), --help (options_usage.c), the official-default check
 * (options.c) and the settings lines and JSON config (option_report.c).
 * Adding an option is one row here plus its field in options_t. */
#ifndef GPCNET_OPTION_TABLE_H
#define GPCNET_OPTION_TABLE_H

#include <stddef.h>

#include "suite/options.h"

/* Which programs take an option (scope) or count it (official). */
enum { OPT_NT = 1, OPT_LT = 2, OPT_NC = 4, OPT_ANY = 7, OPT_MEASURING = 3 };

typedef enum {
    OT_HELP,      /* --help: no field */
    OT_VERSION,   /* --version: no field */
    OT_FLAG,      /* int set to 1 */
    OT_INT,       /* int within [lo, hi] */
    OT_LONG,      /* long within [lo, hi] (and a multiple of .multiple) */
    OT_U64,       /* uint64_t within [lo, hi]; .keyword means "not given" */
    OT_DOUBLE,    /* double within (lo or [lo, hi] or hi) */
    OT_PATH,      /* char[OPT_PATH_MAX], not empty */
    OT_TESTS,     /* names from the test catalogue */
    OT_CONGESTORS,/* names from the congestor catalogue, each with a weight */
    OT_CHOICE,    /* int: index into .choices */
    OT_BURST,     /* double[2]: "ON,OFF" durations (option_burst.h) */
    OT_BURST_SWEEP /* burst_sweep_t: "ON=..;OFF=..;INTENSITY=.." (option_burst.h) */
} opt_type_t;

#define OPT_NO_FIELD ((size_t)-1)

/* In programs outside .config the key is left out, or null with
 * CONFIG_NULL_ELSEWHERE; CONFIG_NULL_AT_DEFAULT: null also at the default
 * (the default means "off"). */
enum { CONFIG_NULL_ELSEWHERE = 1, CONFIG_NULL_AT_DEFAULT = 2 };

typedef struct {
    const char *name;   /* "--time-limit" */
    const char *alias;  /* "-v", or NULL */
    int scope;          /* programs that accept it (OPT_NT | ...) with this row's help */
    opt_type_t type;
    size_t field;       /* offsetof(options_t, ...) (OPT_FIELD checks its type) */
    size_t given;       /* offsetof of its int *_given flag, or OPT_NO_FIELD */

    /* Limits and how a bad value is described. */
    double lo, hi;
    int lo_open, hi_open;
    long multiple;      /* > 1: the value must be a multiple of it */
    const char *what;   /* "a relative tolerance" instead of "a number" */
    const char *note;   /* after the limits: " (bytes of doubles)" */
    const char *keyword;/* a word that resets to the default: "time" */
    const char *const *choices;

    /* The default, the one place it is written. */
    double def;         /* numbers, flags and choices */
    const char *def_text; /* paths */

    /* --help: "--name METAVAR  help"; in help, %D is the default, %P the
     * program, %N the number of default tests, %L the test names. */
    const char *metavar;
    const char *help;

    /* The run's record: key in the JSON config and in the official-default
     * list; official: the programs in which a value other than the default
     * makes a run unofficial (option_differs). */
    const char *key;
    int official;
    int config;         /* programs whose config carries the key */
    int config_null;    /* CONFIG_NULL_*: null instead of the key left out */

    /* The settings line "   label = value unit note" (network_test and
     * network_load_test): .show_set: only when not the default; choices are
     * printed with .choice_text. */
    const char *label;
    const char *unit;
    const char *show_note;
    int show_set;
    const char *const *choice_text;

    /* A row for the same option offered to other programs with its own
     * help: everything but name, scope, metavar and help comes from the
     * first row of that name. */
    int variant;
} opt_row_t;

extern const opt_row_t option_table[];
extern const int option_table_count;

/* The order of the keys in the official-default list, the settings lines
 * and the JSON config: the published one, kept byte for byte (NULL-ended;
 * some are not options: "mpi", "official_default"). A keyed row missing
 * from a list comes after the listed ones, in table order. */
extern const char *const option_official_order[];
extern const char *const option_settings_order[];
extern const char *const option_config_order[];
/* pinned then every other key of the table, once each; returns how many. */
int option_keys(const char *const *pinned, const char **keys, int max);

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

#endif
