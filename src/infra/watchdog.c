#define _POSIX_C_SOURCE 200809L
#include "infra/watchdog.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "infra/abort_mark.h"
#include "infra/exit_file.h"

/* Everything the handlers need is prepared here in advance: a signal
 * handler may only use async-signal-safe calls (open, read, write, close,
 * rename, unlink, nanosleep, time, _exit), so no stdio and no malloc. The
 * results file's marks are in abort_mark.c. */

#define MSG_LEN 4400

static int is_rank0;
static char reason_deadline[128];
static char msg_deadline_kept[MSG_LEN], msg_deadline_none[256], msg_deadline_other[MSG_LEN];
static char msg_signal_kept[MSG_LEN], msg_signal_none[256], msg_signal_other[MSG_LEN];

/* --fault-probe (watchdog_set_probe): where a SIGTERM hands over to the
 * probe's thread; terminating once it has, so that nothing else touches
 * the file until the thread ends the process. */
static volatile sig_atomic_t probe_fd = -1, probe_busy, terminating;

static void put(const char *s) { (void)!write(STDERR_FILENO, s, strlen(s)); }

/* Which of the three words fits what is at the results name now: the
 * file, nothing, or something else (abort_mark_kept). */
static void put_kept(const char *kept, const char *none, const char *other)
{
    int k = abort_mark_kept();
    put(k > 0 ? kept : k == 0 ? none : other);
}

/* Ranks other than 0 leave a moment after rank 0 would have: some
 * launchers (Open MPI's mpirun) kill what is left as soon as the first
 * ranks have gone, which could cut rank 0 off while it marks the file. */
