#include "suite/option_burst.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One duration: a number and an optional unit, into seconds. */
static int duration(const char *s, size_t len, double *out)
{
    char buf[64];
    if (len == 0 || len >= sizeof(buf))
        return -1;
    memcpy(buf, s, len);
    buf[len] = '\0';
    char *end;
    errno = 0;
    double v = strtod(buf, &end);
    if (end == buf || errno == ERANGE || !isfinite(v))
        return -1;
    double scale = strcmp(end, "us") == 0   ? 1e-6
                   : strcmp(end, "ms") == 0 ? 1e-3
                   : strcmp(end, "s") == 0 || *end == '\0' ? 1.0
                                                           : -1.0;
    if (scale < 0.0)
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

int option_burst_check(const options_t *o, char *err, size_t errlen)
{
    int bursty = o->burst[0] > 0.0;
    if (!bursty && o->burst_jitter > 0.0) {
        snprintf(err, errlen, "--burst-jitter needs --burst ON,OFF (there is no period to vary)");
        return -1;
    }
    if (!bursty)
        return 0;
    if (o->program == PROGRAM_NETWORK_LOAD_TEST && o->burst[0] >= o->time_limit) {
        snprintf(err, errlen,
                 "--burst: the ON period (%g s) must be shorter than the time limit (%g s per "
                 "test), or no test sees a burst end",
                 o->burst[0], o->time_limit);
        return -1;
    }
    if (o->program == PROGRAM_NETWORK_CONGESTOR && o->duration > 0.0 &&
        o->burst[0] >= o->duration) {
        snprintf(err, errlen,
                 "--burst: the ON period (%g s) must be shorter than --duration (%g s)",
                 o->burst[0], o->duration);
        return -1;
    }
    return 0;
}
