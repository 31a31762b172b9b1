/* The command line: parse and validate argv against the option table. */
#include "suite/options/option_parse.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "infra/placement.h"
#include "suite/options/option_burst.h"
#include "suite/options/option_number.h"
#include "suite/options/option_table.h"

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* A whole decimal number that fits a long: 0, else -1. */
static int catalog_find(const name_catalog_t *cat, const char *name, size_t len)
{
    for (int i = 0; i < cat->count; i++) {
        const char *id = cat->ids[i];
        if (strlen(id) != len)
            continue;
        size_t k = 0;
        /* '-' and '_' are the same letter here: users type either. */
        for (; k < len; k++) {
            char a = name[k] == '-' ? '_' : name[k];
            if (a != id[k])
                break;
        }
        if (k == len)
            return i;
    }
    return -1;
}

static void catalog_list(const name_catalog_t *cat, char *buf, size_t len)
{
    buf[0] = '\0';
    for (int i = 0; i < cat->count; i++) {
        if (i)
            strncat(buf, ", ", len - strlen(buf) - 1);
        strncat(buf, cat->ids[i], len - strlen(buf) - 1);
    }
}

/* "a,b:2,c" -> indices (+ weights when weights != NULL). */
static int parse_list(const char *opt, const char *s, const name_catalog_t *cat, int *idx,
                      int *weights, int *n, char *err, size_t errlen)
{
    char names[1024];
    *n = 0;
    const char *p = s;
    if (*p == '\0')
        goto empty;
    while (*p) {
        const char *comma = strchr(p, ',');
        size_t toklen = comma ? (size_t)(comma - p) : strlen(p);
        const char *colon = memchr(p, ':', toklen);
        size_t namelen = colon ? (size_t)(colon - p) : toklen;
        if (namelen == 0)
            goto empty;
        int id = catalog_find(cat, p, namelen);
        if (id < 0) {
            catalog_list(cat, names, sizeof(names));
            return fail(err, errlen, "%s: unknown name '%.*s' (known: %s)", opt, (int)namelen, p,
                        names);
        }
        for (int j = 0; j < *n; j++)
            if (idx[j] == id)
                return fail(err, errlen, "%s: '%s' is listed twice", opt, cat->ids[id]);
        long w = 1;
        if (colon) {
            char wbuf[32];
            size_t wl = toklen - namelen - 1;
            if (!weights)
                return fail(err, errlen, "%s: weights (name:N) are not accepted here", opt);
            if (wl == 0 || wl >= sizeof(wbuf))
                return fail(err, errlen, "%s: bad weight in '%.*s'", opt, (int)toklen, p);
            memcpy(wbuf, colon + 1, wl);
            wbuf[wl] = '\0';
            if (option_whole(wbuf, &w) || w < 1 || w > 64)
                return fail(err, errlen, "%s: expected a whole number from 1 to 64, got '%s'",
                            opt, wbuf);
        }
        if (*n >= OPT_MAX_LIST)
            return fail(err, errlen, "%s: too many names", opt);
        idx[*n] = id;
        if (weights)
            weights[*n] = (int)w;
        (*n)++;
        if (!comma)
            break;
        p = comma + 1;
        if (*p == '\0')
            goto empty;
    }
    return 0;
empty:
    return fail(err, errlen, "%s: expected a comma-separated list of names, got '%s'", opt, s);
}

static int set_path(const char *opt, const char *s, char *dst, char *err, size_t errlen)
{
    if (*s == '\0')
        return fail(err, errlen, "%s: expected a path, got an empty string", opt);
    if (strlen(s) >= OPT_PATH_MAX)
        return fail(err, errlen, "%s: path is too long", opt);
    strcpy(dst, s);
    return 0;
}


/* "a number > 0 and <= 86400", "a multiple of 8 from 8 to 67108864 (...)". */
static void expectation(const opt_row_t *r, char *buf, size_t len)
{
    if (r->type == OT_DOUBLE) {
        snprintf(buf, len, "%s %s %g and %s %g%s", r->what ? r->what : "a number",
                 r->lo_open ? ">" : ">=", r->lo, r->hi_open ? "<" : "<=", r->hi,
                 r->note ? r->note : "");
    } else if (r->type == OT_CHOICE) {
        buf[0] = '\0';
        for (int i = 0; r->choices[i]; i++)
            snprintf(buf + strlen(buf), len - strlen(buf), "%s'%s'",
                     i == 0 ? "" : r->choices[i + 1] ? ", " : " or ", r->choices[i]);
    } else {
        char what[64] = "a whole number";
        if (r->multiple > 1)
            snprintf(what, sizeof(what), "a multiple of %ld", r->multiple);
        snprintf(buf, len, "%s from %ld to %ld%s", what, (long)r->lo, (long)r->hi,
                 r->note ? r->note : "");
    }
}