static void follow(void)
{
    struct timespec ts = {0, 300 * 1000 * 1000};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

static void on_deadline(int sig)
{
    (void)sig;
    /* A congestor job waiting for our stop file gets it (exit_file.h). */
    (void)exit_file_create();
    if (terminating) /* the probe's backstop after a SIGTERM (watchdog_set_probe) */
        _exit(128 + SIGTERM);
    if (is_rank0) {
        abort_mark_flip();
        put_kept(msg_deadline_kept, msg_deadline_none, msg_deadline_other);
        abort_mark_write(reason_deadline);
    }
    _exit(124);
}

static void mark_signal(int sig)
{
    abort_mark_flip();
    put(sig == SIGINT ? "\ngpcnet: interrupted (SIGINT)" : "\ngpcnet: terminated (SIGTERM)");
    put_kept(msg_signal_kept, msg_signal_none, msg_signal_other);
    abort_mark_write(sig == SIGINT ? "signal SIGINT" : "signal SIGTERM");
}

/* A launcher's SIGTERM with --fault-probe: the file is marked as always,
 * then the probe's thread asks who is still there (most often the launcher
 * ends a job because a host was lost) and ends the process; the timer, set
 * anew, ends it in any case (the deadline does not matter any more). */
static void hand_over(void)
{
    terminating = 1;
    if (is_rank0)
        mark_signal(SIGTERM);
    /* The main thread goes on in its MPI call until the end: nothing it
     * prints or saves from now on counts (as if the process had ended). */
    /* Never waits, never a link (a handler's open must not block). */
    int null = open("/dev/null", O_WRONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY);
    struct stat st;
    if (null >= 0 && fstat(null, &st) == 0 && S_ISCHR(st.st_mode))
        dup2(null, STDOUT_FILENO);
    if (null >= 0)
        close(null);
    struct itimerval it;
    memset(&it, 0, sizeof(it));
    it.it_value.tv_sec = WATCHDOG_PROBE_BACKSTOP_S;
    setitimer(ITIMER_REAL, &it, NULL);
    (void)!write(probe_fd, "T", 1);
}

static void on_signal(int sig)
{
    if (terminating)
        return; /* the probe ends the process in a moment */
    if (sig == SIGTERM && probe_fd >= 0 && !probe_busy) {
        hand_over();
        return;
    }
    (void)exit_file_create();
    if (is_rank0)
        mark_signal(sig);
    else
        follow();
    _exit(128 + sig);
}

void watchdog_start(int rank, double deadline_s, const char *path)
{
    is_rank0 = rank == 0;
    abort_mark_init(path);
    snprintf(msg_signal_kept, sizeof(msg_signal_kept),
             "; results of the finished phases are in %s\n", path);
    snprintf(msg_signal_none, sizeof(msg_signal_none),
             "; no phase had finished, so no results were written\n");
    snprintf(msg_signal_other, sizeof(msg_signal_other),
             "; %s is not a regular file any more (a pipe, device or directory was put "
             "there during the run): left alone, not marked\n",
             path);

    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    /* One handler at a time: the others wait (and never run, as every
     * handler ends the process). */
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGINT);
    sigaddset(&sa.sa_mask, SIGTERM);
    sigaddset(&sa.sa_mask, SIGALRM);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    if (deadline_s > 0.0) {
        snprintf(reason_deadline, sizeof(reason_deadline), "deadline: --deadline %g s reached",
                 deadline_s);
        snprintf(msg_deadline_kept, sizeof(msg_deadline_kept),
                 "\ngpcnet: --deadline of %g s reached: aborting the job; results of the "
                 "finished phases are in %s\n",
                 deadline_s, path);
        snprintf(msg_deadline_other, sizeof(msg_deadline_other),
                 "\ngpcnet: --deadline of %g s reached: aborting the job; %s is not a regular "
                 "file any more (a pipe, device or directory was put there during the run): "
                 "left alone, not marked\n",
                 deadline_s, path);
        snprintf(msg_deadline_none, sizeof(msg_deadline_none),
                 "\ngpcnet: --deadline of %g s reached: aborting the job; no phase had "
                 "finished, so no results were written\n",
                 deadline_s);
        sa.sa_handler = on_deadline;
        sigaction(SIGALRM, &sa, NULL);
        /* Rank 0 goes first, so that it is the one that marks the results
         * and says why; the launcher then ends the others. They follow a
         * moment later on their own in case rank 0 cannot (stopped, lost). */
        double after = deadline_s + (is_rank0 ? 0.0 : WATCHDOG_FOLLOW_S);
        struct itimerval it;
        memset(&it, 0, sizeof(it));
        it.it_value.tv_sec = (time_t)after;
        it.it_value.tv_usec = (suseconds_t)((after - (double)(time_t)after) * 1e6);
        if (it.it_value.tv_sec == 0 && it.it_value.tv_usec == 0)
            it.it_value.tv_usec = 1;
        setitimer(ITIMER_REAL, &it, NULL);
    }
}

void watchdog_set_probe(int fd) { probe_fd = fd; }

void watchdog_probe_busy(void) { probe_busy = 1; }

int watchdog_ending(void) { return terminating; }

void watchdog_probe_finish(double rank0_round_s)
{
    if (is_rank0) {
        /* Marked at the signal; marked again should the main thread have
         * finished a write it had begun before it (its last checks and
         * rename take microseconds, this comes 0.4 s later), then what the
         * probe found is added. */
        abort_mark_flip();
        abort_mark_write("signal SIGTERM");
        abort_mark_amend_failure();
    } else {
        /* Rank 0 may still be collecting, and a launcher ends the whole
         * job as soon as a first rank has gone (mpirun does). */
        struct timespec ts = {0, (long)(rank0_round_s * 1e9)};
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
        }
        follow();
    }
    (void)exit_file_create();
    _exit(128 + SIGTERM);
}

void watchdog_note_tmp(const char *tmp) { abort_mark_note_tmp(tmp); }

void watchdog_note_step(const char *phase, const char *what) { abort_mark_note_step(phase, what); }

void watchdog_note_failure(const char *members) { abort_mark_note_failure(members); }
