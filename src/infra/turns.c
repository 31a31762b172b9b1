#include "infra/turns.h"

void take_turns(MPI_Comm all, int my_turn, turn_fn fn, void *arg)
{
    int n_turns = my_turn + 1;
    MPI_Allreduce(MPI_IN_PLACE, &n_turns, 1, MPI_INT, MPI_MAX, all);
    for (int t = 0; t < n_turns; t++) {
        if (t == my_turn)
            fn(arg);
        MPI_Barrier(all);
    }
}