static int bad_value(const opt_row_t *r, const char *opt, const char *val, char *err,
                     size_t errlen)
{
    char expect[256];
    expectation(r, expect, sizeof(expect));
    return fail(err, errlen, "%s: expected %s, got '%s'", opt, expect, val);
}

static int in_limits(const opt_row_t *r, double v)
{
    return (r->lo_open ? v > r->lo : v >= r->lo) && (r->hi_open ? v < r->hi : v <= r->hi);
}

/* Validate val for row r and store it in o. */
static int apply(options_t *o, const opt_row_t *r, const char *opt, const char *val,
                 const name_catalog_t *tests, const name_catalog_t *congestors, char *err,
                 size_t errlen)
{
    void *f = option_field(o, r);
    int *given = r->given != OPT_NO_FIELD ? (int *)((char *)o + r->given) : NULL;
    long l = 0;
    double d = 0.0;
    switch (r->type) {
    case OT_FLAG:
        *(int *)f = 1;
        return 0;
    case OT_PATH:
        return set_path(opt, val, (char *)f, err, errlen);
    case OT_BURST:
        return option_burst_parse(opt, val, (double *)f, err, errlen);
    case OT_BURST_SWEEP:
        return option_burst_sweep_parse(opt, val, (burst_sweep_t *)f, err, errlen);
    case OT_TESTS:
        return parse_list(opt, val, tests, o->tests, NULL, &o->n_tests, err, errlen);
    case OT_CONGESTORS:
        return parse_list(opt, val, congestors, o->congestors, o->congestor_weights,
                          &o->n_congestors, err, errlen);
    case OT_CHOICE:
        for (int i = 0; r->choices[i]; i++)
            if (strcmp(val, r->choices[i]) == 0) {
                *(int *)f = i;
                return 0;
            }
        return bad_value(r, opt, val, err, errlen);
    case OT_DOUBLE:
        if (option_decimal(val, strlen(val), &d) || !in_limits(r, d))
            return bad_value(r, opt, val, err, errlen);
        *(double *)f = d;
        break;
    default:
        if (r->keyword && strcmp(val, r->keyword) == 0) {
            *given = 0; /* the default (--seed time) */
            return 0;
        }
        if (option_whole(val, &l) || !in_limits(r, (double)l) ||
            (r->multiple > 1 && l % r->multiple != 0))
            return bad_value(r, opt, val, err, errlen);
        if (r->type == OT_INT)
            *(int *)f = (int)l;
        else if (r->type == OT_U64)
            *(uint64_t *)f = (uint64_t)l;
        else
            *(long *)f = l;
    }
    if (given)
        *given = 1;
    return 0;
}

void options_defaults(options_t *o, program_t program)
{
    memset(o, 0, sizeof(*o));
    o->program = program;
    option_rows_defaults(o); /* the kernels' structs, as their files initialise them */
    for (int i = 0; i < option_count(); i++) {
        const opt_row_t *r = option_row(i);
        if (r->variant || r->field == OPT_NO_FIELD)
            continue;
        void *f = option_field(o, r);
        if (r->type == OT_INT || r->type == OT_CHOICE)
            *(int *)f = (int)r->def;
        else if (r->type == OT_LONG)
            *(long *)f = (long)r->def;
        else if (r->type == OT_U64)
            *(uint64_t *)f = (uint64_t)r->def;
        else if (r->type == OT_DOUBLE)
            *(double *)f = r->def;
        else if (r->type == OT_PATH && r->def_text)
            snprintf((char *)f, OPT_PATH_MAX, "%s", r->def_text);
    }
}

static const char *scope_text(int scope)
{
    switch (scope) {
    case OPT_LT:
        return "network_load_test only";
    case OPT_NC:
        return "network_congestor only";
    case OPT_LT | OPT_NC:
        return "network_load_test and network_congestor only";
    default:
        return "network_test and network_load_test only";
    }
}

/* Options that cannot be used together, and why. */
static const struct {
    const char *a, *b, *why;
} exclusive[] = {
    {"--emulate-nodes", "--emulate-node-count", ""},
    {"--flows", "--congestors", " (the flows are the traffic)"},
};

static int check_exclusive(const options_t *o, char *err, size_t errlen)
{
    for (size_t i = 0; i < sizeof(exclusive) / sizeof(exclusive[0]); i++) {
        const opt_row_t *a = option_find(exclusive[i].a), *b = option_find(exclusive[i].b);
        int b_set = b->type == OT_CONGESTORS ? o->n_congestors > 0 : option_differs(o, b);
        if (option_differs(o, a) && b_set)
            return fail(err, errlen, "%s and %s exclude each other%s", a->name, b->name,
                        exclusive[i].why);
    }
    return 0;
}

