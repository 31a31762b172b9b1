/* Never hang, never lose what finished: a deadline for the whole job and
 * a clean word on SIGINT/SIGTERM. Finished phases are already on disk (the
 * JSON is rewritten after every phase), so the handlers only have to say
 * so and leave; the launcher (mpirun, srun) then ends the other ranks. */
#ifndef GPCNET_WATCHDOG_H
#define GPCNET_WATCHDOG_H

/* deadline_s > 0 arms the deadline on every rank. Exit codes: 124 for the
 * deadline (as timeout(1)), 128 + signal number for signals. */
void watchdog_start(int rank, double deadline_s, const char *json_path);

#endif
