/* --burst ON,OFF and the checks that tie the burst options to the others
 * (docs/congestion-studies.md#bursty-congestion). Pure, as option_parse.c. */
#ifndef GPCNET_OPTION_BURST_H
#define GPCNET_OPTION_BURST_H

#include <stddef.h>

#include "suite/options.h"

/* Longest ON or OFF accepted, in seconds (a day, as --time-limit). */
#define BURST_MAX_SECONDS 86400.0

/* "50ms,200ms" -> on_off = {0.05, 0.2}; units us, ms, s (a bare number is
 * seconds). ON > 0, OFF >= 0. On error, err holds one line naming opt. */
int option_burst_parse(const char *opt, const char *val, double on_off[2], char *err,
                       size_t errlen);

/* After every option is read: --burst-jitter needs --burst, and an ON
 * period must be shorter than a test's time limit (load test) or than
 * --duration (network_congestor). */
int option_burst_check(const options_t *o, char *err, size_t errlen);

#endif