/* The probe runs inside the deadline's last seconds. */
static int check_fault_probe(const options_t *o, char *err, size_t errlen)
{
    if (o->set.fault_probe <= 0.0)
        return 0;
    if (o->set.deadline <= 0.0)
        return fail(err, errlen, "--fault-probe needs --deadline (the probe runs SEC seconds "
                                 "before it)");
    if (o->set.fault_probe >= o->set.deadline)
        return fail(err, errlen, "--fault-probe %g must be shorter than --deadline %g",
                    o->set.fault_probe, o->set.deadline);
    return 0;
}

/* A canary fraction so small that no job placement considers (up to
 * 999999 nodes, placement_min_nodes) gets its 2 canary nodes: 1e-300
 * leaves none on any (1 - f rounds to 1). Refused here, with the range
 * that works, instead of a node count the run could never have. */
#define CANARY_NODES_MAX 999999
static int check_canary_fraction(const options_t *o, char *err, size_t errlen)
{
    if (placement_min_nodes(o->set.canary_fraction, 0) > 0)
        return 0;
    return fail(err, errlen,
                "--canary-fraction: %g leaves fewer than 2 canary nodes on any job of up to %d "
                "nodes; expected a number of about %g or more, and <= 0.9",
                o->set.canary_fraction, CANARY_NODES_MAX, 2.0 / CANARY_NODES_MAX);
}

opt_status_t options_parse(options_t *o, program_t program, int argc, char **argv,
                           const name_catalog_t *tests, const name_catalog_t *congestors,
                           char *err, size_t errlen)
{
    options_defaults(o, program);
    err[0] = '\0';
    int want_help = 0, want_version = 0;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        char name[64];
        const char *val = NULL;
        const char *eq = strncmp(arg, "--", 2) == 0 ? strchr(arg, '=') : NULL;
        size_t nlen = eq ? (size_t)(eq - arg) : strlen(arg);
        if (nlen >= sizeof(name)) {
            fail(err, errlen, "unknown option '%.40s...'", arg);
            return OPT_ERROR;
        }
        memcpy(name, arg, nlen);
        name[nlen] = '\0';
        const opt_row_t *row = option_lookup(name, program);
        if (!row) {
            if (arg[0] == '-')
                fail(err, errlen, "unknown option '%s'", name);
            else
                fail(err, errlen, "unexpected argument '%s' (options start with --)", arg);
            return OPT_ERROR;
        }
        if (!(row->scope & option_program_bit(program))) {
            fail(err, errlen, "%s applies to %s", name, scope_text(option_scope(name)));
            return OPT_ERROR;
        }
        if (row->variant)
            row = option_find(row->name);
        if (row->metavar) {
            if (eq) {
                val = eq + 1;
            } else if (i + 1 < argc && strncmp(argv[i + 1], "--", 2) != 0) {
                val = argv[++i];
            } else if (i + 1 < argc) {
                fail(err, errlen, "%s needs a value (got option '%s' instead)", name, argv[i + 1]);
                return OPT_ERROR;
            } else {
                fail(err, errlen, "%s needs a value", name);
                return OPT_ERROR;
            }
        } else if (eq) {
            fail(err, errlen, "%s takes no value", name);
            return OPT_ERROR;
        }
        if (row->type == OT_HELP)
            want_help = 1;
        else if (row->type == OT_VERSION)
            want_version = 1;
        else if (apply(o, row, name, val, tests, congestors, err, errlen))
            return OPT_ERROR;
    }
    if (check_exclusive(o, err, errlen) || option_burst_check(o, err, errlen) ||
        check_fault_probe(o, err, errlen) || check_canary_fraction(o, err, errlen))
        return OPT_ERROR;
    if (want_help)
        return OPT_HELP;
    if (want_version)
        return OPT_VERSION;
    return OPT_RUN;
}

int options_non_default(const options_t *o, program_t program, int tests_default,
                        int congestors_default, const option_runs_t *runs, char *buf, size_t len)
{
    const char *keys[OPT_MAX_KEYS];
    int n_keys = option_keys(OPT_ORDER_OFFICIAL, NULL, 0, keys, OPT_MAX_KEYS), n = 0;
    buf[0] = '\0';
    for (int k = 0; k < n_keys; k++) {
        int differs = 0;
        for (int i = 0; i < option_count(); i++) {
            const opt_row_t *r = option_row(i);
            if (r->variant || !r->key || strcmp(r->key, keys[k]) != 0 ||
                !(r->official & option_program_bit(program)))
                continue;
            const kernel_options_t *set = option_row_kernel(r, NULL);
            if (set && runs && !runs->kernel_runs(runs->ctx, set))
                continue;
            differs |= r->type == OT_TESTS        ? !tests_default
                       : r->type == OT_CONGESTORS ? !congestors_default
                                                  : option_differs(o, r);
        }
        if (differs) {
            n++;
            snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", n > 1 ? ", " : "", keys[k]);
        }
    }
    return n;
}
