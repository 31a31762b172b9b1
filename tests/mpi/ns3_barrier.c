/* The smallest program that SimGrid 3.32's ns-3 model leaves deadlocked on a
 * platform with more than one router (docs/portability.md, "Packet-level
 * simulation"): each rank swaps 8 bytes with the rank half the world away,
 * then all meet in a barrier, three times. A star completes it; a fat-tree
 * of 2 leaves and 1 spine stops after the first exchange. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char buf[8] = {0};
    int peer = (rank + size / 2) % size;
    for (int i = 0; i < 3; i++) {
        MPI_Request req[2];
        MPI_Irecv(buf, 8, MPI_CHAR, peer, 0, MPI_COMM_WORLD, &req[0]);
        MPI_Isend(buf, 8, MPI_CHAR, peer, 0, MPI_COMM_WORLD, &req[1]);
        MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
        if (rank == 0) printf("exchange %d done at %g s\n", i, MPI_Wtime());
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) printf("barrier %d done at %g s\n", i, MPI_Wtime());
    }
    MPI_Finalize();
    return 0;
}
