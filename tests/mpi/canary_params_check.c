/* Checks that every canary kernel sends the sizes of the parameter block its
 * setup receives (canary_params_t, src/canary/canary.h), on a real MPI:
 *   - with CANARY_PARAMS_DEFAULT, each message is the size the kernel's
 *     printed name says ("RR Two-sided BW (131072 B)": 131072 B), in the
 *     published number of calls per iteration;
 *   - with other sizes, the messages and per_iteration follow them, so the
 *     kernels keep no size of their own.
 * The communication calls the kernels make are intercepted through the MPI
 * profiling interface (each calls its PMPI_ twin) and their byte counts
 * recorded around one iteration. Kernels this program has no expectation
 * for (a new one) are only set up, run and torn down.
 * Prints one line and exits 0 when all hold, 1 otherwise (problems on
 * stderr). Any number of ranks from 2. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "canary/canary.h"

enum {
    OP_ISEND,
    OP_IRECV,
    OP_PUT,
    OP_GET,
    OP_ALLREDUCE,
    OP_ALLTOALL,
    OP_ALLGATHER,
    OP_BCAST,
    N_OPS
};
static const char *const op_names[N_OPS] = {"MPI_Isend",     "MPI_Irecv",    "MPI_Put",
                                            "MPI_Get",       "MPI_Allreduce", "MPI_Alltoall",
                                            "MPI_Allgather", "MPI_Bcast"};

typedef struct {
    int calls;
    long long bytes; /* of each call (per peer for MPI_Alltoall) */
    int mixed;       /* calls of different sizes */
} traffic_t;

static traffic_t seen[N_OPS];

static void record(int op, int count, MPI_Datatype type)
{
    int size;
    PMPI_Type_size(type, &size);
    long long bytes = (long long)count * size;
    if (seen[op].calls && seen[op].bytes != bytes)
        seen[op].mixed = 1;
    seen[op].bytes = bytes;
    seen[op].calls++;
}

int MPI_Isend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
              MPI_Request *req)
{
    record(OP_ISEND, count, type);
    return PMPI_Isend(buf, count, type, dest, tag, comm, req);
}

int MPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
              MPI_Request *req)
{
    record(OP_IRECV, count, type);
    return PMPI_Irecv(buf, count, type, source, tag, comm, req);
}

int MPI_Put(const void *origin, int origin_count, MPI_Datatype origin_type, int target,
            MPI_Aint disp, int target_count, MPI_Datatype target_type, MPI_Win win)
{
    record(OP_PUT, origin_count, origin_type);
    return PMPI_Put(origin, origin_count, origin_type, target, disp, target_count, target_type,
                    win);
}

int MPI_Get(void *origin, int origin_count, MPI_Datatype origin_type, int target, MPI_Aint disp,
            int target_count, MPI_Datatype target_type, MPI_Win win)
{
    record(OP_GET, origin_count, origin_type);
    return PMPI_Get(origin, origin_count, origin_type, target, disp, target_count, target_type,
                    win);
}

int MPI_Allreduce(const void *in, void *out, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm)
{
    record(OP_ALLREDUCE, count, type);
    return PMPI_Allreduce(in, out, count, type, op, comm);
}

int MPI_Alltoall(const void *send, int send_count, MPI_Datatype send_type, void *recv,
                 int recv_count, MPI_Datatype recv_type, MPI_Comm comm)
{
    record(OP_ALLTOALL, send_count, send_type);
    return PMPI_Alltoall(send, send_count, send_type, recv, recv_count, recv_type, comm);
}

int MPI_Allgather(const void *send, int send_count, MPI_Datatype send_type, void *recv,
                  int recv_count, MPI_Datatype recv_type, MPI_Comm comm)
{
    record(OP_ALLGATHER, send_count, send_type);
    return PMPI_Allgather(send, send_count, send_type, recv, recv_count, recv_type, comm);
}

int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    record(OP_BCAST, count, type);
    return PMPI_Bcast(buf, count, type, root, comm);
}

/* A per-rank volume split among n ranks: whole doubles, at least one. */
static long long share_bytes(long total, int n)
{
    long long d = total / ((long long)n * 8);
    return (d > 0 ? d : 1) * 8;
}

static long long whole_doubles(long bytes) { return bytes / 8 > 0 ? bytes / 8 * 8 : 8; }

/* What one iteration of a kernel should send with p on n ranks. */
typedef struct {
    int op;              /* the call that carries its messages */
    long long bytes;     /* per message */
    int calls;           /* of op per iteration */
    double per_iteration;
} expected_t;

