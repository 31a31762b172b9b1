/* The all-pairs shifts (all_pairs.h): measuring and bringing the values to
 * world rank 0. The document member and the summary are all_pairs_report.c. */
#include "suite/network_test/all_pairs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "infra/comm_mem.h"
#include "infra/fatal.h"
#include "infra/pair_exchange.h"
#include "infra/progress.h"
#include "infra/watchdog.h"
#include "suite/record/phase_end.h"

#define TAG_ALL_PAIRS_BW 4501
#define TAG_ALL_PAIRS_PING 4502
#define TAG_ALL_PAIRS_PONG 4503

typedef struct {
    MPI_Comm leaders; /* one rank per node; its rank is the node's index */
    int me, n, bytes;
    char *out, *in;
    MPI_Request req[2 * ALL_PAIRS_MESSAGES];
} shifter_t;

/* Bandwidth from src to me (MiB/s): the receiver times its messages from
 * a barrier that starts every sender at once, so the time is that of the
 * path from src to me while every other pair streams, whatever the other
 * pairs' paths do (a ring would pace each node to the slowest). */
static double bandwidth_in(shifter_t *s, int src, int dst)
{
    const int m = ALL_PAIRS_MESSAGES;
    double t[ALL_PAIRS_REPS];
    /* untimed: first contact between the two, connection set-up */
    MPI_Irecv(s->in, s->bytes, MPI_BYTE, src, TAG_ALL_PAIRS_BW, s->leaders, &s->req[0]);
    MPI_Isend(s->out, s->bytes, MPI_BYTE, dst, TAG_ALL_PAIRS_BW, s->leaders, &s->req[1]);
    MPI_Waitall(2, s->req, MPI_STATUSES_IGNORE);
    for (int r = 0; r < ALL_PAIRS_REPS; r++) {
        /* The receives share one buffer, as the ring kernels' do: the
         * contents are never read. */
        for (int j = 0; j < m; j++)
            MPI_Irecv(s->in, s->bytes, MPI_BYTE, src, TAG_ALL_PAIRS_BW, s->leaders, &s->req[j]);
        MPI_Barrier(s->leaders);
        double start = MPI_Wtime();
        for (int j = 0; j < m; j++)
            MPI_Isend(s->out, s->bytes, MPI_BYTE, dst, TAG_ALL_PAIRS_BW, s->leaders,
                      &s->req[m + j]);
        MPI_Waitall(m, s->req, MPI_STATUSES_IGNORE);
        t[r] = MPI_Wtime() - start;
        MPI_Waitall(m, s->req + m, MPI_STATUSES_IGNORE);
    }
    double sec = median_in_place(t, ALL_PAIRS_REPS);
    return sec > 0 ? (double)m * s->bytes / sec / 1048576.0 : NAN;
}

/* Latency from me to dst (usec): half the round trip of a small message
 * to dst and back, while this node answers src's message in the same way.
 * Every repetition starts at a barrier so dst is listening already. */
static double latency_out(shifter_t *s, int src, int dst)
{
    char ping_out[ALL_PAIRS_LAT_BYTES] = {0}, ping_in[ALL_PAIRS_LAT_BYTES];
    char pong_out[ALL_PAIRS_LAT_BYTES] = {0}, pong_in[ALL_PAIRS_LAT_BYTES];
    double t[ALL_PAIRS_LAT_REPS];
    for (int r = 0; r < ALL_PAIRS_LAT_REPS; r++) {
        MPI_Request req[4];
        MPI_Irecv(pong_in, ALL_PAIRS_LAT_BYTES, MPI_BYTE, dst, TAG_ALL_PAIRS_PONG, s->leaders,
                  &req[0]);
        MPI_Irecv(ping_in, ALL_PAIRS_LAT_BYTES, MPI_BYTE, src, TAG_ALL_PAIRS_PING, s->leaders,
                  &req[1]);
        req[3] = MPI_REQUEST_NULL;
        MPI_Barrier(s->leaders);
        double start = MPI_Wtime(), rtt = NAN;
        MPI_Isend(ping_out, ALL_PAIRS_LAT_BYTES, MPI_BYTE, dst, TAG_ALL_PAIRS_PING, s->leaders,
                  &req[2]);
        for (int left = 2; left > 0; left--) {
            int which;
            MPI_Waitany(2, req, &which, MPI_STATUS_IGNORE);
            if (which == 0)
                rtt = MPI_Wtime() - start;
            else /* src's ping: answer at once */
                MPI_Isend(pong_out, ALL_PAIRS_LAT_BYTES, MPI_BYTE, src, TAG_ALL_PAIRS_PONG,
                          s->leaders, &req[3]);
        }
        MPI_Waitall(2, req + 2, MPI_STATUSES_IGNORE);
        t[r] = rtt * 1e6 / 2.0;
    }
    return median_in_place(t, ALL_PAIRS_LAT_REPS);
}

/* The slowest pairs so far, slowest first (n_worst <= ALL_PAIRS_WORST). */
static void keep_if_worst(all_pairs_t *ap, all_pairs_cell_t c)
{
    if (isnan(c.mib_s))
        return;
    int at = ap->n_worst;
    while (at > 0 && ap->worst[at - 1].mib_s > c.mib_s)
        at--;
    if (at >= ALL_PAIRS_WORST)
        return;
    int last = ap->n_worst < ALL_PAIRS_WORST ? ap->n_worst : ALL_PAIRS_WORST - 1;
    memmove(&ap->worst[at + 1], &ap->worst[at], sizeof(c) * (size_t)(last - at));
    ap->worst[at] = c;
    if (ap->n_worst < ALL_PAIRS_WORST)
        ap->n_worst++;
}

