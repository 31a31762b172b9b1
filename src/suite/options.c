#include "infra/options.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *program_name(program_t program)
{
    switch (program) {
    case PROGRAM_NETWORK_TEST:
        return "network_test";
    case PROGRAM_NETWORK_LOAD_TEST:
        return "network_load_test";
    default:
        return "network_congestor";
    }
}

void options_defaults(options_t *o, program_t program)
{
    memset(o, 0, sizeof(*o));
    o->program = program;
    o->ring_seed = 1000;
    o->canary_fraction = 0.2;
    o->time_limit = 10.0;
    o->measurements = o->rings = o->iterations = o->warmup = -1;
    o->congestor_measurements = o->congestor_iterations = -1;
    o->nics_per_node = 1;
    o->repeat = 1;
    o->congestor_bytes = 4096;
    o->report_interval = 5.0;
    strcpy(o->output_dir, ".");
}

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

static int parse_long(const char *opt, const char *s, long lo, long hi, long *out,
                      char *err, size_t errlen)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || errno == ERANGE || v < lo || v > hi)
        return fail(err, errlen, "%s: expected a whole number from %ld to %ld, got '%s'",
                    opt, lo, hi, s);
    *out = v;
    return 0;
}

static int parse_double(const char *opt, const char *s, double lo, double hi, int open_lo,
                        double *out, char *err, size_t errlen)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (*s == '\0' || *end != '\0' || errno == ERANGE || !isfinite(v) || v > hi ||
        (open_lo ? v <= lo : v < lo))
        return fail(err, errlen, "%s: expected a number %s %g and <= %g, got '%s'", opt,
                    open_lo ? ">" : ">=", lo, hi, s);
    *out = v;
    return 0;
}

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
            if (parse_long(opt, wbuf, 1, 64, &w, err, errlen))
                return -1;
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

/* Which programs take an option. */
enum { NT = 1, LT = 2, NC = 4, ANY = NT | LT | NC, MEASURING = NT | LT };

typedef struct {
    const char *name;
    int takes_value;
    int scope;
} opt_spec_t;

static const opt_spec_t specs[] = {
    {"--help", 0, ANY},          {"-h", 0, ANY},
    {"--version", 0, ANY},       {"--verbose", 0, MEASURING},
    {"-v", 0, MEASURING},        {"--quiet", 0, ANY},
    {"-q", 0, ANY},              {"--force", 0, ANY},
    {"--seed", 1, LT | NC},      {"--ring-seed", 1, MEASURING},
    {"--canary-fraction", 1, LT},
    {"--congestors", 1, LT | NC},
    {"--tests", 1, MEASURING},   {"--time-limit", 1, MEASURING},
    {"--measurements", 1, MEASURING}, {"--rings", 1, MEASURING},
    {"--iterations", 1, MEASURING},   {"--warmup", 1, MEASURING},
    {"--congestor-measurements", 1, LT},
    {"--congestor-iterations", 1, LT | NC},
    {"--nics-per-node", 1, MEASURING}, {"--emulate-nodes", 1, ANY},
    {"--emulate-node-count", 1, ANY},
    {"--json", 1, ANY},          {"--output-dir", 1, ANY},
    {"--deadline", 1, ANY},
    {"--congestor-sweep", 0, LT}, {"--repeat", 1, LT},
    {"--converge", 1, MEASURING}, {"--congestor-bytes", 1, LT | NC},
    {"--placement", 1, LT},
    {"--duration", 1, NC},       {"--report-interval", 1, NC},
    {"--start-file", 1, NC},     {"--stop-file", 1, NC},
    {"--flows", 1, NC},
};

static int scope_of(program_t program)
{
    return program == PROGRAM_NETWORK_TEST ? NT : program == PROGRAM_NETWORK_LOAD_TEST ? LT : NC;
}

static const char *scope_text(int scope)
{
    switch (scope) {
    case LT:
        return "network_load_test only";
    case NC:
        return "network_congestor only";
    case LT | NC:
        return "network_load_test and network_congestor only";
    default:
        return "network_test and network_load_test only";
    }
}

