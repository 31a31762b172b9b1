/* --help of the three programs, generated from the option table (fits 80
 * columns). */
#include <stdio.h>
#include <string.h>

#include "suite/options/option_parse.h"
#include "suite/options/option_table.h"

#define HELP_COLUMN 29

/* The names, wrapped to fit 80 columns under a 29-column indent. */
static void catalog_wrapped(const name_catalog_t *cat, char *buf, size_t len)
{
    const char *indent = "\n                             ";
    size_t col = HELP_COLUMN;
    buf[0] = '\0';
    for (int i = 0; i < cat->count; i++) {
        size_t w = strlen(cat->ids[i]) + 2;
        if (i && col + w > 79) {
            strncat(buf, ",", len - strlen(buf) - 1);
            strncat(buf, indent, len - strlen(buf) - 1);
            col = HELP_COLUMN;
        } else if (i) {
            strncat(buf, ", ", len - strlen(buf) - 1);
        }
        strncat(buf, cat->ids[i], len - strlen(buf) - 1);
        col += w;
    }
}

static const char *official_note =
    "\n"
    "Defaults reproduce the published GPCNeT v1.3 configuration (an official run\n"
    "uses no option that changes the measurement; the run says whether it did).\n";

static const char *intro(program_t program)
{
    switch (program) {
    case PROGRAM_NETWORK_TEST:
        return "Runs the isolated network tests on all nodes at once: random and natural\n"
               "rings, allreduce and alltoall (docs/method.md). Needs at least 2 nodes.\n";
    case PROGRAM_NETWORK_LOAD_TEST:
        return "Measures latency- and bandwidth-sensitive canary tests in isolation and\n"
               "while congestor kernels load the network (docs/method.md). Needs at least 10\n"
               "nodes with the defaults (2 canary nodes and 2 per congestor).\n";
    default:
        return "Runs congestor kernels on all given nodes (dealt to whole nodes, as the load\n"
               "test deals them) until --duration, SIGINT/SIGTERM or --stop-file, so that\n"
               "another job (a real application) can run beside the congestion. Prints each\n"
               "kernel's bandwidth every --report-interval seconds and a final summary.\n";
    }
}

typedef struct {
    char *buf;
    size_t len;
} out_t;

static void put(out_t *out, const char *s, size_t n)
{
    size_t used = strlen(out->buf);
    if (used + 1 >= out->len)
        return;
    if (n > out->len - used - 1)
        n = out->len - used - 1;
    memcpy(out->buf + used, s, n);
    out->buf[used + n] = '\0';
}

static void puts_(out_t *out, const char *s)
{
    put(out, s, strlen(s));
}

/* The help text of a row with its placeholders filled in; a line break
 * continues under the help column. */
static void put_help(out_t *out, const opt_row_t *row, program_t program,
                     const name_catalog_t *tests)
{
    const opt_row_t *def = row->variant ? option_find(row->name) : row;
    for (const char *p = row->help; *p;) {
        const char *brace = strchr(p, '{'), *nl = strchr(p, '\n');
        const char *stop = brace && (!nl || brace < nl) ? brace : nl;
        if (!stop) {
            puts_(out, p);
            break;
        }
        put(out, p, (size_t)(stop - p));
        if (stop == nl) {
            puts_(out, "\n                             ");
            p = nl + 1;
            continue;
        }
        const char *close = strchr(stop, '}');
        char name[32], text[1024] = "";
        snprintf(name, sizeof(name), "%.*s", (int)(close - stop - 1), stop + 1);
        if (strcmp(name, "default") == 0 && def->def_text)
            snprintf(text, sizeof(text), "%s", def->def_text);
        else if (strcmp(name, "default") == 0)
            snprintf(text, sizeof(text), "%g", def->def);
        else if (strcmp(name, "program") == 0)
            snprintf(text, sizeof(text), "%s", program_name(program));
        else if (strcmp(name, "n_tests") == 0)
            snprintf(text, sizeof(text), "%d", tests->defaults ? tests->defaults : tests->count);
        else if (strcmp(name, "tests") == 0)
            catalog_wrapped(tests, text, sizeof(text));
        puts_(out, text);
        p = close + 1;
    }
    puts_(out, "\n");
}

