/* network_load_test beside a congestor job of its own
 * (docs/traffic_classes.md#separate-jobs): --congestor-job-start PATH and
 * --congestor-job-stop PATH. Every node of this job runs canaries; the
 * congestors are a network_congestor job started with --start-file and
 * --stop-file on the same paths, in its own environment (class, route).
 * This job measures isolated, creates the start file, waits
 * --congestor-job-settle seconds (network_congestor writes nothing when it
 * starts congesting, so the wait is a fixed one), measures the same tests
 * loaded and creates the stop file. The tables and the Congestion Impact
 * are the published ones; roles.source says "separate_job". */
#ifndef GPCNET_CONGESTOR_JOB_H
#define GPCNET_CONGESTOR_JOB_H

#include "infra/json_writer.h"
#include "suite/run_context.h"

/* Collective, in run_init before anything is created: without the options
 * nothing happens and 0 is returned. Otherwise refuses, with one line and
 * exit 2 on every rank, a half-given pair, options that need congestors in
 * this job, fewer than 2 nodes, and a start or stop path that exists
 * already (in any form, a link included), lies in a directory that does
 * not exist or is reached through a link; returns 1. */
int congestor_job_init(run_t *run);
/* 1 when the congestors are a separate job (the same on every rank). */
int congestor_job_active(void);
/* Rank 0 arms the stop file: from here on it is created however this job
 * ends (infra/exit_file.h). */
void congestor_job_arm_stop(const run_t *run);
/* Collective: rank 0 creates the start file, then every rank waits the
 * settle time. A start file that cannot be created ends the job (exit 1,
 * the stop file created). */
void congestor_job_signal_start(run_t *run);
/* Rank 0 creates the stop file (a line on stderr when it cannot). */
void congestor_job_signal_stop(const run_t *run);
/* The preamble's congestor line. */
void congestor_job_preamble_line(char *buf, size_t len);
/* The "roles" member of the results document (a run_json_section_t). */
void congestor_job_roles_json(json_writer_t *w, const run_t *run, const void *ctx);

#endif
