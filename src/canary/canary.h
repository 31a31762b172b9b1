/* Canary (measured) kernels: the interface and the table of all of them.
 *
 * A kernel is one small file defining a canary_kernel_t; adding one means
 * that file plus one row in canary_table.c (docs/design.md#adding-a-kernel).
 * Its setup receives the run's canary_params_t (message sizes). The loops
 * around it (random ring or collective, timeout, timers, statistics) are in
 * measure_loop.c. */
#ifndef GPCNET_CANARY_H
#define GPCNET_CANARY_H

#include <mpi.h>
#include <stddef.h>

#include "infra/option_row.h"
#include "infra/result.h"
#include "infra/stats.h"

typedef enum { LOOP_RANDOM_RING, LOOP_NATURAL_RING, LOOP_COLLECTIVE } loop_kind_t;

typedef struct {
    int measurements, rings, iterations, warmup;
} loop_limits_t;

/* What every canary kernel is given at set-up: the settings of the run that
 * shape its messages, resolved once from the options (suite/run_plan.h) and
 * passed through canary_measure. A kernel reads them in setup and keeps what
 * it needs in its state, so iterate reads only its state; there is no global
 * kernel setting. Room for later settings (e.g. large-message collective
 * sizes, or a timeline of samples) is here: add a field, give it its default
 * in CANARY_PARAMS_DEFAULT, and the kernels that use it read it in setup. A
 * kernel's printed name is derived from the block (size_bytes), so a
 * setting that changes its size changes its name too. */
typedef struct {
    /* RR Two-sided Lat and RR Get Lat: doubles per message. */
    int latency_doubles;
    /* The ring bandwidth kernels (RR Two-sided BW, its +Sync and Nat
     * variants, RR Put BW): bytes per message, and messages in flight to
     * each neighbour per iteration. */
    int bandwidth_bytes;
    int bandwidth_outstanding;
    /* Multiple Allreduce: doubles reduced. */
    int allreduce_doubles;
    /* Multiple Alltoall: doubles to each peer. */
    int alltoall_doubles;
    /* The large-message collective canaries (extras, not in the default
     * set; docs/method.md#large-message-collectives): bytes per rank of
     * their small and their large size. */
    long collective_bytes[2];
    /* The kernel's own parameter struct, when its file declares one
     * (canary_kernel_t.options): its defaults, or what its options set.
     * The kernel reads it with CANARY_OWN(p, its struct type). */
    kernel_params_area_t own;
} canary_params_t;

/* The kernel's own parameter struct in p (see .options below). */
#define CANARY_OWN(p, T) ((const T *)(const void *)(p)->own.bytes)

/* The published sizes (docs/method.md#canaries), written here only: 8 B
 * latency messages, 8 messages of 128 KiB in flight each way, an 8 B
 * allreduce and a 4096 B alltoall. */
#define CANARY_PARAMS_DEFAULT                                       \
    ((canary_params_t){.latency_doubles = 1,                        \
                       .bandwidth_bytes = 131072,                   \
                       .bandwidth_outstanding = 8,                  \
                       .allreduce_doubles = 1,                      \
                       .alltoall_doubles = 512,                     \
                       .collective_bytes = {1L << 20, 16L << 20}})

typedef struct canary_kernel {
    const char *id;        /* option and JSON name */
    const char *label;     /* the printed name before its size: "RR Two-sided Lat" */
    /* The size the printed name ends with, from the parameter block the
     * kernel is set up with (canary_display_name): bytes per message, or
     * with size_per_rank bytes per rank in all. NULL: no size. */
    long (*size_bytes)(const canary_params_t *p);
    int size_per_rank;
    const char *unit;      /* "usec" or "MiB/s/rank" */
    int higher_is_better;  /* bandwidth: 1, latency: 0 */
    loop_kind_t loop;
    loop_limits_t limits;  /* docs/method.md#canaries */
    int load_canary;       /* one of the three canaries of the load test */
    /* Settings of its own: its parameter struct's defaults and the rows of
     * the options that set it, written in its file with KERNEL_OPTIONS
     * (infra/option_row.h; docs/design.md#adding-a-kernel). The option
     * table appends the rows (suite/options/kernel_options.c), the plan copies the
     * struct into each entry's params.own. Zero: none. */
    kernel_options_t options;
    int one_sided;         /* makes RMA windows (--fault-probe checks them) */

    /* Allocate buffers/windows on the slice communicator (collective), with
     * the sizes of p (kept in the state: p is not kept). */
    void *(*setup)(MPI_Comm slice, const canary_params_t *p);
    void (*teardown)(void *state);
    /* Iterations for a communicator of n ranks (NULL: limits.iterations). */
    int (*iterations_for)(int configured, int n);
    /* Around one ring (e.g. RMA locks); NULL when not needed. */
    void (*ring_begin)(void *state, int left, int right);
    void (*ring_end)(void *state, int left, int right);
    /* One iteration of the kernel. */
    void (*iterate)(void *state, int left, int right);
    /* Latency kernels: the time of one iteration counts this many operations
     * (2 for the two neighbours of a ring). Bandwidth kernels: bytes a rank
     * sends per iteration. */
    double (*per_iteration)(void *state);
} canary_kernel_t;

extern const canary_kernel_t *const canary_kernels[];
extern const int canary_kernel_count;
/* 1 for the kernels of network_test's published default set, 0 for the
 * extras (run only when --tests names them): [canary_kernel_count], from
 * the table's rows (canary_table.c), where every row must say which. */
extern const int canary_in_default_set[];

/* The printed name of k set up with p: its label and the size p gives it,
 * "RR Two-sided Lat (8 B)", "Multiple Alltoall (1 MiB/rank)"; the published
 * names at the published sizes. */
void canary_display_name(const canary_kernel_t *k, const canary_params_t *p, char *buf,
                         size_t len);
const canary_kernel_t *canary_find(const char *id);
/* CANARY_PARAMS_DEFAULT with k's own parameter struct at its defaults:
 * the block k is set up with when no option changes it. */
canary_params_t canary_params_default(const canary_kernel_t *k);

/* One canary test as the run plan resolved it (suite/run_plan.h): the
 * kernel, the parameter block its setup receives, its loop limits, the
 * time limit, the --converge tolerance (0: none) and the rings' base seed.
 * Built once before anything runs and never changed after. */
typedef struct canary_plan {
    const canary_kernel_t *kernel;
    canary_params_t params;
    char name[64]; /* canary_display_name of kernel with params */
    loop_limits_t limits;
    double time_limit;   /* seconds */
    double converge_tol; /* > 0: end once Avg and 99% have settled (infra/converge.h) */
    unsigned long long ring_seed;
} canary_plan_t;

/* One test (one plan entry) on one node-slice communicator; test_comm spans
 * every rank of the test (timeout agreement and start barrier). slice_index
 * seeds the rings. tl (canary/timeline.h; NULL: none) also records the
 * values over time, after each timed loop. Returns the rank's accumulator,
 * not yet reduced. */
struct timeline;
void canary_measure(const canary_plan_t *test, MPI_Comm slice, int slice_index,
                    MPI_Comm test_comm, stats_acc_t *acc, struct timeline *tl);

#endif