static int expect(const char *id, const canary_params_t *p, int n, expected_t *e)
{
    long long bw = p->bandwidth_bytes, lat = (long long)p->latency_doubles * 8;
    int out = p->bandwidth_outstanding;
    if (strcmp(id, "rr_two_sided_lat") == 0)
        *e = (expected_t){OP_ISEND, lat, 2, 2.0};
    else if (strcmp(id, "rr_get_lat") == 0)
        *e = (expected_t){OP_GET, lat, 2, 2.0};
    else if (strcmp(id, "rr_put_bw") == 0)
        *e = (expected_t){OP_PUT, bw, 2 * out, 2.0 * out * bw};
    else if (strcmp(id, "rr_two_sided_bw") == 0 || strcmp(id, "rr_two_sided_bw_sync") == 0 ||
             strcmp(id, "nat_two_sided_bw") == 0)
        *e = (expected_t){OP_ISEND, bw, 2 * out, 2.0 * out * bw};
    else if (strcmp(id, "multiple_allreduce") == 0)
        *e = (expected_t){OP_ALLREDUCE, (long long)p->allreduce_doubles * 8, 1, 1.0};
    else if (strcmp(id, "multiple_alltoall") == 0)
        *e = (expected_t){OP_ALLTOALL, (long long)p->alltoall_doubles * 8, 1,
                          (double)p->alltoall_doubles * 8 * (n - 1)};
    else if (strcmp(id, "allreduce_1mib") == 0 || strcmp(id, "allreduce_16mib") == 0)
        *e = (expected_t){OP_ALLREDUCE,
                          whole_doubles(p->collective_bytes[strstr(id, "16mib") != NULL]), 1, 1.0};
    else if (strcmp(id, "alltoall_1mib") == 0 || strcmp(id, "alltoall_16mib") == 0) {
        long long b = share_bytes(p->collective_bytes[strstr(id, "16mib") != NULL], n);
        *e = (expected_t){OP_ALLTOALL, b, 1, (double)b * (n - 1)};
    } else if (strcmp(id, "multiple_allgather") == 0) {
        long long b = share_bytes(p->collective_bytes[0], n);
        *e = (expected_t){OP_ALLGATHER, b, 1, (double)b * (n - 1)};
    } else if (strcmp(id, "multiple_bcast") == 0)
        *e = (expected_t){OP_BCAST, whole_doubles(p->collective_bytes[0]), 1, 1.0};
    else
        return 0;
    return 1;
}

/* The bytes per message a printed name says: "(N B)", or "(K MiB/rank)" or
 * "(N B/rank)" split among n ranks; -1 when it says none of them. */
static long long name_bytes(const char *name, int n)
{
    const char *open = strrchr(name, '(');
    long long b;
    int end = 0; /* set only when the whole "(K MiB/rank)" matched */
    if (open && sscanf(open, "(%lld MiB/rank)%n", &b, &end) == 1 && end > 0)
        return share_bytes((long)(b << 20), n);
    end = 0;
    if (open && sscanf(open, "(%lld B/rank)%n", &b, &end) == 1 && end > 0)
        return share_bytes((long)b, n);
    return open && sscanf(open, "(%lld B)", &b) == 1 ? b : -1;
}

/* Sets k up with p, runs one iteration on the natural ring and checks what
 * it sent. Returns the number of problems (reported on rank 0). */
static int check_kernel(const canary_kernel_t *k, const canary_params_t *p, const char *label,
                        int me, int n)
{
    void *state = k->setup(MPI_COMM_WORLD, p);
    int left = (me + n - 1) % n, right = (me + 1) % n;
    memset(seen, 0, sizeof(seen));
    if (k->ring_begin)
        k->ring_begin(state, left, right);
    k->iterate(state, left, right);
    if (k->ring_end)
        k->ring_end(state, left, right);
    traffic_t got[N_OPS];
    memcpy(got, seen, sizeof(got));
    double per = k->per_iteration(state);
    PMPI_Barrier(MPI_COMM_WORLD);
    k->teardown(state);

    expected_t e;
    if (!expect(k->id, p, n, &e))
        return 0;
    int bad = 0;
    const traffic_t *t = &got[e.op];
    if (t->calls != e.calls || t->bytes != e.bytes || t->mixed) {
        if (me == 0)
            fprintf(stderr, "%s (%s): %d %s of %lld B, expected %d of %lld B%s\n", k->id, label,
                    t->calls, op_names[e.op], t->bytes, e.calls, e.bytes,
                    t->mixed ? " (sizes differ)" : "");
        bad++;
    }
    if (e.op == OP_ISEND && (got[OP_IRECV].calls != e.calls || got[OP_IRECV].bytes != e.bytes)) {
        if (me == 0)
            fprintf(stderr, "%s (%s): %d receives of %lld B\n", k->id, label,
                    got[OP_IRECV].calls, got[OP_IRECV].bytes);
        bad++;
    }
    if (per != e.per_iteration) {
        if (me == 0)
            fprintf(stderr, "%s (%s): per_iteration %.17g, expected %.17g\n", k->id, label, per,
                    e.per_iteration);
        bad++;
    }
    /* The printed name is derived from p: it says the size sent, with the
     * published sizes and with others. */
    char name[64];
    canary_display_name(k, p, name, sizeof(name));
    if (name_bytes(name, n) != e.bytes) {
        if (me == 0)
            fprintf(stderr, "%s (%s): the name \"%s\" does not say %lld B\n", k->id, label, name,
                    e.bytes);
        bad++;
    }
    return bad;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    const canary_params_t other_shared = {.latency_doubles = 3,
                                   .bandwidth_bytes = 4096,
                                   .bandwidth_outstanding = 2,
                                   .allreduce_doubles = 5,
                                   .alltoall_doubles = 7,
                                   .collective_bytes = {4096 + 5, 65536 + 24}};
    int bad = 0, checked = 0;
    for (int i = 0; i < canary_kernel_count; i++) {
        /* A kernel's own parameter struct (its file's KERNEL_OPTIONS) at
         * its defaults in both: the shared sizes are what differ here. */
        const canary_params_t published = canary_params_default(canary_kernels[i]);
        canary_params_t other = other_shared;
        other.own = published.own;
        bad += check_kernel(canary_kernels[i], &published, "default", me, n);
        bad += check_kernel(canary_kernels[i], &other, "other sizes", me, n);
        expected_t e;
        checked += expect(canary_kernels[i]->id, &published, n, &e);
    }
    int any_bad = 0;
    PMPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (me == 0)
        printf("canary_params_check %s: %d kernels, %d with size expectations, %d ranks\n",
               any_bad ? "FAILED" : "ok", canary_kernel_count, checked, n);
    MPI_Finalize();
    return any_bad ? 1 : 0;
}
