/* A file this process creates when it ends, however it ends: a canary job
 * that signals a congestor job of its own (network_load_test
 * --congestor-job-stop) creates the congestor job's stop file at its end,
 * and must do so also when it is aborted, or the other job would congest
 * until its own --duration. Armed on one rank; created at exit (atexit),
 * by the watchdog's handlers (a signal, --deadline) and by die() before
 * MPI_Abort. Pure POSIX, no MPI. */
#ifndef GPCNET_EXIT_FILE_H
#define GPCNET_EXIT_FILE_H

/* Arm: `path` (copied) is created at the end unless created already. */
void exit_file_arm(const char *path);
/* Create it now (at most once; never through a link, never an existing
 * name: O_CREAT|O_EXCL|O_NOFOLLOW). 0 when created now or before, -1 with
 * errno when it could not be (EEXIST: something else has the name).
 * Async-signal-safe; nothing when not armed (returns 0). */
int exit_file_create(void);

#endif
