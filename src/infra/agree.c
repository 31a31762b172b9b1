#include "infra/agree.h"

void agree_post(agree_t *a, const void *in, void *out, int count, MPI_Datatype type, MPI_Op op,
                MPI_Comm comm)
{
    a->in = in;
    a->out = out;
    a->count = count;
    a->type = type;
    a->op = op;
    a->comm = comm;
    a->pending = 1;
#ifdef SMPI_H
    a->req = MPI_REQUEST_NULL;
#else
    MPI_Iallreduce(in, out, count, type, op, comm, &a->req);
#endif
}

void agree_wait(agree_t *a)
{
    if (!a->pending)
        return;
    a->pending = 0;
#ifdef SMPI_H
    MPI_Allreduce(a->in, a->out, a->count, a->type, a->op, a->comm);
#else
    MPI_Wait(&a->req, MPI_STATUS_IGNORE);
#endif
}