static int apply(options_t *o, const char *opt, const char *val, const name_catalog_t *tests,
                 const name_catalog_t *congestors, char *err, size_t errlen)
{
    long l = 0;
    double d = 0.0;
#define IS(x) (strcmp(opt, x) == 0)
    if (IS("--verbose") || IS("-v")) {
        o->verbose = 1;
    } else if (IS("--quiet") || IS("-q")) {
        o->quiet = 1;
    } else if (IS("--force")) {
        o->force = 1;
    } else if (IS("--seed")) {
        if (strcmp(val, "time") == 0) {
            o->seed_given = 0;
            return 0;
        }
        if (parse_long(opt, val, 0, 2147483647L, &l, err, errlen))
            return -1;
        o->seed = (uint64_t)l;
        o->seed_given = 1;
    } else if (IS("--ring-seed")) {
        if (parse_long(opt, val, 0, 2147483647L, &l, err, errlen))
            return -1;
        o->ring_seed = (uint64_t)l;
        o->ring_seed_given = 1;
    } else if (IS("--canary-fraction")) {
        if (parse_double(opt, val, 0.0, 0.9, 1, &d, err, errlen))
            return -1;
        o->canary_fraction = d;
        o->canary_fraction_given = 1;
    } else if (IS("--congestors")) {
        return parse_list(opt, val, congestors, o->congestors, o->congestor_weights,
                          &o->n_congestors, err, errlen);
    } else if (IS("--tests")) {
        return parse_list(opt, val, tests, o->tests, NULL, &o->n_tests, err, errlen);
    } else if (IS("--time-limit")) {
        if (parse_double(opt, val, 0.0, 86400.0, 1, &d, err, errlen))
            return -1;
        o->time_limit = d;
        o->time_limit_given = 1;
    } else if (IS("--measurements")) {
        return parse_long(opt, val, 1, 10000000L, &o->measurements, err, errlen);
    } else if (IS("--rings")) {
        return parse_long(opt, val, 1, 100000L, &o->rings, err, errlen);
    } else if (IS("--iterations")) {
        return parse_long(opt, val, 1, 10000000L, &o->iterations, err, errlen);
    } else if (IS("--warmup")) {
        return parse_long(opt, val, 0, 10000000L, &o->warmup, err, errlen);
    } else if (IS("--congestor-measurements")) {
        return parse_long(opt, val, 1, 10000000L, &o->congestor_measurements, err, errlen);
    } else if (IS("--congestor-iterations")) {
        return parse_long(opt, val, 1, 10000000L, &o->congestor_iterations, err, errlen);
    } else if (IS("--nics-per-node")) {
        if (parse_long(opt, val, 1, 1024, &l, err, errlen))
            return -1;
        o->nics_per_node = (int)l;
    } else if (IS("--emulate-nodes")) {
        if (parse_long(opt, val, 1, 1000000L, &l, err, errlen))
            return -1;
        o->emulate_ppn = (int)l;
    } else if (IS("--emulate-node-count")) {
        if (parse_long(opt, val, 1, 1000000L, &l, err, errlen))
            return -1;
        o->emulate_nodes = (int)l;
    } else if (IS("--json")) {
        return set_path(opt, val, o->json_path, err, errlen);
    } else if (IS("--output-dir")) {
        return set_path(opt, val, o->output_dir, err, errlen);
    } else if (IS("--deadline")) {
        if (parse_double(opt, val, 0.0, 1e7, 1, &d, err, errlen))
            return -1;
        o->deadline = d;
    } else if (IS("--congestor-sweep")) {
        o->congestor_sweep = 1;
    } else if (IS("--repeat")) {
        if (parse_long(opt, val, 1, 1000, &l, err, errlen))
            return -1;
        o->repeat = (int)l;
    } else if (IS("--converge")) {
        if (parse_double(opt, val, 0.0, 1.0, 1, &d, err, errlen) || d >= 1.0)
            return fail(err, errlen, "%s: expected a relative tolerance > 0 and < 1 (e.g. 0.05), "
                        "got '%s'", opt, val);
        o->converge = d;
    } else if (IS("--congestor-bytes")) {
        if (parse_long(opt, val, 8, 64L * 1024 * 1024, &l, err, errlen) || l % 8 != 0)
            return fail(err, errlen, "%s: expected a multiple of 8 from 8 to 67108864 (bytes "
                        "of doubles), got '%s'", opt, val);
        o->congestor_bytes = l;
    } else if (IS("--placement")) {
        if (strcmp(val, "split") == 0)
            o->placement = PLACEMENT_SPLIT;
        else if (strcmp(val, "colocated") == 0)
            o->placement = PLACEMENT_COLOCATED;
        else
            return fail(err, errlen, "%s: expected 'split' or 'colocated', got '%s'", opt, val);
    } else if (IS("--duration")) {
        if (parse_double(opt, val, 0.0, 1e7, 1, &d, err, errlen))
            return -1;
        o->duration = d;
    } else if (IS("--report-interval")) {
        if (parse_double(opt, val, 0.0, 86400.0, 1, &d, err, errlen))
            return -1;
        o->report_interval = d;
    } else if (IS("--start-file")) {
        return set_path(opt, val, o->start_file, err, errlen);
    } else if (IS("--stop-file")) {
        return set_path(opt, val, o->stop_file, err, errlen);
    } else if (IS("--flows")) {
        return set_path(opt, val, o->flows, err, errlen);
    }
#undef IS
    return 0;
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
        const opt_spec_t *spec = NULL;
        for (size_t k = 0; k < sizeof(specs) / sizeof(specs[0]); k++)
            if (strcmp(specs[k].name, name) == 0)
                spec = &specs[k];
        if (!spec) {
            if (arg[0] == '-')
                fail(err, errlen, "unknown option '%s'", name);
            else
                fail(err, errlen, "unexpected argument '%s' (options start with --)", arg);
            return OPT_ERROR;
        }
        if (!(spec->scope & scope_of(program))) {
            fail(err, errlen, "%s applies to %s", name, scope_text(spec->scope));
            return OPT_ERROR;
        }
        if (spec->takes_value) {
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
        if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0)
            want_help = 1;
        else if (strcmp(name, "--version") == 0)
            want_version = 1;
        else if (apply(o, name, val, tests, congestors, err, errlen))
            return OPT_ERROR;
    }
    if (o->emulate_ppn && o->emulate_nodes) {
        fail(err, errlen, "--emulate-nodes and --emulate-node-count exclude each other");
        return OPT_ERROR;
    }
    if (o->flows[0] && o->n_congestors) {
        fail(err, errlen, "--flows and --congestors exclude each other (the flows are the traffic)");
        return OPT_ERROR;
    }
    if (want_help)
        return OPT_HELP;
    if (want_version)
        return OPT_VERSION;
    return OPT_RUN;
}
