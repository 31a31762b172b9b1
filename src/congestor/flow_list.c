/* The flow list of network_congestor --flows (no MPI: fuzzed and tested on
 * its own). One line per flow, "SRC DST" (node names), blank lines and
 * lines starting with '#' ignored. Every refusal names the file and line and
 * quotes the input escaped, never raw bytes. */
#define _POSIX_C_SOURCE 200809L
#include "congestor/flow_list.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "infra/safe_file.h"

/* Bounds of a flow list: far beyond any real one (a bully on 100,000 nodes
 * has fewer flows), so that a wrong file (/dev/zero, a log, a 2M-line
 * mistake) is refused at once instead of delaying the congestor. */
#define FLOWS_MAX_LINE 4096
#define FLOWS_MAX_BYTES (64L * 1024 * 1024)
#define FLOWS_MAX (1 << 20)

/* Names sorted once, so each lookup is a binary search. */
static const char *sort_names;
static size_t sort_len;

static int by_name(const void *a, const void *b)
{
    return strncmp(sort_names + (size_t)*(const int *)a * sort_len,
                   sort_names + (size_t)*(const int *)b * sort_len, sort_len);
}

static int node_named(const char *names, size_t name_len, const int *sorted, int n_nodes,
                      const char *name)
{
    if (strlen(name) >= name_len)
        return -1;
    int lo = 0, hi = n_nodes - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        int c = strncmp(name, names + (size_t)sorted[mid] * name_len, name_len);
        if (c == 0)
            return sorted[mid];
        if (c < 0)
            hi = mid - 1;
        else
            lo = mid + 1;
    }
    return -1;
}

/* Input quoted for a message: printable ASCII as is, anything else as \xNN,
 * at most 60 characters, so no raw bytes reach the terminal. */
static void shown(char *out, size_t outlen, const char *s, size_t n)
{
    size_t o = 0;
    for (size_t i = 0; i < n && o + 8 < outlen; i++) {
        unsigned char c = (unsigned char)s[i];
        if (i == 60) {
            o += (size_t)snprintf(out + o, outlen - o, "...");
            break;
        }
        if (c >= 0x20 && c < 0x7f)
            out[o++] = (char)c;
        else
            o += (size_t)snprintf(out + o, outlen - o, "\\x%02x", c);
    }
    out[o] = '\0';
}

/* Split a line into at most 3 whitespace-separated tokens; returns how many. */
static int tokens(char *s, char *tok[3])
{
    int n = 0;
    while (*s) {
        while (isspace((unsigned char)*s))
            s++;
        if (!*s)
            break;
        if (n == 3)
            return 4;
        tok[n++] = s;
        while (*s && !isspace((unsigned char)*s))
            s++;
        if (*s)
            *s++ = '\0';
    }
    return n;
}

typedef struct {
    FILE *f;
    long bytes;
    int line_no;
    char line[FLOWS_MAX_LINE + 1];
} reader_t;

/* Next line into r->line: 1, 0 at the end, -1 with a message. Stops at the
 * first NUL or over-long line without reading further (an endless file
 * ends here too). */
static int next_line(reader_t *r, const char *path, char *err, size_t errlen)
{
    size_t len = 0;
    int c, any = 0;
    while ((c = getc(r->f)) != EOF) {
        any = 1;
        if (++r->bytes > FLOWS_MAX_BYTES) {
            snprintf(err, errlen, "--flows %s: larger than %ld MiB; not a flow list", path,
                     FLOWS_MAX_BYTES >> 20);
            return -1;
        }
        if (c == '\n')
            break;
        if (c == '\0') {
            snprintf(err, errlen, "--flows %s line %d: a NUL byte; not a text file", path,
                     r->line_no + 1);
            return -1;
        }
        if (len == FLOWS_MAX_LINE) {
            snprintf(err, errlen, "--flows %s line %d: longer than %d bytes", path, r->line_no + 1,
                     FLOWS_MAX_LINE);
            return -1;
        }
        r->line[len++] = (char)c;
    }
    if (ferror(r->f)) {
        snprintf(err, errlen, "--flows %s: cannot read it: %s", path, strerror(errno));
        return -1;
    }
    if (!any)
        return 0;
    r->line[len] = '\0';
    r->line_no++;
    return 1;
}

/* The list as a stream, or NULL with a message. Opened without waiting
 * (O_NONBLOCK: a named pipe nobody writes would block fopen for ever, and
 * the congestor with it, past --duration) and read only when it is a
 * regular file: a pipe or device is refused by what the descriptor is, so
 * one swapped in after a check is refused too. A link to a regular file is
 * read (nothing is written here). */
static FILE *open_list(const char *path, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "--flows %s: cannot read it: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        snprintf(err, errlen, "--flows %s: cannot read it: %s", path, strerror(errno));
        close(fd);
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "--flows %s: is %s, not a regular file; give a file of 'SRC DST' lines",
                 path, safe_kind(st.st_mode));
        close(fd);
        return NULL;
    }
    /* A regular file never blocks; the flag is cleared all the same so the
     * stream reads as any other. */
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    FILE *f = fdopen(fd, "r");
    if (!f) {
        snprintf(err, errlen, "--flows %s: cannot read it: %s", path, strerror(errno));
        close(fd);
    }
    return f;
}

