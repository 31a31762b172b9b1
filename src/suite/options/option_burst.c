#include "suite/options/option_burst.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "suite/options/option_number.h"

/* One duration: a decimal number (option_number.h) and an optional unit,
 * us, ms or s, into seconds. */
static int duration(const char *s, size_t len, double *out)
{
    double scale = 1.0;
    if (len >= 2 && (memcmp(s + len - 2, "us", 2) == 0 || memcmp(s + len - 2, "ms", 2) == 0)) {
        scale = s[len - 2] == 'u' ? 1e-6 : 1e-3;
        len -= 2;
    } else if (len >= 1 && s[len - 1] == 's') {
        len -= 1;
    }
    double v;
    if (option_decimal(s, len, &v))
        return -1;
    *out = v * scale;
    return 0;
}

int option_burst_parse(const char *opt, const char *val, double on_off[2], char *err,
                       size_t errlen)
{
    const char *comma = strchr(val, ',');
    double on = 0.0, off = 0.0;
    if (!comma || duration(val, (size_t)(comma - val), &on) ||
        duration(comma + 1, strlen(comma + 1), &off) || !(on > 0.0) || !(off >= 0.0) ||
        on > BURST_MAX_SECONDS || off > BURST_MAX_SECONDS) {
        snprintf(err, errlen,
                 "%s: expected ON,OFF durations such as 50ms,200ms (units us, ms, s; ON > 0, "
                 "OFF >= 0, each at most %g s), got '%s'",
                 opt, BURST_MAX_SECONDS, val);
        return -1;
    }
    on_off[0] = on;
    on_off[1] = off;
    return 0;
}

/* One list of the sweep: "10ms,50ms" (durations) or "0.5,1" (shares). */
static int sweep_list(const char *s, size_t len, int durations, double *out, int *n)
{
    *n = 0;
    while (len > 0 || *n == 0) {
        const char *comma = memchr(s, ',', len);
        size_t item = comma ? (size_t)(comma - s) : len;
        double v = 0.0;
        if (*n == BURST_SWEEP_MAX)
            return -1;
        if (durations) {
            if (duration(s, item, &v) || !(v > 0.0) || v > BURST_MAX_SECONDS)
                return -1;
        } else {
            if (option_decimal(s, item, &v) || !(v > 0.0 && v <= 1.0))
                return -1;
        }
        out[(*n)++] = v;
        if (!comma)
            break;
        len -= item + 1;
        s = comma + 1;
        if (len == 0)
            return -1; /* a trailing comma: an empty value */
    }
    return 0;
}

static int sweep_key(const char *s, size_t len, const char *key)
{
    size_t k = strlen(key);
    if (len != k)
        return 0;
    for (size_t i = 0; i < k; i++)
        if ((s[i] | 0x20) != (key[i] | 0x20))
            return 0;
    return 1;
}

int option_burst_sweep_parse(const char *opt, const char *val, burst_sweep_t *g, char *err,
                             size_t errlen)
{
    static const char *const keys[3] = {"ON", "OFF", "INTENSITY"};
    burst_sweep_t grid = {0, 0, 0, {0}, {0}, {0}};
    int *counts[3] = {&grid.n_on, &grid.n_off, &grid.n_intensity};
    double *lists[3] = {grid.on, grid.off, grid.intensity};
    const char *part = val;
    int seen[3] = {0, 0, 0};
    for (;;) {
        const char *semi = strchr(part, ';');
        size_t len = semi ? (size_t)(semi - part) : strlen(part);
        const char *eq = memchr(part, '=', len);
        int k = -1;
        for (int i = 0; i < 3 && eq; i++)
            if (sweep_key(part, (size_t)(eq - part), keys[i]))
                k = i;
        if (k < 0 || seen[k]) {
            snprintf(err, errlen,
                     "%s: expected ON=LIST;OFF=LIST[;INTENSITY=LIST], each key once, such as "
                     "'ON=10ms,50ms;OFF=50ms,200ms;INTENSITY=0.5,1', got '%s'",
                     opt, val);
            return -1;
        }
        seen[k] = 1;
        size_t vlen = len - (size_t)(eq + 1 - part);
        if (sweep_list(eq + 1, vlen, k < 2, lists[k], counts[k])) {
            if (k < 2)
                snprintf(err, errlen,
                         "%s: %s: expected 1 to %d durations > 0 separated by commas (units us, "
                         "ms, s; each at most %g s), got '%.*s'",
                         opt, keys[k], BURST_SWEEP_MAX, BURST_MAX_SECONDS, (int)vlen, eq + 1);
            else
                snprintf(err, errlen,
                         "%s: INTENSITY: expected 1 to %d shares of the full rate, each > 0 and "
                         "<= 1, separated by commas, got '%.*s'",
                         opt, BURST_SWEEP_MAX, (int)vlen, eq + 1);
            return -1;
        }
        if (!semi)
            break;
        part = semi + 1;
    }
    if (!seen[0] || !seen[1]) {
        snprintf(err, errlen, "%s: needs both ON=LIST and OFF=LIST, such as 'ON=10ms,50ms;"
                 "OFF=50ms,200ms' (INTENSITY=LIST is optional, default 1), got '%s'", opt, val);
        return -1;
    }
    if (!seen[2]) {
        grid.n_intensity = 1;
        grid.intensity[0] = 1.0;
    }
    *g = grid;
    return 0;
}

