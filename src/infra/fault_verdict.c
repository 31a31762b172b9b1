#include "infra/fault_verdict.h"

#include <stdarg.h>
#include <stdio.h>

int fault_verdict(const int *silent, int n_nodes, int node_of_rank0, int after_signal,
                  int *failed)
{
    int others = 0, silent_others = 0, n = 0;
    for (int k = 0; k < n_nodes; k++) {
        if (k == node_of_rank0)
            continue;
        others++;
        silent_others += silent[k] != 0;
    }
    if (others > 0 && silent_others == others) {
        if (after_signal)
            return 0;
        if (n_nodes >= 3) {
            failed[0] = node_of_rank0;
            return 1;
        }
    }
    for (int k = 0; k < n_nodes; k++)
        if (silent[k])
            failed[n++] = k;
    return n;
}

typedef struct {
    char *buf;
    size_t len, at;
    int bad;
} out_t;

static void emit(out_t *o, const char *fmt, ...)
{
    if (o->bad)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(o->buf + o->at, o->len - o->at, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= o->len - o->at)
        o->bad = 1;
    else
        o->at += (size_t)n;
}

static void emit_name(out_t *o, const char *name)
{
    emit(o, "\"");
    for (const char *c = name; *c && !o->bad; c++) {
        int safe = *c != '"' && *c != '\\' && (unsigned char)*c >= 0x20;
        emit(o, "%c", safe ? *c : '\'');
    }
    emit(o, "\"");
}

static void emit_names(out_t *o, const char *const *names, const int *idx, int n)
{
    emit(o, "[");
    for (int i = 0; i < n && i < FAULT_VERDICT_MAX_NAMES; i++) {
        emit(o, i ? ", " : "");
        emit_name(o, names[idx[i]]);
    }
    emit(o, "]");
}

int fault_verdict_json(char *buf, size_t len, const char *const *names, int n_nodes,
                       const int *silent, const int *failed, int n_failed, int node_of_rank0,
                       int n_ranks, int n_answered, int after_signal)
{
    out_t o = {buf, len, 0, len == 0};
    int silent_idx[FAULT_VERDICT_MAX_NAMES], n_silent = 0;
    for (int k = 0; k < n_nodes; k++)
        if (silent[k] && n_silent++ < FAULT_VERDICT_MAX_NAMES)
            silent_idx[n_silent - 1] = k;
    emit(&o, "\"failed_hosts\": ");
    emit_names(&o, names, failed, n_failed);
    emit(&o, ", \"fault_probe\": {\"after\": \"%s\", \"from\": ",
         after_signal ? "SIGTERM" : "deadline");
    emit_name(&o, names[node_of_rank0]);
    emit(&o, ", \"ranks\": %d, \"answered\": %d, \"failed_host_count\": %d, \"silent_hosts\": ",
         n_ranks, n_answered, n_failed);
    emit_names(&o, names, silent_idx, n_silent);
    emit(&o, ", \"silent_host_count\": %d}", n_silent);
    return o.bad ? -1 : (int)o.at;
}