/* "  -v, --verbose" or "      --time-limit SEC". */
static void option_column(const opt_row_t *row, char *buf, size_t len)
{
    snprintf(buf, len, "  %s%s%s%s%s", row->alias ? row->alias : "  ", row->alias ? ", " : "  ",
             row->name, row->metavar ? " " : "", row->metavar ? row->metavar : "");
}

static size_t column_width(const opt_row_t *row)
{
    char line[128];
    option_column(row, line, sizeof(line));
    return strlen(line);
}

/* The rows listed together: the table's, or one kernel's. */
static int same_group(const opt_row_t *a, const opt_row_t *b)
{
    return option_row_kernel(a, NULL) == option_row_kernel(b, NULL);
}

/* The help starts at column 29; a run of options too long for it (among
 * those of its group the program lists) starts theirs two columns after
 * its longest. */
static size_t help_column(int bit, int i)
{
    const opt_row_t *row = option_row(i);
    if (column_width(row) + 1 <= HELP_COLUMN)
        return HELP_COLUMN;
    int first = i;
    for (int j = i - 1; j >= 0; j--) {
        if (!(option_row(j)->scope & bit) || !same_group(option_row(j), row))
            continue;
        if (column_width(option_row(j)) + 1 <= HELP_COLUMN)
            break;
        first = j;
    }
    size_t column = HELP_COLUMN;
    for (int j = first; j < option_count(); j++) {
        if (!(option_row(j)->scope & bit) || !same_group(option_row(j), row))
            continue;
        size_t w = column_width(option_row(j));
        if (w + 1 <= HELP_COLUMN)
            break;
        if (w + 2 > column)
            column = w + 2;
    }
    return column;
}

static void put_option(out_t *out, int bit, int i, program_t program,
                       const name_catalog_t *tests)
{
    char line[128];
    const opt_row_t *row = option_row(i);
    size_t column = help_column(bit, i);
    option_column(row, line, sizeof(line));
    puts_(out, line);
    size_t c = strlen(line);
    do
        puts_(out, " ");
    while (++c < column);
    put_help(out, row, program, tests);
}

/* The kernels' own options, under their kernel: used, printed and
 * recorded only in a run of that kernel. Nothing when no kernel the
 * program runs declares one. */
static void put_kernel_options(out_t *out, int bit, program_t program,
                               const name_catalog_t *tests)
{
    const kernel_options_t *last = NULL;
    for (int i = 0; i < option_count(); i++) {
        const char *kernel;
        const kernel_options_t *set = option_row_kernel(option_row(i), &kernel);
        if (!set || !(option_row(i)->scope & bit))
            continue;
        if (!last)
            puts_(out, "\nOptions of one test or congestor (only in runs that select it):\n");
        if (set != last) {
            puts_(out, "  ");
            puts_(out, kernel);
            puts_(out, ":\n");
            last = set;
        }
        put_option(out, bit, i, program, tests);
    }
}

void options_usage(program_t program, const name_catalog_t *tests,
                   const name_catalog_t *congestors, char *buf, size_t len)
{
    out_t out = {buf, len};
    int bit = option_program_bit(program);
    char line[128];
    if (!len)
        return;
    buf[0] = '\0';
    snprintf(line, sizeof(line), "Usage: mpirun [...] %s [options]\n\n", program_name(program));
    puts_(&out, line);
    puts_(&out, intro(program));
    if (program != PROGRAM_NETWORK_CONGESTOR)
        puts_(&out, official_note);
    puts_(&out, "\nOptions:\n");
    for (int i = 0; i < option_count(); i++)
        if ((option_row(i)->scope & bit) && !option_row_kernel(option_row(i), NULL))
            put_option(&out, bit, i, program, tests);
    put_kernel_options(&out, bit, program, tests);
    puts_(&out, "\nExit status: 0 success, 1 run-time error (e.g. too few nodes), 2 bad usage.\n");
    if (option_lookup("--congestors", program)->scope & bit) {
        char names[1024];
        catalog_wrapped(congestors, names, sizeof(names));
        puts_(&out, "\nCongestors (--congestors):\n                             ");
        puts_(&out, names);
        puts_(&out, "\n");
    }
}
