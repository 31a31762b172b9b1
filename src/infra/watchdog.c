#define _POSIX_C_SOURCE 200809L
#include "infra/watchdog.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

/* Everything the handlers need is prepared here in advance: a signal
 * handler may only use async-signal-safe calls (open, read, write, close,
 * rename, unlink, nanosleep, time, _exit), so no stdio and no malloc. */

#define PATH_LEN 4200
#define HEAD_LEN 4096 /* the status fields are within the first few hundred bytes */

static int is_rank0;
static char json_path[PATH_LEN];
/* The results writer's temporary file of the moment (watchdog_note_tmp):
 * the handler removes it only while json_tmp_set says the name is whole. */
static char json_tmp[PATH_LEN + 16];
static volatile sig_atomic_t json_tmp_set;
static char json_abort[PATH_LEN + 8]; /* ours */
static char reason_deadline[128];
static char msg_deadline_kept[PATH_LEN + 200], msg_deadline_none[256];
static char msg_signal_kept[PATH_LEN + 200], msg_signal_none[256];

/* What the run was doing (watchdog_note_step), for "aborted_in": two
 * buffers, so the handler always reads a whole one: the other is filled,
 * then made current. */
#define STEP_LEN 192
static char step_text[2][STEP_LEN];
static volatile sig_atomic_t step_current = -1;

/* Scratch for the handler (only one handler runs: the others are masked). */
static char head[HEAD_LEN + 1];
static char out[HEAD_LEN + 512];
static char chunk[65536];

static void put(const char *s) { (void)!write(STDERR_FILENO, s, strlen(s)); }

static int write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Civil date from days since 1970-01-01 (proleptic Gregorian), so the
 * handler needs no gmtime. */
static void iso_utc(time_t t, char *buf /* >= 21 bytes */)
{
    long long s = (long long)t, days = s / 86400, rem = s % 86400;
    if (rem < 0) {
        rem += 86400;
        days--;
    }
    days += 719468;
    long long era = (days >= 0 ? days : days - 146096) / 146097;
    long long doe = days - era * 146097;
    long long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    long long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    long long mp = (5 * doy + 2) / 153;
    long long d = doy - (153 * mp + 2) / 5 + 1;
    long long m = mp < 10 ? mp + 3 : mp - 9;
    long long y = yoe + era * 400 + (m <= 2);
    long long f[6] = {y, m, d, rem / 3600, rem % 3600 / 60, rem % 60};
    const int width[6] = {4, 2, 2, 2, 2, 2};
    const char sep[6] = {'-', '-', 'T', ':', ':', 'Z'};
    int k = 0;
    for (int i = 0; i < 6; i++) {
        long long v = f[i];
        for (int j = width[i] - 1; j >= 0; j--) {
            buf[k + j] = (char)('0' + v % 10);
            v /= 10;
        }
        k += width[i];
        buf[k++] = sep[i];
    }
    buf[k] = '\0';
}

/* Append s to out at *n (bounded). */
static void add(size_t *n, const char *s, size_t len)
{
    if (*n + len >= sizeof(out))
        len = sizeof(out) - 1 - *n;
    memcpy(out + *n, s, len);
    *n += len;
}

/* Replace the first `from` by `to` in head[0..len) while copying to out. */
static int patch_head(size_t len, const char *reason, size_t *out_len)
{
    static const char running[] = "\"status\": \"aborted\""; /* flip_status ran */
    static const char no_reason[] = "\"abort_reason\": null";
    static const char no_finish[] = "\"finished_at\": null";
    head[len] = '\0';
    char *st = strstr(head, running);
    if (!st)
        return -1; /* complete already, or not our document: leave it */
    char *ar = strstr(head, no_reason);
    char *fa = strstr(head, no_finish);
    char when[32];
    iso_utc(time(NULL), when);
    size_t n = 0, pos = 0;
    /* The fields appear in this order in results_json.c; any missing one
     * is simply not patched. */
    int cur = step_current;
    const char *step = cur >= 0 ? step_text[cur] : NULL;
    struct {
        char *at;
        size_t from_len;
        const char *parts[6];
    } edits[3] = {
        {st, sizeof(running) - 1, {running, "", "", "", "", ""}},
        {ar,
         sizeof(no_reason) - 1,
         {"\"abort_reason\": \"", reason, "\"", step ? ", \"aborted_in\": \"" : "",
          step ? step : "", step ? "\"" : ""}},
        {fa, sizeof(no_finish) - 1, {"\"finished_at\": \"", when, "\"", "", "", ""}},
    };
    for (int e = 0; e < 3; e++) {
        if (!edits[e].at)
            continue;
        size_t at = (size_t)(edits[e].at - head);
        if (at < pos)
            continue;
        add(&n, head + pos, at - pos);
        for (int p = 0; p < 6; p++)
            add(&n, edits[e].parts[p], strlen(edits[e].parts[p]));
        pos = at + edits[e].from_len;
    }
    add(&n, head + pos, len - pos);
    *out_len = n;
    return 0;
}

