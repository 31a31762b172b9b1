/* Bursts and timelines in the load test (docs/experiments.md
 * #bursty-congestion): the congestors' common start of each loaded test,
 * and with --timeline the canaries' values over time, merged per test and
 * kept on world rank 0 for the results JSON ("timeline", docs/results-json.md). */
#ifndef GPCNET_LOAD_TIMELINE_H
#define GPCNET_LOAD_TIMELINE_H

#include "canary/timeline.h"
#include "infra/burst_recovery.h"
#include "suite/load_roles.h"
#include "suite/run_context.h"

/* One loaded test's clock. Inactive (no barrier, nothing recorded) unless
 * --burst, --burst-intensity or --timeline is given. */
typedef struct {
    int active;
    burst_run_t burst;   /* the schedule and this rank's t0 */
    timeline_t *tl;      /* canary ranks of a test, with --timeline */
    double spread_s;     /* max - min of the ranks' t0 (meaningful on one host's clock) */
    int schedule_agreed; /* every rank derived the same schedule */
    double epoch_s;      /* world rank 0: wall clock (seconds since 1970) at its t0 */
} load_bursts_t;

/* One loaded test's merged timeline, on world rank 0. */
typedef struct {
    char table[96], test_id[32], unit[16];
    int repetition, higher_is_better;
    double spread_s;
    int schedule_agreed;
    double epoch_s;   /* wall clock of the common start, to line up outside series */
    double reference; /* the isolated Avg */
    double width;
    int first, n_bins; /* bins first .. first + n_bins - 1 (the ones with values) */
    double *mean, *count, *on; /* [n_bins]; on: share of the bin in ON periods */
    double during[3], between[3]; /* Avg, 99%, values */
    recovery_t recovery;
} timeline_record_t;

typedef struct {
    int n, cap;
    timeline_record_t *rec;
} load_timeline_t;

/* Collective over world: the common start (a barrier, then each rank's
 * clock) when active, for the congestors' burst shape of the phase. */
void load_bursts_begin(run_t *run, const roles_t *ro, const burst_shape_t *shape,
                       load_bursts_t *b);
/* Collective over world: with --timeline, merge the canaries' timelines and
 * record them on world rank 0 in store (table: the results table of the
 * test, t: the test). Frees b. */
void load_bursts_end(run_t *run, const roles_t *ro, load_bursts_t *b, load_timeline_t *store,
                     int t, const char *table);

/* The results document's "timeline" member (run_json_section_t). */
void load_timeline_json(json_writer_t *w, const run_t *run, const void *store);
void load_timeline_free(load_timeline_t *store);

#endif
