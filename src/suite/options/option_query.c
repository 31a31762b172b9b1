/* What the rest of the option code asks of the rows (option_table.h): the
 * keys of the three records in their order, a row by name, key or
 * program, and a row's value in options_t (its place, whether it
 * differs from the default, its settings line and config entry by its
 * type). Apart from option_table.c so that the table itself stays one
 * list of rows. */
#include "suite/options/option_table.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "suite/options/option_burst.h"

static int place(opt_at_t at, opt_order_t which)
{
    return which == OPT_ORDER_OFFICIAL ? at.official
           : which == OPT_ORDER_SETTINGS ? at.settings
                                         : at.config;
}

static int listed(const char **keys, int n, const char *key)
{
    for (int k = 0; k < n; k++)
        if (strcmp(keys[k], key) == 0)
            return 1;
    return 0;
}

int option_keys(opt_order_t which, const opt_record_key_t *extra, int n_extra, const char **keys,
                int max)
{
    int n = 0;
    /* The published keys by place (a place names one key:
     * tests/unit/test_option_table.c), then the others in row order. */
    for (int at = 1; at <= UCHAR_MAX && n < max; at++) {
        for (int e = 0; e < n_extra && n < max; e++)
            if (place(extra[e].at, which) == at)
                keys[n++] = extra[e].key;
        for (int i = 0; i < option_count() && n < max; i++) {
            const opt_row_t *r = option_row(i);
            if (r->key && !r->variant && place(r->at, which) == at && !listed(keys, n, r->key))
                keys[n++] = r->key;
        }
    }
    for (int i = 0; i < option_count() && n < max; i++) {
        const char *key = option_row(i)->key;
        if (key && !listed(keys, n, key))
            keys[n++] = key;
    }
    return n;
}

int option_program_bit(program_t program)
{
    return program == PROGRAM_NETWORK_TEST        ? OPT_NT
           : program == PROGRAM_NETWORK_LOAD_TEST ? OPT_LT
                                                  : OPT_NC;
}

const opt_row_t *option_find(const char *name)
{
    for (int i = 0; i < option_count(); i++)
        if (!option_row(i)->variant && strcmp(option_row(i)->name, name) == 0)
            return option_row(i);
    return NULL;
}

const opt_row_t *option_by_key(const char *key)
{
    for (int i = 0; i < option_count(); i++)
        if (option_row(i)->key && strcmp(option_row(i)->key, key) == 0)
            return option_row(i);
    return NULL;
}

const opt_row_t *option_lookup(const char *name, program_t program)
{
    const opt_row_t *any = NULL;
    for (int i = 0; i < option_count(); i++) {
        const opt_row_t *r = option_row(i);
        if (strcmp(r->name, name) != 0 && !(r->alias && strcmp(r->alias, name) == 0))
            continue;
        if (r->scope & option_program_bit(program))
            return r;
        if (!any)
            any = r;
    }
    return any;
}

int option_scope(const char *name)
{
    int scope = 0;
    for (int i = 0; i < option_count(); i++)
        if (strcmp(option_row(i)->name, name) == 0 ||
            (option_row(i)->alias && strcmp(option_row(i)->alias, name) == 0))
            scope |= option_row(i)->scope;
    return scope;
}

void *option_field(const options_t *o, const opt_row_t *row)
{
    return (char *)o + row->field;
}

int option_differs(const options_t *o, const opt_row_t *row)
{
    const void *f = option_field(o, row);
    if (row->given != OPT_NO_FIELD && row->keyword)
        return *(const int *)((const char *)o + row->given); /* --seed: any value */
    switch (row->type) {
    case OT_FLAG:
    case OT_INT:
    case OT_CHOICE:
        return *(const int *)f != (int)row->def;
    case OT_LONG:
        return *(const long *)f != (long)row->def;
    case OT_U64:
        return *(const uint64_t *)f != (uint64_t)row->def;
    case OT_DOUBLE:
        return *(const double *)f != row->def;
    case OT_PATH:
        return strcmp((const char *)f, row->def_text ? row->def_text : "") != 0;
    case OT_BURST:
        return ((const double *)f)[0] > 0.0;
    case OT_BURST_SWEEP:
        return ((const burst_sweep_t *)f)->n_on > 0;
    default:
        return 0;
    }
}

/* "   time limit = 10 s per test": a row's value as its type prints it. */
void option_settings_line(const opt_row_t *r, const options_t *o)
{
    const void *f = option_field(o, r);
    printf("   %s = ", r->label);
    switch (r->type) {
    case OT_FLAG:
        printf("%s", *(const int *)f ? "yes" : "no");
        break;
    case OT_INT:
        printf("%d", *(const int *)f);
        break;
    case OT_LONG:
        printf("%ld", *(const long *)f);
        break;
    case OT_U64:
        printf("%llu", (unsigned long long)*(const uint64_t *)f);
        break;
    case OT_DOUBLE:
        printf("%g", *(const double *)f);
        break;
    case OT_CHOICE:
        printf("%s", (r->choice_text ? r->choice_text : r->choices)[*(const int *)f]);
        break;
    case OT_BURST_SWEEP:
        option_burst_sweep_show(stdout, o);
        break;
    default:
        printf("%s", (const char *)f);
    }
    printf("%s%s\n", r->unit ? r->unit : "", r->show_note ? r->show_note : "");
}

void option_config_entry(json_writer_t *w, const opt_row_t *r, const options_t *o,
                         program_t program)
{
    const void *f = option_field(o, r);
    if (!(r->config & option_program_bit(program)) ||
        ((r->config_set || r->config_null == CONFIG_NULL_AT_DEFAULT) &&
         !option_differs(o, r))) {
        if (r->config_null)
            jw_null(w, r->key);
        return;
    }
    switch (r->type) {
    case OT_FLAG:
        jw_bool(w, r->key, *(const int *)f);
        break;
    case OT_INT:
        jw_int(w, r->key, *(const int *)f);
        break;
    case OT_LONG:
        jw_int(w, r->key, *(const long *)f);
        break;
    case OT_U64:
        jw_int(w, r->key, (long long)*(const uint64_t *)f);
        break;
    case OT_DOUBLE:
        jw_number(w, r->key, *(const double *)f);
        break;
    case OT_CHOICE:
        jw_string(w, r->key, r->choices[*(const int *)f]);
        break;
    case OT_BURST_SWEEP:
        option_burst_sweep_json(w, r->key, o);
        break;
    default:
        jw_string(w, r->key, (const char *)f);
    }
}