static void extend(double v, double *lo, double *hi)
{
    if (isnan(v))
        return;
    if (isnan(*lo) || v < *lo)
        *lo = v;
    if (isnan(*hi) || v > *hi)
        *hi = v;
}

/* Rank 0: one shift's values, got[2 * i] the bandwidth into node i (from
 * i - k), got[2 * i + 1] the latency out of node i (to i + k). */
static void record_shift(all_pairs_t *ap, int k, const double *got)
{
    int n = ap->n_nodes;
    for (int i = 0; i < n; i++) {
        int src = (i - k + n) % n, dst = (i + k) % n;
        double bw = got[2 * i], lat = got[2 * i + 1];
        if (ap->full) {
            ap->mib_s[(size_t)src * (size_t)n + (size_t)i] = bw;
            ap->usec[(size_t)i * (size_t)n + (size_t)dst] = lat;
        }
        ap->send_mib_s[src] += bw / (n - 1);
        ap->recv_mib_s[i] += bw / (n - 1);
        ap->send_usec[i] += lat / (n - 1);
        ap->recv_usec[dst] += lat / (n - 1);
        extend(bw, &ap->min_mib_s, &ap->max_mib_s);
        extend(lat, &ap->min_usec, &ap->max_usec);
    }
    /* A pair's latency was measured in the same shift as its bandwidth
     * (sender src, shift k): name it beside the bandwidth. */
    for (int i = 0; i < n; i++) {
        int src = (i - k + n) % n;
        keep_if_worst(ap, (all_pairs_cell_t){src, i, got[2 * i], got[2 * src + 1]});
    }
}

static void rank0_alloc(all_pairs_t *ap)
{
    size_t n = (size_t)ap->n_nodes;
    if (ap->full) {
        ap->mib_s = xmalloc(sizeof(double) * n * n);
        ap->usec = xmalloc(sizeof(double) * n * n);
        for (size_t c = 0; c < n * n; c++)
            ap->mib_s[c] = ap->usec[c] = NAN;
    }
    ap->send_mib_s = xcalloc(n, sizeof(double));
    ap->recv_mib_s = xcalloc(n, sizeof(double));
    ap->send_usec = xcalloc(n, sizeof(double));
    ap->recv_usec = xcalloc(n, sizeof(double));
    ap->min_mib_s = ap->max_mib_s = ap->min_usec = ap->max_usec = NAN;
}

void all_pairs_run(run_t *run, all_pairs_t *ap)
{
    memset(ap, 0, sizeof(*ap));
    if (!run->env.plan->set.all_pairs)
        return;
    int n = run->env.nodes.n_nodes;
    ap->n_nodes = n;
    ap->bytes = run->env.plan->set.all_pairs_bytes;
    ap->full = n <= ALL_PAIRS_MATRIX_MAX;
    int leader = run->env.nodes.my_local == 0;
    /* World rank 0 is the first rank of its node, so it leads it. */
    int root = run->env.nodes.node_of_rank[0];
    shifter_t s = {.me = run->env.nodes.my_node, .n = n, .bytes = (int)ap->bytes};
    MPI_Comm_split(run->env.world, leader ? 0 : MPI_UNDEFINED, run->env.nodes.my_node, &s.leaders);
    double *got = NULL;
    if (run->env.rank == 0) {
        rank0_alloc(ap);
        got = xmalloc(sizeof(double) * 2 * (size_t)n);
    }
    watchdog_note_step("all_pairs", "shift pattern"); /* what a deadline's message names */
    MPI_Barrier(run->env.world);
    double start = MPI_Wtime();
    if (leader) {
        s.out = comm_alloc((size_t)s.bytes);
        s.in = comm_alloc((size_t)s.bytes);
        for (int k = 1; k < n; k++) {
            progress_note(k == 1, "all-pairs: shift %d of %d (%d nodes)", k, n - 1, n);
            int src = (s.me - k + n) % n, dst = (s.me + k) % n;
            double mine[2] = {bandwidth_in(&s, src, dst), latency_out(&s, src, dst)};
            MPI_Gather(mine, 2, MPI_DOUBLE, got, 2, MPI_DOUBLE, root, s.leaders);
            if (run->env.rank == 0)
                record_shift(ap, k, got);
        }
        comm_free(s.out);
        comm_free(s.in);
        MPI_Comm_free(&s.leaders);
    }
    MPI_Barrier(run->env.world);
    ap->wall_s = MPI_Wtime() - start;
    free(got);
    suite_phase_end(run, "all_pairs", ap->wall_s);
    if (run->env.rank == 0)
        all_pairs_print(stdout, run, ap);
}

void all_pairs_free(all_pairs_t *ap)
{
    free(ap->mib_s);
    free(ap->usec);
    free(ap->send_mib_s);
    free(ap->recv_mib_s);
    free(ap->send_usec);
    free(ap->recv_usec);
    memset(ap, 0, sizeof(*ap));
}
