/* RR Two-sided BW, RR Two-sided BW+Sync and Nat Two-sided BW (131072 B):
 * 8 messages of 128 KiB (bandwidth_outstanding of bandwidth_bytes) in flight
 * to and from each ring neighbour. The three
 * differ only in the ring and in a barrier inside the timed region, so they
 * share this file. */
#include <stdlib.h>
#include <string.h>

#include "canary/canary.h"
#include "canary/ring_buffers.h"
#include "infra/comm_mem.h"
#include "infra/fatal.h"

static ring_state_t *alloc_state(MPI_Comm slice, const canary_params_t *p, int sync)
{
    ring_state_t *s = xcalloc(1, sizeof(*s));
    s->comm = slice;
    s->sync = sync;
    s->slot = (size_t)p->bandwidth_bytes;
    s->count = p->bandwidth_bytes;
    s->outstanding = p->bandwidth_outstanding;
    s->base = comm_alloc(RING_SLOTS * s->slot);
    s->req = xcalloc(4 * (size_t)s->outstanding, sizeof(MPI_Request));
    return s;
}

static void *setup(MPI_Comm slice, const canary_params_t *p) { return alloc_state(slice, p, 0); }
static void *setup_sync(MPI_Comm slice, const canary_params_t *p)
{
    return alloc_state(slice, p, 1);
}

static void teardown(void *state)
{
    ring_state_t *s = state;
    comm_free(s->base);
    free(s->req);
    free(s);
}

/* As the reference: the receives from one neighbour share its slot (the
 * contents are never read), the sends to one neighbour share theirs. */
static void iterate(void *state, int left, int right)
{
    ring_state_t *s = state;
    const int n = s->outstanding, count = s->count;
    char *from_left = ring_slot(s, SLOT_FROM_LEFT), *from_right = ring_slot(s, SLOT_FROM_RIGHT);
    char *to_left = ring_slot(s, SLOT_TO_LEFT), *to_right = ring_slot(s, SLOT_TO_RIGHT);
    for (int j = 0; j < n; j++) {
        MPI_Irecv(from_left, count, MPI_BYTE, left, TAG_FROM_LEFT, s->comm, &s->req[j]);
        MPI_Irecv(from_right, count, MPI_BYTE, right, TAG_FROM_RIGHT, s->comm,
                  &s->req[n + j]);
    }
    for (int j = 0; j < n; j++) {
        MPI_Isend(to_left, count, MPI_BYTE, left, TAG_FROM_RIGHT, s->comm,
                  &s->req[2 * n + j]);
        MPI_Isend(to_right, count, MPI_BYTE, right, TAG_FROM_LEFT, s->comm,
                  &s->req[3 * n + j]);
    }
    MPI_Waitall(4 * n, s->req, MPI_STATUSES_IGNORE);
    if (s->sync)
        MPI_Barrier(s->comm);
}

/* Printed size: one message. */
static long message_bytes(const canary_params_t *p) { return p->bandwidth_bytes; }

#define TWO_SIDED_BW(var, id_, label_, loop_, setup_, canary_) \
    const canary_kernel_t var = {                             \
        .id = id_,                                            \
        .label = label_,                                      \
        .size_bytes = message_bytes,                          \
        .unit = "MiB/s/rank",                                 \
        .higher_is_better = 1,                                \
        .loop = loop_,                                        \
        .limits = {.measurements = 10000, .rings = 30,      \
                   .iterations = 8, .warmup = 1},             \
        .load_canary = canary_,                               \
        .setup = setup_,                                      \
        .teardown = teardown,                                 \
        .iterate = iterate,                                   \
        .per_iteration = ring_bytes_per_iteration,            \
    }

TWO_SIDED_BW(rr_two_sided_bw, "rr_two_sided_bw", "RR Two-sided BW",
             LOOP_RANDOM_RING, setup, 0);
TWO_SIDED_BW(rr_two_sided_bw_sync, "rr_two_sided_bw_sync", "RR Two-sided BW+Sync",
             LOOP_RANDOM_RING, setup_sync, 1);
TWO_SIDED_BW(nat_two_sided_bw, "nat_two_sided_bw", "Nat Two-sided BW",
             LOOP_NATURAL_RING, setup, 0);
