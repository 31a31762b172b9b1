/* The results file's abort marks (watchdog.h), written from signal
 * handlers: only async-signal-safe calls (open, fstat, lstat, read, write,
 * close, rename, unlink, getpid, time), so no stdio and no malloc;
 * everything is prepared in advance. Also called from --fault-probe's
 * thread, while the handlers that could use the same buffers are kept out
 * (watchdog.c).
 *
 * The handlers run with the other signals blocked, so nothing here may
 * wait: every existing name is opened with O_NONBLOCK|O_NOFOLLOW and used
 * only if fstat says it is a regular file. A named pipe someone put at the
 * results name would otherwise keep the handler in open() (nobody at the
 * other end) until SIGKILL or the launcher's clean-up. */
#define _POSIX_C_SOURCE 200809L
#include "infra/abort_mark.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "infra/safe_file.h"

#define PATH_LEN 4200
#define HEAD_LEN 4096 /* the status fields are within the first few hundred bytes */

static char json_path[PATH_LEN];
/* The results writer's temporary file of the moment (abort_mark_note_tmp):
 * a mark removes it only while json_tmp_set says the name is whole. */
static char json_tmp[PATH_LEN + 16];
static volatile sig_atomic_t json_tmp_set;
static char json_abort[PATH_LEN + 8]; /* ours */
/* Where the mark goes when something we cannot remove (a directory) holds
 * json_abort: json_abort + "-<pid>-<n>", made in the handler. */
#define ALT_TRIES 4
static char json_abort_alt[PATH_LEN + 48];

/* What the run was doing (abort_mark_note_step), for "aborted_in": two
 * buffers, so a handler always reads a whole one: the other is filled,
 * then made current. */
#define STEP_LEN 192
static char step_text[2][STEP_LEN];
static volatile sig_atomic_t step_current = -1;

/* What --fault-probe found (abort_mark_note_failure): JSON members written
 * once by the probe's thread before a handler may read them. */
#define FAILURE_LEN 8192
static char failure_text[FAILURE_LEN];
static atomic_int failure_set; /* release by the writer, acquire by the reader */

/* Scratch (one user at a time: see the top). */
static char head[HEAD_LEN + 1];
static char out[HEAD_LEN + 512 + FAILURE_LEN];
static char chunk[65536];

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

/* One line on stderr about the results file: "gpcnet: PATH: what". */
static void note(const char *what)
{
    const char *parts[4] = {"gpcnet: ", json_path, ": ", what};
    for (int i = 0; i < 4; i++)
        (void)write_all(STDERR_FILENO, parts[i], strlen(parts[i]));
    (void)write_all(STDERR_FILENO, "\n", 1);
}

