#define _POSIX_C_SOURCE 200809L
#include "infra/fault_probe.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "infra/fatal.h"
#include "infra/fault_verdict.h"
#include "infra/watchdog.h"

#define PROBE_TAG 1
#define FRAGMENT_LEN 8192

/* How long the round after a launcher's SIGTERM lasts: the launcher ends
 * the job soon (Open MPI's mpirun SIGKILLs 1 s after its SIGTERM, and as
 * soon as a first rank has exited: watchdog_probe_finish keeps the others
 * until rank 0 is done). */
#define TERM_ROUND_S 0.4

static struct {
    int started;
    pthread_t thread;
    int pipe[2]; /* 'S' from fault_probe_stop, 'T' from the SIGTERM handler */
    MPI_Comm comm;
    int rank, size;
    double at;        /* now_s() of the deadline's round */
    double until;     /* the end of the round under way */
    double round_s;   /* how long rank 0 collects in it */
    double window_s;  /* --fault-probe */
    /* Rank 0 only: */
    int n_nodes, my_node, *node_of_rank;
    char (*names)[NODE_NAME_LEN];
} P = {.comm = MPI_COMM_NULL};

int fault_probe_wanted(int argc, char **argv)
{
    static const char opt[] = "--fault-probe";
    for (int i = 1; i < argc; i++)
        if (strncmp(argv[i], opt, sizeof(opt) - 1) == 0 &&
            (argv[i][sizeof(opt) - 1] == '\0' || argv[i][sizeof(opt) - 1] == '='))
            return 1;
    return 0;
}

/* Seconds on the monotonic clock (not MPI_Wtime: the thread makes no MPI
 * call before its moment). */
static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* A round of round_s seconds from now. */
static void start_round(double round_s)
{
    P.round_s = round_s;
    P.until = now_s() + round_s;
}

/* Between two polls: the main thread of the same rank is busy in its MPI
 * call, and on a full node every core is taken, so the probe must not spin. */
static void pause_briefly(void)
{
    struct timespec ts = {0, 500 * 1000};
    nanosleep(&ts, NULL);
}

static void answer(void)
{
    /* Rank 0 may begin to listen a moment later (the ranks' clocks start
     * apart, signals arrive apart): the message waits for it there. */
    int one = 1;
    MPI_Request req;
    MPI_Isend(&one, 1, MPI_INT, 0, PROBE_TAG, P.comm, &req);
    int done = 0;
    while (!done && now_s() < P.until) {
        MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (!done)
            pause_briefly();
    }
    /* Not sent by then: rank 0 no longer listens, and the job is about to
     * end; the request is left to the end of the process. */
}

/* why: 'D' the deadline's round, 'T' after a SIGTERM. */
static void collect(char why)
{
    char *heard = calloc((size_t)P.size, 1);
    int *silent = calloc((size_t)P.n_nodes, sizeof(int));
    int *failed = malloc(sizeof(int) * (size_t)P.n_nodes);
    char *fragment = malloc(FRAGMENT_LEN);
    const char **names = malloc(sizeof(char *) * (size_t)P.n_nodes);
    if (!heard || !silent || !failed || !fragment || !names)
        goto out; /* nothing to report with: the deadline still ends the job */
    heard[0] = 1;
    int answered = 1;
    while (answered < P.size && now_s() < P.until) {
        int flag = 0;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, PROBE_TAG, P.comm, &flag, &st);
        if (!flag) {
            pause_briefly();
            continue;
        }
        int one;
        MPI_Recv(&one, 1, MPI_INT, st.MPI_SOURCE, PROBE_TAG, P.comm, MPI_STATUS_IGNORE);
        if (!heard[st.MPI_SOURCE]) {
            heard[st.MPI_SOURCE] = 1;
            answered++;
        }
    }
    for (int r = 0; r < P.size; r++)
        if (!heard[r])
            silent[P.node_of_rank[r]] = 1;
    for (int k = 0; k < P.n_nodes; k++)
        names[k] = P.names[k];
    int n_failed = fault_verdict(silent, P.n_nodes, P.my_node, why == 'T', failed);
    if (fault_verdict_json(fragment, FRAGMENT_LEN, names, P.n_nodes, silent, failed, n_failed,
                           P.my_node, P.size, answered, why == 'T') > 0)
        watchdog_note_failure(fragment);
    if (answered == P.size) {
        fprintf(stderr, "\ngpcnet: --fault-probe: all %d ranks answered rank 0 within %g s: no "
                        "host is lost%s\n",
                P.size, P.round_s, why == 'D' ? "; the job is slow, or stuck in a rank" : "");
    } else if (n_failed == 0) {
        fprintf(stderr, "\ngpcnet: --fault-probe: no rank on another host answered rank 0 "
                        "within %g s of its SIGTERM: no host named (the signal may have come to "
                        "rank 0 alone)\n",
                P.round_s);
    } else {
        fprintf(stderr, "\ngpcnet: --fault-probe: %d of %d ranks did not answer rank 0 (on %s) "
                        "within %g s; failed host%s:",
                P.size - answered, P.size, P.names[P.my_node], P.round_s,
                n_failed > 1 ? "s" : "");
        for (int i = 0; i < n_failed && i < FAULT_VERDICT_MAX_NAMES; i++)
            fprintf(stderr, " %s", P.names[failed[i]]);
        /* After a SIGTERM, a launcher whose daemons form a tree (Open MPI's
         * mpirun) may have ended the ranks below the lost host's daemon
         * without a signal: they are silent too. */
        fprintf(stderr, "%s (\"failed_hosts\" in the JSON%s)\n",
                n_failed > FAULT_VERDICT_MAX_NAMES ? " ..." : "",
                why == 'T' && n_failed > 1 ? "; after a SIGTERM: the lost host, and any whose "
                                             "ranks the launcher ended without a signal"
                                           : "");
    }
    fflush(stderr);
