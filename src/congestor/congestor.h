/* Congestor kernels: the interface and the table of all of them.
 *
 * All use 4 KiB messages (docs/method.md#congestors) except DL Allreduce (6.25 MiB). A new
 * congestor is one small file plus one row in congestor_table.c
 * (docs/design.md#adding-a-kernel). */
#ifndef GPCNET_CONGESTOR_H
#define GPCNET_CONGESTOR_H

#include <mpi.h>
#include <stddef.h>

#include "infra/burst_schedule.h"
#include "infra/option_row.h"
#include "infra/stats.h"

#define CONGESTOR_DEFAULT_BYTES 4096
#define CONGESTOR_BASE_ITERATIONS 512
#define CONGESTOR_MEASUREMENTS 256

/* What every congestor kernel is given at set-up: the settings of the run
 * that shape its traffic, resolved once from the options (suite/run_plan.h).
 * A kernel reads them in setup and keeps what it needs in its state; there
 * is no global kernel setting. Room for later settings (e.g. a list of
 * message sizes) is here: add a field, give it its default in
 * CONGESTOR_PARAMS_DEFAULT, and the kernels that use it read it in setup. */
typedef struct {
    /* Bytes per message of the 4 KiB congestors: 4096
     * (docs/method.md#congestors) unless --congestor-bytes sets it. The one
     * name of that size: the option, this field, and the printed names
     * (congestor_display_name) all say bytes; a kernel's state keeps the
     * MPI count, congestor_message_doubles. */
    long message_bytes;
    /* --burst, --burst-intensity, --burst-jitter: steady unless given. No
     * kernel reads it: the loops around the kernels pace them
     * (congestor_pass, burst_iterate), so every kernel is bursty. */
    burst_shape_t burst;
    /* The kernel's own parameter struct, when its file declares one
     * (congestor_kernel_t.options): its defaults, or what its options set.
     * The kernel reads it with CONGESTOR_OWN(p, its struct type). */
    kernel_params_area_t own;
} congestor_params_t;

/* The kernel's own parameter struct in p (see .options below). */
#define CONGESTOR_OWN(p, T) ((const T *)(const void *)(p)->own.bytes)

#define CONGESTOR_PARAMS_DEFAULT                                         \
    ((congestor_params_t){.message_bytes = CONGESTOR_DEFAULT_BYTES, \
                          .burst = BURST_SHAPE_STEADY})

/* The doubles of one message (the MPI count the kernels send). */
static inline long congestor_message_doubles(const congestor_params_t *p)
{
    return p->message_bytes / (long)sizeof(double);
}

typedef struct congestor_kernel {
    const char *id;    /* option and JSON name */
    const char *label; /* the printed name before its size: "Alltoall" */
    /* The size its printed name gives (congestor_display_name); NULL: the
     * run's message_bytes. A kernel with a size of its own returns it. */
    long (*message_bytes)(const congestor_params_t *p);
    int default_mix;  /* one of the four of the default mix */
    int one_sided;    /* makes RMA windows (--fault-probe checks them) */
    /* Settings of its own: its parameter struct's defaults and the rows of
     * the options that set it (KERNEL_OPTIONS, infra/option_row.h), as a
     * canary's (canary.h). Zero: none. */
    kernel_options_t options;
    /* Iterations per measurement on a communicator of n ranks. */
    int (*iterations_for)(int base, int n);
    void *(*setup)(MPI_Comm comm, const congestor_params_t *p);
    void (*teardown)(void *state);
    void (*pass_begin)(void *state); /* NULL when not needed */
    void (*pass_end)(void *state);
    void (*iterate)(void *state);
    /* Bytes this rank moves per iteration for its bandwidth; 0 when the rank
     * reports nothing (the root of an incast or broadcast). */
    double (*bytes_per_iteration)(void *state);
} congestor_kernel_t;

extern const congestor_kernel_t *const congestor_kernels[];
extern const int congestor_kernel_count;

/* The printed name: the label and the message size p gives the kernel,
 * "Alltoall (4096 B)", or "Alltoall (65536 B)" under --congestor-bytes
 * 65536. */
void congestor_display_name(const congestor_kernel_t *k, const congestor_params_t *p, char *buf,
                            size_t len);

/* CONGESTOR_PARAMS_DEFAULT with k's own parameter struct at its
 * defaults: the block of k's published name. */