/* Decimal digits of v at p (no sprintf in a handler); returns the end. */
static char *put_uint(char *p, unsigned long v)
{
    char digits[24];
    int n = 0;
    do {
        digits[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v > 0);
    while (n > 0)
        *p++ = digits[--n];
    *p = '\0';
    return p;
}

/* A fresh file for the rewritten document, never an existing name: json_abort
 * (a planted link or file there is removed, not followed; one planted
 * again in between makes the open fail). When that name is held by
 * something unlink cannot remove (a directory), json_abort-<pid>-<n>
 * instead, so that the reason is still recorded; the name used is left in
 * *name. -1 (and a line on stderr) when none can be made. */
static int open_fresh(const char **name)
{
    const int flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC;
    unlink(json_abort);
    int fd = open(json_abort, flags, 0666);
    *name = json_abort;
    if (fd >= 0)
        return fd;
    if (errno != EEXIST) {
        note("cannot write the abort reason: no new file can be made beside it; the file "
             "keeps \"aborted\" without the reason");
        return -1;
    }
    size_t len = strlen(json_abort);
    memcpy(json_abort_alt, json_abort, len);
    char *p = json_abort_alt + len;
    *p++ = '-';
    p = put_uint(p, (unsigned long)getpid());
    for (unsigned long n = 1; n <= ALT_TRIES; n++) {
        *p = '-';
        put_uint(p + 1, n);
        fd = open(json_abort_alt, flags, 0666);
        if (fd >= 0) {
            *name = json_abort_alt;
            note("the name of the abort mark's temporary (.abort) is held by something that "
                 "is not ours (a directory?); another name was used");
            return fd;
        }
        if (errno != EEXIST)
            break;
    }
    note("cannot write the abort reason: its temporary name (.abort) is held by something that "
         "is not ours (a directory?) and no other name was free; the file keeps \"aborted\" "
         "without the reason");
    return -1;
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
    static const char running[] = "\"status\": \"aborted\""; /* abort_mark_flip ran */
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
    const char *failure =
        atomic_load_explicit(&failure_set, memory_order_acquire) ? failure_text : NULL;
    struct {
        char *at;
        size_t from_len;
        const char *parts[8];
    } edits[3] = {
        {st, sizeof(running) - 1, {running, "", "", "", "", "", "", ""}},
        {ar,
         sizeof(no_reason) - 1,
         {"\"abort_reason\": \"", reason, "\"", step ? ", \"aborted_in\": \"" : "",
          step ? step : "", step ? "\"" : "", failure ? ", " : "", failure ? failure : ""}},
        {fa, sizeof(no_finish) - 1, {"\"finished_at\": \"", when, "\"", "", "", "", "", ""}},
    };
    for (int e = 0; e < 3; e++) {
        if (!edits[e].at)
            continue;
        size_t at = (size_t)(edits[e].at - head);
        if (at < pos)
            continue;
        add(&n, head + pos, at - pos);
        for (int p = 0; p < 8; p++)
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
void abort_mark_flip(void)
{
    static const char running[] = "\"status\": \"running\"";
    /* Never through a planted link, never into a pipe or device. */
    int fd = safe_open_regular(json_path, O_RDWR);
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

/* Copy the results file to a new one with its head patched, then rename
 * it over the old one, so the file on disk stays complete whatever
 * happens. */
static void rewrite(int (*patch)(size_t, const char *, size_t *), const char *arg)
{
    /* A half-written temporary of the main code is of no use any more. */
    if (json_tmp_set)
        unlink(json_tmp);
    int in = safe_open_regular(json_path, O_RDONLY);
    if (in < 0)
        return; /* nothing written yet, or not ours any more (abort_mark_kept says which) */
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
    if (patch(len, arg, &out_len) != 0) {
        close(in);
        return;
    }
    const char *fresh;
    int fd = open_fresh(&fresh);
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
    if (bad || rename(fresh, json_path) != 0) {
        unlink(fresh);
        note("cannot write the abort reason (its new copy could not be written or put in "
             "place); the file keeps \"aborted\" without the reason");
    }
}

/* Insert the failure members before "started_at" (where the deadline's
 * mark puts them: after "abort_reason" and "aborted_in") in a document
 * marked aborted already that does not have them. */
static int patch_failure(size_t len, const char *members, size_t *out_len)
{
    static const char aborted[] = "\"status\": \"aborted\"";
    static const char started[] = "\"started_at\": ";
    head[len] = '\0';
    char *at = strstr(head, started);
    if (!strstr(head, aborted) || strstr(head, "\"failed_hosts\"") || !at)
        return -1;
    size_t n = 0, pos = (size_t)(at - head);
    add(&n, head, pos);
    add(&n, members, strlen(members));
    add(&n, ", ", 2);
    add(&n, head + pos, len - pos);
    *out_len = n;
    return 0;
}

void abort_mark_init(const char *path)
{
    snprintf(json_path, sizeof(json_path), "%s", path);
    snprintf(json_abort, sizeof(json_abort), "%s.abort", json_path);
}

int abort_mark_kept(void)
{
    struct stat st;
    if (lstat(json_path, &st) != 0)
        return 0;
    return S_ISREG(st.st_mode) ? 1 : -1;
}

void abort_mark_write(const char *reason) { rewrite(patch_head, reason); }

void abort_mark_amend_failure(void)
{
    if (atomic_load_explicit(&failure_set, memory_order_acquire))
        rewrite(patch_failure, failure_text);
}

void abort_mark_note_tmp(const char *tmp)
{
    json_tmp_set = 0;
    if (tmp && strlen(tmp) < sizeof(json_tmp)) {
        memcpy(json_tmp, tmp, strlen(tmp) + 1);
        json_tmp_set = 1;
    }
}

void abort_mark_note_step(const char *phase, const char *what)
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

void abort_mark_note_failure(const char *members)
{
    if (atomic_load_explicit(&failure_set, memory_order_acquire) ||
        strlen(members) >= sizeof(failure_text))
        return;
    memcpy(failure_text, members, strlen(members) + 1);
    atomic_store_explicit(&failure_set, 1, memory_order_release);
}