/* A flow and the line it came from, for finding repeats. */
typedef struct {
    int src, dst, line;
} flow_at_t;

static int by_flow(const void *a, const void *b)
{
    const flow_at_t *x = a, *y = b;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    if (x->dst != y->dst)
        return x->dst < y->dst ? -1 : 1;
    return (x->line > y->line) - (x->line < y->line);
}

/* A flow listed twice would be two receives and two buffer slices of the
 * same pair (a million identical lines made one rank post a million
 * messages per iteration, and the round outlast --duration by minutes), and
 * its load is not what the list seems to say. 0, or -1 with a message
 * naming the first line (in file order) that repeats an earlier one. */
static int refuse_repeats(const char *path, const char *names, size_t name_len, const int *p,
                          const int *lines, int n, char *err, size_t errlen)
{
    flow_at_t *v = malloc(sizeof(*v) * (size_t)n);
    if (!v) {
        snprintf(err, errlen, "--flows %s: out of memory for %d flows", path, n);
        return -1;
    }
    for (int i = 0; i < n; i++)
        v[i] = (flow_at_t){p[2 * i], p[2 * i + 1], lines[i]};
    qsort(v, (size_t)n, sizeof(*v), by_flow);
    int again = -1, first = -1, group = 0;
    for (int i = 1; i < n; i++) {
        if (v[i].src != v[i - 1].src || v[i].dst != v[i - 1].dst) {
            group = i;
            continue;
        }
        if (again < 0 || v[i].line < v[again].line)
            again = i, first = group;
    }
    if (again >= 0) {
        char src[80], dst[80];
        const char *a = names + (size_t)v[again].src * name_len;
        const char *b = names + (size_t)v[again].dst * name_len;
        shown(src, sizeof(src), a, strnlen(a, name_len));
        shown(dst, sizeof(dst), b, strnlen(b, name_len));
        snprintf(err, errlen,
                 "--flows %s line %d: the flow %s %s repeats line %d; list each flow once",
                 path, v[again].line, src, dst, v[first].line);
    }
    free(v);
    return again >= 0 ? -1 : 0;
}

int flows_parse(const char *path, const char *names, size_t name_len, int n_nodes, int **pairs,
                char *err, size_t errlen)
{
    reader_t *r = calloc(1, sizeof(*r));
    int *sorted = malloc(sizeof(int) * (size_t)(n_nodes > 0 ? n_nodes : 1));
    int n = 0, cap = 64, got;
    int *p = malloc(sizeof(int) * 2 * (size_t)cap);
    int *lines = malloc(sizeof(int) * (size_t)cap); /* the line of each flow */
    if (!r || !sorted || !p || !lines) {
        snprintf(err, errlen, "--flows %s: out of memory", path);
        free(r), free(sorted), free(p), free(lines);
        return -1;
    }
    r->f = open_list(path, err, errlen);
    if (!r->f) {
        free(r), free(sorted), free(p), free(lines);
        return -1;
    }
    for (int i = 0; i < n_nodes; i++)
        sorted[i] = i;
    sort_names = names;
    sort_len = name_len;
    qsort(sorted, (size_t)n_nodes, sizeof(int), by_name);
    while ((got = next_line(r, path, err, errlen)) > 0) {
        char copy[FLOWS_MAX_LINE + 1], *tok[3];
        memcpy(copy, r->line, strlen(r->line) + 1);
        int nt = tokens(r->line, tok);
        if (nt == 0 || tok[0][0] == '#')
            continue;
        const char *bad = NULL;
        int a = -1, b = -1;
        if (nt != 2)
            bad = "expected two node names, SRC DST";
        else if ((a = node_named(names, name_len, sorted, n_nodes, tok[0])) < 0)
            bad = "unknown source node";
        else if ((b = node_named(names, name_len, sorted, n_nodes, tok[1])) < 0)
            bad = "unknown destination node";
        else if (a == b)
            bad = "a node cannot send to itself";
        else if (n == FLOWS_MAX)
            bad = "more than 1048576 flows";
        if (bad) {
            char quoted[300];
            const char *s = copy;
            while (isspace((unsigned char)*s))
                s++;
            shown(quoted, sizeof(quoted), s, strlen(s));
            snprintf(err, errlen, "--flows %s line %d: %s: %s", path, r->line_no, bad, quoted);
            got = -1;
            break;
        }
        if (n == cap) {
            cap *= 2;
            int *bigger = realloc(p, sizeof(int) * 2 * (size_t)cap);
            if (bigger)
                p = bigger;
            int *more = bigger ? realloc(lines, sizeof(int) * (size_t)cap) : NULL;
            if (!more) {
                snprintf(err, errlen, "--flows %s: out of memory for %d flows", path, cap);
                got = -1;
                break;
            }
            lines = more;
        }
        p[2 * n] = a;
        p[2 * n + 1] = b;
        lines[n] = r->line_no;
        n++;
    }
    fclose(r->f);
    free(r);
    free(sorted);
    if (got >= 0 && n == 0) {
        snprintf(err, errlen, "--flows %s: no flow in it (lines 'SRC DST')", path);
        got = -1;
    }
    if (got >= 0 && refuse_repeats(path, names, name_len, p, lines, n, err, errlen) < 0)
        got = -1;
    free(lines);
    if (got < 0) {
        free(p);
        return -1;
    }
    *pairs = p;
    return n;
}
