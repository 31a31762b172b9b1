/* The results file's abort marks, for the watchdog's handlers (watchdog.h):
 * async-signal-safe, one caller at a time. */
#ifndef GPCNET_ABORT_MARK_H
#define GPCNET_ABORT_MARK_H

void abort_mark_init(const char *json_path);
/* Whether the results file exists (a phase has finished): 1, 0 when
 * nothing has the name, -1 when something other than a regular file has
 * it (put there by someone else during the run: it is never opened). */
int abort_mark_kept(void);
/* First aid, in case the launcher kills us a moment from now: "running"
 * becomes "aborted" in place (same length, one small write). */
void abort_mark_flip(void);
/* "abort_reason", "aborted_in" (the step noted last), the probe's failure
 * members if noted, "finished_at"; the file is rewritten whole (into
 * "<json>.abort", or another fresh name when that one is held by a
 * directory) and renamed over the old one. When it cannot be, a line on
 * stderr says so; the first aid's "aborted" stays. */
void abort_mark_write(const char *reason);
/* The probe's failure members into a file marked already (after a SIGTERM). */
void abort_mark_amend_failure(void);

/* What the marks need, kept beside the handlers (watchdog_note_tmp,
 * _step and _failure in watchdog.h, which forward here). */
void abort_mark_note_tmp(const char *tmp);
void abort_mark_note_step(const char *phase, const char *what);
void abort_mark_note_failure(const char *members);

#endif
