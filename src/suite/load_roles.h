/* Who does what in the load test: canary and congestor communicators of
 * one placement (docs/method.md#placement), built anew for every repetition and every
 * --congestor-sweep cell. */
#ifndef GPCNET_LOAD_ROLES_H
#define GPCNET_LOAD_ROLES_H

#include "suite/run_context.h"

typedef struct {
    int is_congestor;
    int kernel;              /* congestor kernel index into run->cfg.congestors, -1 on canaries */
    int canary_slice_index;  /* seeds the canary rings */
    MPI_Comm canary_slice;   /* canaries: node-slice communicator */
    MPI_Comm canary_test;    /* canaries in slices of >= 2 ranks */
    MPI_Comm congestor_comm; /* congestors: one kernel within one slice */
    int congestor_active;    /* congestor_comm has >= 2 ranks */
    MPI_Comm kernel_comm;    /* congestors: every rank running my kernel */
    void *state;             /* congestor kernel state */
    int iterations;          /* congestor iterations per measurement */
    const congestor_plan_t *congestor; /* my kernel's plan entry (NULL on canaries) */
} roles_t;

/* Collective over world. only_kernel >= 0: every congestor rank runs that
 * kernel (a sweep cell); -1: each congestor node runs its dealt kernel. */
void roles_build(run_t *run, roles_t *ro, int only_kernel);
void roles_free(run_t *run, roles_t *ro);

#endif
