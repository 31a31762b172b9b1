/* What network_congestor reports (world rank 0): the preamble, a bandwidth
 * line per kernel every --report-interval, the summary table and the JSON
 * section "congestor_run". */
#ifndef GPCNET_CONGESTOR_REPORT_H
#define GPCNET_CONGESTOR_REPORT_H

#include "infra/json_writer.h"
#include "suite/run_context.h"

typedef enum { STOP_NONE, STOP_DURATION, STOP_SIGNAL, STOP_FILE } congestor_stop_t;

typedef struct {
    double t;     /* seconds since congesting began */
    int kernel;
    double mib_s; /* MiB/s per reporting rank over the interval */
} congestor_interval_t;

typedef struct congestor_report {
    congestor_stop_t stop;
    int signal;
    double waited_s;  /* for --start-file */
    double elapsed_s; /* congesting */
    int finished;
    double *bytes;      /* [kernel] total bytes moved */
    double *reporters;  /* [kernel] ranks that report a bandwidth */
    int *ranks, *nodes; /* [kernel] */
    int n_flows;        /* --flows: the flows of the list */
    int flow_busiest;   /* --flows: the most flows of one node */
    int flow_round;     /* --flows: iterations per round (flows_round_iterations) */
    double last_t;
    double *last_bytes; /* [kernel] at the previous report */
    int n_reports, cap_reports;
    congestor_interval_t *reports;
    /* Rank 0, once stopped: per world rank [bytes, reporting (0/1), kernel]. */
    double *per_rank;
} congestor_report_t;

#define CONGESTOR_RANK_FIELDS 3

void congestor_report_init(run_t *run, congestor_report_t *cr);
void congestor_report_free(congestor_report_t *cr);
void congestor_report_preamble(const run_t *run, const congestor_report_t *cr);
/* Rank 0: sums = [bytes per kernel, reporting ranks per kernel]. */
void congestor_report_interval(run_t *run, congestor_report_t *cr, const double *sums, double t);
/* Collective over world, before the finish: each rank's own bytes, whether
 * it reports a bandwidth and its kernel, kept on rank 0 for the JSON. */
void congestor_report_gather_ranks(const run_t *run, congestor_report_t *cr, double bytes,
                                   int reporting, int kernel);
/* Rank 0: the summary and the final JSON (sums NULL: never started). */
void congestor_report_finish(run_t *run, congestor_report_t *cr, const double *sums, double t);
/* The JSON member "congestor_run" (congestor_report_init adds it to the
 * results document). */
void congestor_report_json(json_writer_t *w, const run_t *run, const void *cr);

#endif
