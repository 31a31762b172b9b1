/* Checks the RMA windows of the one-sided kernels (src/infra/rma_window.h)
 * on a real MPI:
 *   - they carry no info hint that turns the library's shared memory off
 *     (the reference creates its windows with MPI_INFO_NULL; the library's
 *     own default may say alloc_shm=true, never false);
 *   - disjoint communicators on one host, which may share a communicator
 *     id, create windows in turns (infra/turns.h) without colliding, and
 *     every window then moves data: each rank puts its world rank into its
 *     right neighbour's window and reads its left neighbour's back.
 * Ranks are dealt into 3 communicators by rank modulo 3, as slices are.
 * Prints one line and exits 0 when both hold, 1 otherwise. */
#include <stdio.h>
#include <string.h>

#include "infra/rma_window.h"
#include "infra/turns.h"

#define SLICES 3

typedef struct {
    MPI_Comm comm;
    double *mem;
    MPI_Win win;
} window_t;

static void create(void *arg)
{
    window_t *w = arg;
    rma_window_allocate(4 * (MPI_Aint)sizeof(double), sizeof(double), w->comm, &w->mem, &w->win);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    window_t w;
    MPI_Comm_split(MPI_COMM_WORLD, rank % SLICES, rank, &w.comm);
    take_turns(MPI_COMM_WORLD, rank % SLICES, create, &w);

    int bad = 0;
    MPI_Info info;
    MPI_Win_get_info(w.win, &info);
    char value[MPI_MAX_INFO_VAL + 1] = "";
    int found = 0;
    MPI_Info_get(info, "alloc_shm", MPI_MAX_INFO_VAL, value, &found);
    MPI_Info_free(&info);
    if (found && strcmp(value, "false") == 0)
        bad |= 1;

    int me, n;
    MPI_Comm_rank(w.comm, &me);
    MPI_Comm_size(w.comm, &n);
    double mine = (double)rank;
    MPI_Win_lock_all(0, w.win);
    MPI_Put(&mine, 1, MPI_DOUBLE, (me + 1) % n, 0, 1, MPI_DOUBLE, w.win);
    MPI_Win_unlock_all(w.win);
    MPI_Barrier(w.comm);
    MPI_Win_lock(MPI_LOCK_SHARED, me, 0, w.win);
    double got = w.mem[0];
    MPI_Win_unlock(me, w.win);
    /* The left neighbour in my communicator has world rank rank - SLICES,
     * wrapping to the last rank of my residue class. */
    int left = me > 0 ? rank - SLICES : rank + SLICES * (n - 1);
    if (got != (double)left)
        bad |= 2;

    int all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_BOR, MPI_COMM_WORLD);
    if (rank == 0)
        printf("rma_window_check %s:%s%s\n", all ? "FAILED" : "ok",
               all & 1 ? " a window has alloc_shm=false" : " no alloc_shm=false hint",
               all & 2 ? ", a Put did not arrive" : ", every Put arrived");
    MPI_Win_free(&w.win);
    MPI_Comm_free(&w.comm);
    MPI_Finalize();
    return all ? 1 : 0;
}
