/* One command-line option described as data: the row type of the option
 * table (suite/options/option_table.c), and the option rows a kernel declares in
 * its own file (kernel_options_t). Types only; no GPCNeT policy.
 *
 * A kernel with settings of its own writes, in its file, its parameter
 * struct, its defaults as designated initialisers and the rows of the
 * options that set them (docs/design.md#adding-a-kernel):
 *
 *   typedef struct { long message_bytes; } my_params_t;
 *   static const my_params_t my_defaults = {.message_bytes = 64};
 *   static const opt_row_t my_options[] = {
 *       {"--my-bytes", NULL, OPT_MEASURING, OT_LONG,
 *        KERNEL_FIELD(my_params_t, message_bytes, long), .given = OPT_NO_FIELD, ...},
 *   };
 *   ... .options = KERNEL_OPTIONS(my_defaults, my_options) ...
 *
 * A kernel row's .field is the offset in the kernel's struct and its
 * default is the struct's value (the row gives no .def): the option table
 * appends the rows after its own (option_rows_install, suite/options/option_table.h),
 * so parsing takes them as any other row; --help lists them under their
 * kernel, and the settings lines, the JSON config and the official-default
 * check carry them only in runs of that kernel. */
#ifndef GPCNET_OPTION_ROW_H
#define GPCNET_OPTION_ROW_H

#include <stddef.h>
#include <stdint.h>

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

/* A key's place among the published keys of the three records, 1-based
 * (0: after the published ones, in row order): the official-default list
 * (options_non_default), the settings lines and the JSON config. The
 * reference fixed these orders; a new key needs none. */
typedef struct {
    unsigned char official, settings, config;
} opt_at_t;

/* In programs outside .config the key is left out, or null with
 * CONFIG_NULL_ELSEWHERE; CONFIG_NULL_AT_DEFAULT: null also at the default
 * (the default means "off"). */
enum { CONFIG_NULL_ELSEWHERE = 1, CONFIG_NULL_AT_DEFAULT = 2 };

typedef struct {
    const char *name;   /* "--time-limit" */
    const char *alias;  /* "-v", or NULL */
    int scope;          /* programs that accept it (OPT_NT | ...) with this row's help */
    opt_type_t type;
    size_t field;       /* offsetof(options_t, ...): a setting the run takes as given
                         * is in options_t.set, which the plan copies whole
                         * (SET, suite/run_settings.h); in a kernel's row, offsetof
                         * in its parameter struct (KERNEL_FIELD) */
    size_t given;       /* offsetof of its int *_given flag, or OPT_NO_FIELD */

    /* Limits and how a bad value is described. */
    double lo, hi;
    int lo_open, hi_open;
    long multiple;      /* > 1: the value must be a multiple of it */
    const char *what;   /* "a relative tolerance" instead of "a number" */
    const char *note;   /* after the limits: " (bytes of doubles)" */
    const char *keyword;/* a word that resets to the default: "time" */
    const char *const *choices;

    /* The default, the one place it is written (a kernel's row: its
     * struct's value, filled in when the row is installed). */
    double def;         /* numbers, flags and choices */
    const char *def_text; /* paths */

    /* --help: "--name METAVAR  help"; in help, {default} is the default,
     * {program} the program, {n_tests} the number of default tests,
     * {tests} the test names. */
    const char *metavar;
    const char *help;

    /* The run's record: key in the JSON config and in the official-default
     * list; official: the programs in which a value other than the default
     * makes a run unofficial (option_differs). */
    const char *key;
    int official;
    int config;         /* programs whose config carries the key */
    int config_null;    /* CONFIG_NULL_*: null instead of the key left out */
    int config_set;     /* the key only when not the default (as .show_set) */
    opt_at_t at;        /* where the key goes in the records (first row of a key) */

    /* The settings line "   label = value unit note" (network_test and
     * network_load_test): .show_set: only when not the default; choices are
     * printed with .choice_text, a --burst-sweep grid as option_burst.h
     * writes it. */
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

/* The bytes of a number, flag or choice of type (the types a kernel row
 * may declare), 0 for any other type. */
static inline size_t opt_number_size(opt_type_t type)
{
    switch (type) {
    case OT_FLAG:
    case OT_INT:
    case OT_CHOICE:
        return sizeof(int);
    case OT_LONG:
        return sizeof(long);
    case OT_U64:
        return sizeof(uint64_t);
    case OT_DOUBLE:
        return sizeof(double);
    default:
        return 0;
    }
}

/* The largest parameter struct a kernel may declare (KERNEL_OPTIONS
 * refuses a larger one at compile time). */
#define KERNEL_PARAMS_MAX 64

/* Room for one kernel's parameter struct, aligned for any member. */
typedef union {
    unsigned char bytes[KERNEL_PARAMS_MAX];
    long double align_ld_;
    uint64_t align_u64_;
    void *align_ptr_;
} kernel_params_area_t;

/* What a kernel declares: its parameter struct's defaults and size, and
 * the rows of the options that set its fields. All zero: none. Kernel rows
 * take numbers, flags and choices (OT_FLAG, OT_INT, OT_LONG, OT_U64,
 * OT_DOUBLE, OT_CHOICE), have no variants and no *_given flag. */
typedef struct {
    const void *defaults;
    size_t size;
    const opt_row_t *rows;
    int n_rows;
} kernel_options_t;

/* offsetof(S, f), refused at compile time unless the field has type T. */
#define KERNEL_FIELD(S, f, T) (offsetof(S, f) + 0 * sizeof(_Generic(((S *)0)->f, T: 1)))

/* A kernel's declaration from its defaults (a struct object) and its rows
 * (an array), as the initialiser of its .options; a struct over
 * KERNEL_PARAMS_MAX does not compile. */
#define KERNEL_OPTIONS(DEFAULTS, ROWS)                                                  \
    {                                                                                   \
        .defaults = &(DEFAULTS),                                                        \
        .size = sizeof(DEFAULTS) +                                                      \
                0 * sizeof(char[sizeof(DEFAULTS) <= KERNEL_PARAMS_MAX ? 1 : -1]),       \
        .rows = (ROWS),                                                                 \
        .n_rows = (int)(sizeof(ROWS) / sizeof((ROWS)[0]))}

#endif
