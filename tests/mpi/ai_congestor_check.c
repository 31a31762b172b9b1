/* Checks the traffic of the AI-shaped congestors (moe_alltoallv, fsdp,
 * pipeline; docs/method.md#ai-shaped-congestors) on a real MPI, by
 * intercepting their calls through the MPI profiling interface around one
 * iteration:
 *   - moe_alltoallv: one MPI_Alltoallv whose counts to destination d fall
 *     with d, the first over the last about --moe-skew, their mean the
 *     message size; every rank receives the same from each sender, its own
 *     share; with --moe-skew 1 all counts are the mean;
 *   - fsdp: one MPI_Allgather and one MPI_Reduce_scatter_block of the shard;
 *   - pipeline: two MPI_Sendrecv of the activations, forward to the next
 *     stage and back to the previous one, the stages one chain over all
 *     ranks.
 * Prints one line and exits 0 when all hold, 1 otherwise (problems on
 * stderr). Any number of ranks from 2. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "congestor/congestor.h"

#define MAX_RANKS 64

static int a2av_calls, a2av_send[MAX_RANKS], a2av_recv[MAX_RANKS];
static int allgather_calls, allgather_count, rs_calls, rs_count;
static int sendrecv_calls, sr_dest[2], sr_source[2], sr_count[2];

int MPI_Alltoallv(const void *sbuf, const int *scounts, const int *sdispls, MPI_Datatype stype,
                  void *rbuf, const int *rcounts, const int *rdispls, MPI_Datatype rtype,
                  MPI_Comm comm)
{
    int n;
    PMPI_Comm_size(comm, &n);
    for (int i = 0; i < n && i < MAX_RANKS; i++) {
        a2av_send[i] = scounts[i];
        a2av_recv[i] = rcounts[i];
    }
    a2av_calls++;
    return PMPI_Alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm);
}

int MPI_Allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                  MPI_Datatype rtype, MPI_Comm comm)
{
    allgather_calls++;
    allgather_count = scount;
    return PMPI_Allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm);
}

int MPI_Reduce_scatter_block(const void *sbuf, void *rbuf, int count, MPI_Datatype type,
                             MPI_Op op, MPI_Comm comm)
{
    rs_calls++;
    rs_count = count;
    return PMPI_Reduce_scatter_block(sbuf, rbuf, count, type, op, comm);
}

int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag, void *rbuf,
                 int rcount, MPI_Datatype rtype, int source, int rtag, MPI_Comm comm,
                 MPI_Status *status)
{
    if (sendrecv_calls < 2) {
        sr_dest[sendrecv_calls] = dest;
        sr_source[sendrecv_calls] = source;
        sr_count[sendrecv_calls] = scount;
    }
    sendrecv_calls++;
    return PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm,
                         status);
}

static const congestor_kernel_t *find(const char *id)
{
    for (int i = 0; i < congestor_kernel_count; i++)
        if (strcmp(congestor_kernels[i]->id, id) == 0)
            return congestor_kernels[i];
    return NULL;
}

/* One iteration of kernel id with its own struct set to own (NULL: its
 * defaults) and messages of message_bytes. */
static void one_iteration(const char *id, const void *own, size_t own_size, long message_bytes)
{
    const congestor_kernel_t *k = find(id);
    congestor_params_t p = congestor_params_default(k);
    p.message_bytes = message_bytes;
    if (own)
        memcpy(p.own.bytes, own, own_size);
    void *state = k->setup(MPI_COMM_WORLD, &p);
    a2av_calls = allgather_calls = rs_calls = sendrecv_calls = 0;
    k->iterate(state);
    k->teardown(state);
}

static int problem(int me, const char *what)
{
    fprintf(stderr, "rank %d: %s\n", me, what);
    return 1;
}

static int check_moe(int me, int n, double skew)
{
    int bad = 0;
    one_iteration("moe_alltoallv", &skew, sizeof(skew), 4096);
    if (a2av_calls != 1)
        return problem(me, "moe_alltoallv: not one MPI_Alltoallv per iteration");
    double sum = 0.0;
    for (int d = 0; d < n; d++) {
        sum += a2av_send[d];
        if (a2av_recv[d] != a2av_send[me])
            bad += problem(me, "moe_alltoallv: it does not receive its own share from each");
        if (d && (skew > 1.0 ? a2av_send[d] >= a2av_send[d - 1] : a2av_send[d] != a2av_send[0]))
            bad += problem(me, "moe_alltoallv: the counts do not fall with the destination");
    }
    if (fabs(sum / n - 512.0) > 1.0)
        bad += problem(me, "moe_alltoallv: the mean message is not --congestor-bytes");
    if (fabs((double)a2av_send[0] / a2av_send[n - 1] - skew) > 0.01 * skew)
        bad += problem(me, "moe_alltoallv: the first over the last count is not --moe-skew");
    return bad;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, n, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (n < 2 || n > MAX_RANKS) {
        if (me == 0)
            fprintf(stderr, "ai_congestor_check: needs 2 to %d ranks\n", MAX_RANKS);
        MPI_Finalize();
        return 1;
    }
    bad += check_moe(me, n, 8.0);
    bad += check_moe(me, n, 1.0);

    long shard = 2048;
    one_iteration("fsdp", &shard, sizeof(shard), 4096);
    if (allgather_calls != 1 || rs_calls != 1 || allgather_count != 256 || rs_count != 256)
        bad += problem(me, "fsdp: not one allgather and one reduce-scatter of the shard");

    long activations = 8192;
    one_iteration("pipeline", &activations, sizeof(activations), 4096);
    int next = sr_dest[0], prev = sr_source[0];
    if (sendrecv_calls != 2 || sr_count[0] != 1024 || sr_count[1] != 1024 ||
        sr_dest[1] != prev || sr_source[1] != next)
        bad += problem(me, "pipeline: not forward to the next stage and back to the previous");
    /* One chain over all ranks: each next's previous is this rank. */
    int links[2] = {prev, next}, all[2 * MAX_RANKS];
    PMPI_Allgather(links, 2, MPI_INT, all, 2, MPI_INT, MPI_COMM_WORLD);
    int firsts = 0, lasts = 0, steps = 0;
    for (int r = 0; r < n; r++) {
        firsts += all[2 * r] == MPI_PROC_NULL;
        lasts += all[2 * r + 1] == MPI_PROC_NULL;
        if (all[2 * r + 1] != MPI_PROC_NULL && all[2 * all[2 * r + 1]] != r)
            bad += me == 0 ? problem(me, "pipeline: next and previous disagree") : 0;
    }
    int stage = 0;
    while (all[2 * stage] != MPI_PROC_NULL)
        stage++;
    for (int r = stage; r != MPI_PROC_NULL && steps <= n; r = all[2 * r + 1])
        steps++;
    if (firsts != 1 || lasts != 1 || steps != n)
        bad += me == 0 ? problem(me, "pipeline: the stages are not one chain over all ranks") : 0;

    int any_bad = 0;
    PMPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (me == 0)
        printf("ai_congestor_check %s: %d ranks\n", any_bad ? "FAILED" : "ok", n);
    MPI_Finalize();
    return any_bad ? 1 : 0;
}
