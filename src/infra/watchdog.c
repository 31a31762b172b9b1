#define _POSIX_C_SOURCE 200809L
#include "infra/watchdog.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

/* Pre-rendered in advance: a signal handler may only call write/_exit. */
static char deadline_msg[1200];
static char signal_msg[1200];
static size_t deadline_len, signal_len;
static int is_rank0;

static void on_deadline(int sig)
{
    (void)sig;
    if (is_rank0)
        (void)!write(STDERR_FILENO, deadline_msg, deadline_len);
    _exit(124);
}

static void on_signal(int sig)
{
    if (is_rank0)
        (void)!write(STDERR_FILENO, signal_msg, signal_len);
    _exit(128 + sig);
}

void watchdog_start(int rank, double deadline_s, const char *json_path)
{
    is_rank0 = rank == 0;
    snprintf(signal_msg, sizeof(signal_msg),
             "\ngpcnet: interrupted; results of the finished phases are in %.1000s\n", json_path);
    signal_len = strlen(signal_msg);
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    if (deadline_s > 0.0) {
        snprintf(deadline_msg, sizeof(deadline_msg),
                 "\ngpcnet: --deadline of %g s reached: aborting the job; results of the "
                 "finished phases are in %.1000s\n",
                 deadline_s, json_path);
        deadline_len = strlen(deadline_msg);
        sa.sa_handler = on_deadline;
        sigaction(SIGALRM, &sa, NULL);
        struct itimerval it;
        memset(&it, 0, sizeof(it));
        it.it_value.tv_sec = (time_t)deadline_s;
        it.it_value.tv_usec = (suseconds_t)((deadline_s - (double)(time_t)deadline_s) * 1e6);
        setitimer(ITIMER_REAL, &it, NULL);
    }
}
