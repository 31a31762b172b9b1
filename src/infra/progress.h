/* Progress lines on stderr from world rank 0 (silenced by --quiet): a
 * full-system run takes many minutes, and users must see it is alive. */
#ifndef GPCNET_PROGRESS_H
#define GPCNET_PROGRESS_H

void progress_init(int enabled, double t0, int n_steps);
/* A new step (test or phase) starts; counts towards n_steps. */
void progress_step(const char *phase, const char *what, double time_limit);
/* Called at every measurement with the seconds spent in the current test;
 * prints at most every few seconds. Cheap when disabled. */
void progress_heartbeat(double elapsed_in_test);
/* A line of its own about a phase outside the steps (e.g. network_test
 * --all-pairs, its shifts): always when first, otherwise at most every
 * few seconds. Cheap when disabled. */
void progress_note(int first, const char *fmt, ...);
/* --converge: how a test ended and the precision it reached (relative 95%
 * half-widths, inf or NaN: too few batches to tell). */
void progress_converge(const char *test, int converged, double avg_precision,
                       double tail_precision, double tol);

#endif