/* The sweep sets every cell's shape: the single-shape options and the
 * other sweep have no place beside it. */
static int burst_sweep_check(const options_t *o, char *err, size_t errlen)
{
    const burst_sweep_t *g = &o->burst_sweep;
    const char *other = o->burst[0] > 0.0              ? "--burst (each cell has its own ON,OFF)"
                        : o->burst_intensity != 1.0   ? "--burst-intensity (use INTENSITY=LIST)"
                        : o->set.congestor_sweep      ? "--congestor-sweep (one sweep per run)"
                                                      : NULL;
    if (other) {
        snprintf(err, errlen, "--burst-sweep cannot be combined with %s", other);
        return -1;
    }
    double longest = 0.0;
    for (int i = 0; i < g->n_on; i++)
        longest = fmax(longest, g->on[i]);
    if (longest >= o->set.time_limit) {
        snprintf(err, errlen,
                 "--burst-sweep: the longest ON period (%g s) must be shorter than the time limit "
                 "(%g s per test), or no test sees a burst end",
                 longest, o->set.time_limit);
        return -1;
    }
    return 0;
}

int option_burst_check(const options_t *o, char *err, size_t errlen)
{
    if (o->burst_sweep.n_on > 0)
        return burst_sweep_check(o, err, errlen);
    int bursty = o->burst[0] > 0.0;
    if (!bursty && o->burst_jitter > 0.0) {
        snprintf(err, errlen, "--burst-jitter needs --burst ON,OFF or --burst-sweep (there is no "
                              "period to vary)");
        return -1;
    }
    if (!bursty)
        return 0;
    if (o->program == PROGRAM_NETWORK_LOAD_TEST && o->burst[0] >= o->set.time_limit) {
        snprintf(err, errlen,
                 "--burst: the ON period (%g s) must be shorter than the time limit (%g s per "
                 "test), or no test sees a burst end",
                 o->burst[0], o->set.time_limit);
        return -1;
    }
    if (o->program == PROGRAM_NETWORK_CONGESTOR && o->set.duration > 0.0 &&
        o->burst[0] >= o->set.duration) {
        snprintf(err, errlen,
                 "--burst: the ON period (%g s) must be shorter than --duration (%g s)",
                 o->burst[0], o->set.duration);
        return -1;
    }
    return 0;
}

/* Lists in the order given. */
void option_burst_sweep_show(FILE *f, const options_t *o)
{
    const burst_sweep_t *g = &o->burst_sweep;
    const char *label[3] = {"ON (s)", "; OFF (s)", "; intensity"};
    const double *lists[3] = {g->on, g->off, g->intensity};
    const int counts[3] = {g->n_on, g->n_off, g->n_intensity};
    for (int l = 0; l < 3; l++)
        for (int i = 0; i < counts[l]; i++)
            fprintf(f, "%s%s%g", i ? "," : label[l], i ? "" : " ", lists[l][i]);
    fprintf(f, "; jitter %g", o->burst_jitter);
}

void option_burst_sweep_json(json_writer_t *w, const char *key, const options_t *o)
{
    const burst_sweep_t *g = &o->burst_sweep;
    const char *keys[3] = {"on_s", "off_s", "intensity"};
    const double *lists[3] = {g->on, g->off, g->intensity};
    const int counts[3] = {g->n_on, g->n_off, g->n_intensity};
    jw_object_begin(w, key);
    for (int l = 0; l < 3; l++) {
        jw_array_begin(w, keys[l]);
        for (int i = 0; i < counts[l]; i++)
            jw_number(w, NULL, lists[l][i]);
        jw_array_end(w);
    }
    jw_number(w, "jitter", o->burst_jitter);
    jw_object_end(w);
}