out:
    free(heard);
    free(silent);
    free(failed);
    free(fragment);
    free(names);
}


/* Sleeps until the probe's time, a stop or a SIGTERM; returns 'D'
 * (deadline round), 'T' or 'S'. */
static char wait_for_turn(void)
{
    for (;;) {
        double left_ms = (P.at - now_s()) * 1e3;
        if (left_ms <= 0.0)
            return 'D';
        struct pollfd pfd = {P.pipe[0], POLLIN, 0};
        int rc = poll(&pfd, 1, left_ms > 1e9 ? 1000000000 : (int)left_ms + 1);
        if (rc < 0 && errno != EINTR)
            return 'S'; /* cannot wait: no probe, the deadline stays */
        char c;
        if (rc > 0 && read(P.pipe[0], &c, 1) == 1 && (c == 'S' || c == 'T'))
            return c;
    }
}

static void *probe_thread(void *arg)
{
    (void)arg;
    char why = wait_for_turn();
    if (why == 'S')
        return NULL;
    if (why == 'T') {
        start_round(TERM_ROUND_S);
    } else {
        watchdog_probe_busy();
        start_round(0.75 * P.window_s);
    }
    if (P.rank == 0)
        collect(why);
    else
        answer();
    if (why == 'T')
        watchdog_probe_finish(TERM_ROUND_S); /* does not return */
    return NULL;
}

void fault_probe_start(MPI_Comm world, const nodes_t *nd, double deadline_s, double window_s)
{
    MPI_Comm_dup(world, &P.comm);
    MPI_Comm_rank(P.comm, &P.rank);
    MPI_Comm_size(P.comm, &P.size);
    P.window_s = window_s;
    P.at = now_s() + deadline_s - window_s;
    if (P.rank == 0) {
        P.n_nodes = nd->n_nodes;
        P.my_node = nd->my_node;
        P.node_of_rank = xmalloc(sizeof(int) * (size_t)P.size);
        memcpy(P.node_of_rank, nd->node_of_rank, sizeof(int) * (size_t)P.size);
        P.names = xmalloc(sizeof(*P.names) * (size_t)P.n_nodes);
        memcpy(P.names, nd->names, sizeof(*P.names) * (size_t)P.n_nodes);
    }
    if (pipe(P.pipe) != 0)
        die("--fault-probe: cannot make the probe's pipe\n");
    /* The watchdog's signals go to the main thread, never this one. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    int rc = pthread_create(&P.thread, NULL, probe_thread, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0)
        die("--fault-probe: cannot start the probe's thread\n");
    P.started = 1;
    watchdog_set_probe(P.pipe[1]);
}

void fault_probe_stop(void)
{
    if (!P.started)
        return;
    /* A SIGTERM from here on ends the run at once, as without the probe. */
    watchdog_probe_busy();
    (void)!write(P.pipe[1], "S", 1);
    pthread_join(P.thread, NULL);
    watchdog_set_probe(-1);
    close(P.pipe[0]);
    close(P.pipe[1]);
    MPI_Comm_free(&P.comm);
    free(P.node_of_rank);
    free(P.names);
    P.node_of_rank = NULL;
    P.names = NULL;
    P.started = 0;
}
