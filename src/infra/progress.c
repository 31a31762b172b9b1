#include "infra/progress.h"

#include <math.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "infra/watchdog.h"

#define HEARTBEAT_SECONDS 5.0

static struct {
    int enabled;
    double t0, last_print, limit;
    int step, n_steps;
    char what[160];
} P;

void progress_init(int enabled, double t0, int n_steps)
{
    memset(&P, 0, sizeof(P));
    P.enabled = enabled;
    P.t0 = t0;
    P.n_steps = n_steps;
}

static void stamp(void) { fprintf(stderr, "[gpcnet %7.1fs] ", MPI_Wtime() - P.t0); }

void progress_step(const char *phase, const char *what, double time_limit)
{
    watchdog_note_step(phase, what);
    if (!P.enabled)
        return;
    P.step++;
    P.limit = time_limit;
    snprintf(P.what, sizeof(P.what), "%s: %s", phase, what);
    stamp();
    fprintf(stderr, "step %d/%d %s (limit %.3g s)\n", P.step, P.n_steps, P.what, time_limit);
    fflush(stderr);
    P.last_print = MPI_Wtime();
}

void progress_heartbeat(double elapsed_in_test)
{
    if (!P.enabled)
        return;
    double now = MPI_Wtime();
    if (now - P.last_print < HEARTBEAT_SECONDS)
        return;
    P.last_print = now;
    stamp();
    fprintf(stderr, "  ... %s: %.1f s of %.3g s, %d step(s) after this\n", P.what,
            elapsed_in_test, P.limit, P.n_steps - P.step);
    fflush(stderr);
}

void progress_note(int first, const char *fmt, ...)
{
    if (!P.enabled)
        return;
    double now = MPI_Wtime();
    if (!first && now - P.last_print < HEARTBEAT_SECONDS)
        return;
    P.last_print = now;
    stamp();
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
}

static const char *percent(char *buf, size_t size, double precision)
{
    if (isfinite(precision))
        snprintf(buf, size, "+-%.1f%%", 100.0 * precision);
    else
        snprintf(buf, size, "unknown");
    return buf;
}

void progress_converge(const char *test, int converged, double avg_precision,
                       double tail_precision, double tol)
{
    if (!P.enabled)
        return;
    char a[32], t[32];
    stamp();
    fprintf(stderr, "  %s: %s (95%% half-widths: Avg %s, 99%% %s; --converge %g)\n", test,
            converged ? "converged" : "cap reached before the precision",
            percent(a, sizeof(a), avg_precision), percent(t, sizeof(t), tail_precision), tol);
    fflush(stderr);
}