congestor_params_t congestor_params_default(const congestor_kernel_t *k);

/* 512 up to 32 ranks, then max(1, 512 * 32 / n). */
int congestor_scaled_iterations(int base, int n);
/* base at every size: what the reference v1.3 runs for its broadcasts (its
 * scaling code for them assigns the incast count instead). */
int congestor_unscaled_iterations(int base, int n);

/* One congestor as the run plan resolved it (suite/run_plan.h): the
 * kernel, the parameter block its setup receives, its weight in the
 * placement, the measurements of a pass and the base iterations of one
 * (before congestor_scaled_iterations and the like), the time limit and
 * the --converge tolerance of a measured pass (0: none). Built once before
 * anything runs and never changed after; a --burst-sweep cell is a copy
 * with its own burst shape. */
typedef struct congestor_plan {
    const congestor_kernel_t *kernel;
    congestor_params_t params;
    char name[64]; /* congestor_display_name of kernel with params */
    int weight;
    int measurements;
    int base_iterations;
    double time_limit;   /* seconds */
    double converge_tol; /* > 0: a measured pass ends once settled (infra/converge.h) */
} congestor_plan_t;

/* A congestor's view of the bursts: the schedule and t0, the MPI_Wtime()
 * of the congestors' common start on this rank (docs/experiments.md
 * #bursty-congestion).
 *
 * network_congestor's end: a round is a fixed number of paced iterations
 * (every rank of a kernel must run the same ones, or a peer waits for ever),
 * and a pause can be long (an OFF period, or the pacing of a tiny
 * --burst-intensity), so a round could outlast --duration and the stop file
 * by far. Instead of skipping iterations, the pauses end: no pause lasts
 * past t0 + end_s, a pause looks at stop_asked every BURST_STOP_POLL_S
 * (telling it how long this pause has lasted), and once the end has passed
 * or a stop is asked, the rest of the round runs without pauses (as a
 * steady round; `ended` says so). The load test sets none of these
 * (0 / NULL): its measurements keep their pacing. */
typedef struct {
    burst_clock_t clock;
    double t0;
    double end_s; /* > 0: no pause runs past t0 + end_s */
    /* NULL: none; nonzero once a stop is asked */
    int (*stop_asked)(void *ctx, double paused_s);
    void *stop_ctx;
    int ended; /* set once the end passed or a stop was asked: no more pauses */
} burst_run_t;

#define BURST_STOP_POLL_S 0.01

/* One pass of plan entry c: up to c->measurements measurements of
 * `iterations` iterations (c->base_iterations scaled to comm by the
 * caller), ended early once any rank of comm passes c->time_limit, or once
 * `done` (NULL: never; the canaries' "done" barrier) has completed on any
 * rank of comm, agreed with one non-blocking reduction per measurement so
 * the load stays steady and every rank runs the same measurements. With
 * acc, the pass is measured (samples and one bulk value per rank), and with
 * c->converge_tol > 0 it ends once every rank's mean bandwidth and 99% have
 * settled to it.
 * Under a burst shape (burst not NULL and not steady) each iteration starts
 * only when burst_wait allows it: the loop around the kernel waits out OFF
 * periods and paces ON periods (a duty cycle on the common clock, the same
 * windows on every rank); the samples are the kernel's own iteration
 * times, and the bulk bandwidth counts the ON time (iterations and the
 * pacing gaps between them, not the OFF periods), so it is the achieved
 * injection rate during bursts. burst NULL or steady: the published loop.
 * Returns 1 when the pass ended because `done` completed. */
int congestor_pass(const congestor_plan_t *c, void *state, MPI_Comm comm, int iterations,
                   MPI_Request *done, stats_acc_t *acc, burst_run_t *burst);

/* iterations paced iterations of k (network_congestor's rounds); durations
 * (may be NULL) receives each iteration's time. Returns the seconds spent
 * outside OFF periods. A pacing pause (not an OFF period) that has ended
 * starts an iteration even when the rank woke past the sub-period's active
 * part, so every sub-period starts at least one iteration: a tiny
 * intensity paces at one iteration per sub-period, it never stalls. */
double burst_iterate(const congestor_kernel_t *k, void *state, burst_run_t *burst, int iterations,
                     double *durations);

#endif
