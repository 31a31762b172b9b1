/* --burst ON,OFF and the checks that tie the burst options to the others
 * (docs/experiments.md#bursty-congestion). Pure, as option_parse.c. */
#ifndef GPCNET_OPTION_BURST_H
#define GPCNET_OPTION_BURST_H

#include <stddef.h>
#include <stdio.h>

#include "infra/json_writer.h"
#include "suite/options/options.h"

/* Longest ON or OFF accepted, in seconds (a day, as --time-limit). */
#define BURST_MAX_SECONDS 86400.0

/* "50ms,200ms" -> on_off = {0.05, 0.2}; units us, ms, s (a bare number is
 * seconds). ON > 0, OFF >= 0. On error, err holds one line naming opt. */
int option_burst_parse(const char *opt, const char *val, double on_off[2], char *err,
                       size_t errlen);

/* "ON=10ms,50ms;OFF=50ms,200ms;INTENSITY=0.5,1" (keys in any case and
 * order; INTENSITY optional, default 1) -> g. Every value > 0, intensities
 * at most 1, 1 to BURST_SWEEP_MAX per list. On error, err holds one line. */
int option_burst_sweep_parse(const char *opt, const char *val, burst_sweep_t *g, char *err,
                             size_t errlen);

/* After every option is read: --burst-jitter needs --burst, and an ON
 * period must be shorter than a test's time limit (load test) or than
 * --duration (network_congestor); --burst-sweep stands alone (no --burst,
 * --burst-intensity or --congestor-sweep) and its longest ON is shorter
 * than the time limit. */
int option_burst_check(const options_t *o, char *err, size_t errlen);

/* The --burst-sweep grid with the jitter: the value of its settings line
 * ("ON (s) 0.01,0.05; OFF (s) 0.2; intensity 1; jitter 0") and its config
 * member under key (docs/results-json.md). */
void option_burst_sweep_show(FILE *f, const options_t *o);
void option_burst_sweep_json(json_writer_t *w, const char *key, const options_t *o);

#endif
