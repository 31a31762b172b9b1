/* Never hang, never lose what finished: a deadline for the whole job and
 * a clean word on SIGINT/SIGTERM. Finished phases are already on disk (the
 * JSON is rewritten after every phase), so the handlers only mark that
 * file as aborted (rank 0: "status": "aborted", "abort_reason",
 * "finished_at"; written to a new file and renamed over the old one, so the
 * file stays complete), say so and leave; the launcher (mpirun, srun) then
 * ends the other ranks. See docs/reliability.md. The file's marks are
 * written by abort_mark.c; watchdog_note_tmp, _step and _failure hand it
 * what they need. */
#ifndef GPCNET_WATCHDOG_H
#define GPCNET_WATCHDOG_H

/* Ranks other than 0 reach the deadline this much later, so that rank 0
 * (which writes the results) is the one that ends the job and says why. */
#define WATCHDOG_FOLLOW_S 1.0

/* deadline_s > 0 arms the deadline on every rank. Exit codes: 124 for the
 * deadline (as timeout(1)), 128 + signal number for signals. */
void watchdog_start(int rank, double deadline_s, const char *json_path);

/* The results writer's temporary file while it is being written (NULL when
 * there is none): a handler that ends the run removes it. */
void watchdog_note_tmp(const char *tmp);

/* The step the run is in ("with congestion: RR Two-sided Lat (8 B)"): an
 * aborted document names it in "aborted_in". Called by progress_step on
 * every rank, whether progress is printed or not; phase NULL: between
 * steps (the step's results are saved), nothing to name. */
void watchdog_note_step(const char *phase, const char *what);

/* JSON members (no leading comma) an aborted document gets after
 * "aborted_in": what --fault-probe found (fault_probe.h). Kept once. */
void watchdog_note_failure(const char *members);

/* --fault-probe (fault_probe.h). With fd set, a SIGTERM marks the file as
 * always, writes 'T' to fd and returns, leaving the end to the probe's
 * thread, which asks who is still there and then calls
 * watchdog_probe_finish; should it not, the process ends
 * WATCHDOG_PROBE_BACKSTOP_S seconds after the signal all the same. */
#define WATCHDOG_PROBE_BACKSTOP_S 3
void watchdog_set_probe(int fd);
/* The probe's deadline round has begun: a SIGTERM from now on ends the
 * process at once, as without the probe. */
void watchdog_probe_busy(void);
/* After such a SIGTERM: the run is over, whatever the main thread does
 * until the probe ends the process; it saves nothing more. */
int watchdog_ending(void);
/* From the probe's thread after its SIGTERM round: rank 0 adds what it
 * found (watchdog_note_failure) to the file; the others wait for the
 * length of rank 0's round (it may have started later) and a little more;
 * every rank exits 128+SIGTERM. */
void watchdog_probe_finish(double rank0_round_s);

#endif