/* First aid, in case the launcher kills us a moment from now: flip
 * "running" to "aborted" in place (same length, one small write, so the
 * file stays valid JSON). */
static void flip_status(void)
{
    static const char running[] = "\"status\": \"running\"";
    int fd = open(json_path, O_RDWR);
    if (fd < 0)
        return;
    ssize_t len = pread(fd, head, 512, 0);
    if (len > 0) {
        head[len] = '\0';
        char *st = strstr(head, running);
        if (st)
            (void)!pwrite(fd, "aborted", 7, (off_t)(st - head) + 11);
    }
    close(fd);
}

/* Mark the JSON of the finished phases as aborted: copy it to a new file
 * with the status fields patched, then rename it over the old one, so the
 * file on disk stays complete whatever happens. */
static void mark_aborted(const char *reason)
{
    /* A half-written temporary of the main code is of no use any more. */
    if (json_tmp_set)
        unlink(json_tmp);
    int in = open(json_path, O_RDONLY | O_NOFOLLOW);
    if (in < 0)
        return;
    size_t len = 0;
    while (len < HEAD_LEN) {
        ssize_t r = read(in, head + len, HEAD_LEN - len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        len += (size_t)r;
    }
    size_t out_len = 0;
    if (patch_head(len, reason, &out_len) != 0) {
        close(in);
        return;
    }
    /* A fresh file, never an existing name (a planted link is removed,
     * not followed; one planted again in between makes the open fail). */
    unlink(json_abort);
    int fd = open(json_abort, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0666);
    if (fd < 0) {
        close(in);
        return;
    }
    int bad = write_all(fd, out, out_len);
    for (;;) {
        ssize_t r = read(in, chunk, sizeof(chunk));
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            bad = 1;
        if (r <= 0)
            break;
        bad = bad || write_all(fd, chunk, (size_t)r);
    }
    close(in);
    if (close(fd) != 0)
        bad = 1;
    if (bad || rename(json_abort, json_path) != 0)
        unlink(json_abort);
    return;
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
    if (is_rank0) {
        flip_status();
        int kept = access(json_path, F_OK) == 0;
        put(kept ? msg_deadline_kept : msg_deadline_none);
        mark_aborted(reason_deadline);
    }
    _exit(124);
}

static void on_signal(int sig)
{
    if (is_rank0) {
        flip_status();
        int kept = access(json_path, F_OK) == 0;
        put(sig == SIGINT ? "\ngpcnet: interrupted (SIGINT)" : "\ngpcnet: terminated (SIGTERM)");
        put(kept ? msg_signal_kept : msg_signal_none);
        mark_aborted(sig == SIGINT ? "signal SIGINT" : "signal SIGTERM");
    } else {
        follow();
    }
    _exit(128 + sig);
}

void watchdog_start(int rank, double deadline_s, const char *path)
{
    is_rank0 = rank == 0;
    snprintf(json_path, sizeof(json_path), "%s", path);
    snprintf(json_abort, sizeof(json_abort), "%s.abort", json_path);
    snprintf(msg_signal_kept, sizeof(msg_signal_kept),
             "; results of the finished phases are in %s\n", json_path);
    snprintf(msg_signal_none, sizeof(msg_signal_none),
             "; no phase had finished, so no results were written\n");

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
                 deadline_s, json_path);
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

void watchdog_note_tmp(const char *tmp)
{
    json_tmp_set = 0;
    if (tmp && strlen(tmp) < sizeof(json_tmp)) {
        memcpy(json_tmp, tmp, strlen(tmp) + 1);
        json_tmp_set = 1;
    }
}

void watchdog_note_step(const char *phase, const char *what)
{
    if (!phase) {
        step_current = -1;
        return;
    }
    int next = step_current == 0 ? 1 : 0;
    char *b = step_text[next];
    size_t n = 0;
    const char *parts[3] = {phase, ": ", what};
    for (int p = 0; p < 3 && parts[p]; p++)
        for (const char *c = parts[p]; *c && n + 1 < STEP_LEN; c++)
            /* Written into the JSON as is: nothing that would need escaping. */
            b[n++] = (*c == '"' || *c == '\\' || (unsigned char)*c < 0x20) ? '\'' : *c;
    b[n] = '\0';
    step_current = next;
}
