/* The rows the kernels declare, appended to the option table
 * (option_table.h: option_rows_install, option_count, option_row). A
 * kernel's row is installed as a copy of its own row whose field is its
 * place in options_t.kernel_values and whose default is the value its
 * file initialises; nothing else in the option code tells the two kinds of
 * row apart. Set once, before parsing, by the one caller that knows the
 * kernels (suite/options/kernel_options.c); pure C, no MPI. */
#include <stdio.h>
#include <string.h>

#include "suite/options/option_table.h"

#define KERNEL_ROWS_MAX 64
#define KERNEL_SETS_MAX 64
#define VALUES_ALIGN 16

static opt_row_t kernel_rows[KERNEL_ROWS_MAX];
static int row_set[KERNEL_ROWS_MAX]; /* the installed[] entry a kernel row belongs to */
static int n_kernel_rows;
static struct {
    const kernel_options_t *set;
    const char *kernel; /* its kernel's id */
    size_t base;        /* in options_t.kernel_values */
} installed[KERNEL_SETS_MAX];
static int n_installed;

int option_count(void) { return option_table_count + n_kernel_rows; }

const opt_row_t *option_row(int i)
{
    return i < option_table_count ? &option_table[i] : &kernel_rows[i - option_table_count];
}

/* The value at p as a row's default. */
static double value_at(const void *p, opt_type_t type)
{
    switch (type) {
    case OT_LONG:
        return (double)*(const long *)p;
    case OT_U64:
        return (double)*(const uint64_t *)p;
    case OT_DOUBLE:
        return *(const double *)p;
    default:
        return (double)*(const int *)p;
    }
}

/* 1 when an installed row already has r's name (or alias) or key. */
static int taken(const opt_row_t *r, int upto)
{
    for (int i = 0; i < upto; i++) {
        const opt_row_t *o = option_row(i);
        if (strcmp(o->name, r->name) == 0 || (r->key && o->key && strcmp(o->key, r->key) == 0) ||
            (r->alias && o->alias && strcmp(o->alias, r->alias) == 0))
            return 1;
    }
    return 0;
}

static int refuse(char *err, size_t errlen, const opt_row_t *r, const char *why)
{
    snprintf(err, errlen, "kernel option %s: %s", r->name ? r->name : "(no name)", why);
    n_kernel_rows = n_installed = 0;
    return -1;
}

int option_rows_install(const kernel_options_t *const *sets, const char *const *kernels, int n,
                        char *err, size_t errlen)
{
    size_t base = 0;
    n_kernel_rows = n_installed = 0;
    for (int s = 0; s < n; s++) {
        const kernel_options_t *k = sets[s];
        if (!k || !k->size)
            continue;
        if (n_installed == KERNEL_SETS_MAX || base + k->size > OPT_KERNEL_VALUES_MAX)
            return refuse(err, errlen, k->n_rows ? &k->rows[0] : &(opt_row_t){0},
                          "no room for the kernel's parameter struct");
        installed[n_installed].set = k;
        installed[n_installed].kernel = kernels[s];
        installed[n_installed++].base = base;
        for (int i = 0; i < k->n_rows; i++) {
            const opt_row_t *r = &k->rows[i];
            size_t size = opt_number_size(r->type);
            if (!r->name || !r->help)
                return refuse(err, errlen, r, "a row needs a name and a help text");
            if (!size)
                return refuse(err, errlen, r, "kernels declare numbers, flags and choices only");
            if (r->field > k->size || size > k->size - r->field)
                return refuse(err, errlen, r, "its field is outside the parameter struct");
            if (r->variant || r->given != OPT_NO_FIELD)
                return refuse(err, errlen, r, "a kernel row has no variant and no given flag");
            if (n_kernel_rows == KERNEL_ROWS_MAX)
                return refuse(err, errlen, r, "too many kernel options");
            if (taken(r, option_table_count + n_kernel_rows))
                return refuse(err, errlen, r, "its name or key is already an option's");
            row_set[n_kernel_rows] = n_installed - 1;
            opt_row_t *row = &kernel_rows[n_kernel_rows++];
            *row = *r;
            row->field = offsetof(options_t, kernel_values) + base + r->field;
            row->def = value_at((const char *)k->defaults + r->field, r->type);
        }
        base += (k->size + VALUES_ALIGN - 1) / VALUES_ALIGN * VALUES_ALIGN;
    }
    return 0;
}

const void *option_kernel_values(const options_t *o, const kernel_options_t *set)
{
    for (int i = 0; i < n_installed; i++)
        if (installed[i].set == set)
            return o->kernel_values.bytes + installed[i].base;
    return NULL;
}

void option_rows_defaults(options_t *o)
{
    for (int i = 0; i < n_installed; i++)
        memcpy(o->kernel_values.bytes + installed[i].base, installed[i].set->defaults,
               installed[i].set->size);
}

const kernel_options_t *option_row_kernel(const opt_row_t *row, const char **kernel)
{
    if (row < kernel_rows || row >= kernel_rows + n_kernel_rows)
        return NULL;
    int s = row_set[row - kernel_rows];
    if (kernel)
        *kernel = installed[s].kernel;
    return installed[s].set;
}
