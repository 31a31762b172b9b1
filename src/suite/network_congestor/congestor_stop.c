#define _POSIX_C_SOURCE 200809L
#include "suite/network_congestor/congestor_stop.h"

#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "infra/fatal.h"

static volatile sig_atomic_t stop_signal = 0;

static void on_stop_signal(int sig) { stop_signal = sig; }

/* A clean stop on SIGINT/SIGTERM: finish the round, agree, report. The
 * watchdog's handlers (immediate abort) stay for --deadline only. */
void congestor_stop_on_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

static int file_exists(const char *path) { return path[0] && access(path, F_OK) == 0; }

void congestor_stop_check_dir(run_t *run, const char *option, const char *path)
{
    char msg[OPT_PATH_MAX + 256] = "";
    if (path[0] && run->env.rank == 0) {
        char copy[OPT_PATH_MAX];
        snprintf(copy, sizeof(copy), "%s", path);
        const char *dir = dirname(copy);
        struct stat st;
        if (stat(dir, &st) != 0)
            snprintf(msg, sizeof(msg), "network_congestor: %s %s: directory '%s' does not exist\n",
                     option, path, dir);
        else if (!S_ISDIR(st.st_mode))
            snprintf(msg, sizeof(msg), "network_congestor: %s %s: '%s' is not a directory\n",
                     option, path, dir);
    }
    MPI_Bcast(msg, (int)sizeof(msg), MPI_CHAR, 0, run->env.world);
    if (msg[0])
        exit_all(2, "%s", msg);
}

int congestor_stop_wait_for_start(run_t *run, congestor_report_t *cr)
{
    int go = 1;
    if (!run->env.plan->set.start_file[0])
        return 1;
    if (run->env.rank == 0) {
        if (!run->env.plan->set.quiet)
            fprintf(stderr, "[gpcnet] waiting for the start file %s\n", run->env.plan->set.start_file);
        double t0 = MPI_Wtime();
        struct timespec nap = {0, 20 * 1000 * 1000};
        while (!file_exists(run->env.plan->set.start_file)) {
            /* --duration counts from the start of the congestion. */
            cr->stop = stop_signal                       ? STOP_SIGNAL
                       : file_exists(run->env.plan->set.stop_file) ? STOP_FILE
                                                         : STOP_NONE;
            cr->signal = stop_signal;
            if (cr->stop != STOP_NONE) {
                go = 0;
                break;
            }
            nanosleep(&nap, NULL);
        }
        cr->waited_s = MPI_Wtime() - t0;
    }
    MPI_Bcast(&go, 1, MPI_INT, 0, run->env.world);
    return go;
}

int congestor_stop_look(congestor_stop_state_t *st, double now)
{
    if (st->seen)
        return 1;
    const run_settings_t *set = &st->run->env.plan->set;
    if (st->run->env.rank != 0) {
        MPI_Test(&st->req, &st->seen, MPI_STATUS_IGNORE);
        return st->seen;
    }
    congestor_stop_t why = stop_signal                                    ? STOP_SIGNAL
                           : set->duration > 0.0 && now >= set->duration ? STOP_DURATION
                           : file_exists(set->stop_file)                 ? STOP_FILE
                                                                         : STOP_NONE;
    if (why != STOP_NONE) {
        st->cr->stop = why;
        st->cr->signal = stop_signal;
        st->stop = 1;
        MPI_Ibcast(&st->stop, 1, MPI_INT, 0, st->comm, &st->req);
        st->seen = 1;
    }
    return st->seen;
}

/* A paced round's pauses look at the stop (congestor_stop_in_pause). Rank
 * 0 says it at once, since the peers of its kernel may be in a long pause,
 * waiting for that word before they run the rest of the round. But rank 0
 * may itself be held in an iteration by a peer in a long OFF period (an
 * iteration that one rank starts at the very end of an ON period waits for
 * the others until the OFF ends): so a signal (the launcher passes it to
 * every rank) ends any rank's pauses, and in a pause of over a second the
 * first rank of each node looks at the stop file itself, once a second
 * (no more: a shared file system serves every node's look). --duration is
 * not looked at here: every rank ends its pauses there by itself. */
#define STOP_FILE_LOOK_S 1.0

int congestor_stop_in_pause(void *ctx, double paused_s)
{
    congestor_stop_state_t *st = ctx;
    if (congestor_stop_look(st, -1.0) || stop_signal)
        return 1;
    const run_t *run = st->run;
    if (run->env.rank == 0 || run->env.nodes.my_local != 0 || paused_s < STOP_FILE_LOOK_S)
        return 0;
    double now = MPI_Wtime();
    if (now - st->file_looked < STOP_FILE_LOOK_S)
        return 0;
    st->file_looked = now;
    return file_exists(run->env.plan->set.stop_file);
}

void congestor_stop_begin(congestor_stop_state_t *st, const run_t *run, congestor_report_t *cr)
{
    memset(st, 0, sizeof(*st));
    st->run = run;
    st->cr = cr;
    st->req = MPI_REQUEST_NULL;
    MPI_Comm_dup(run->env.world, &st->comm);
    if (run->env.rank != 0)
        MPI_Ibcast(&st->stop, 1, MPI_INT, 0, st->comm, &st->req);
}

void congestor_stop_end(congestor_stop_state_t *st)
{
    MPI_Wait(&st->req, MPI_STATUS_IGNORE);
    MPI_Comm_free(&st->comm);
}
