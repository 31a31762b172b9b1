/* Congestor names, bytes per iteration and iteration scaling as the
 * reference v1.3 prints and runs them (docs/fidelity.md). No MPI call is
 * made: the kernels' tables are read with hand-made states. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "congestor/congestor.h"
#include "congestor/congestor_state.h"
#include "congestor/flows.h"

static const congestor_kernel_t *find(const char *id)
{
    for (int i = 0; i < congestor_kernel_count; i++)
        if (strcmp(congestor_kernels[i]->id, id) == 0)
            return congestor_kernels[i];
    return NULL;
}

/* k's printed name at the published sizes is name. */
static int published_name(const congestor_kernel_t *k, const char *name)
{
    char buf[80];
    congestor_display_name(k, &CONGESTOR_PARAMS_DEFAULT, buf, sizeof(buf));
    return strcmp(buf, name) == 0;
}

int main(void)
{
    const congestor_kernel_t *a2a = find("a2a"), *pi = find("p2p_incast"),
                             *ri = find("rma_incast"), *rb = find("rma_bcast"),
                             *dl = find("dl_allreduce"), *pb = find("p2p_bcast");
    CHECK(a2a && pi && ri && rb && dl && pb);
    if (!(a2a && pi && ri && rb && dl && pb))
        return check_report("test_congestor_kernels");

    /* Names as the reference's congestor_test_setup() prints them. */
    CHECK(published_name(a2a, "Alltoall (4096 B)"));
    CHECK(published_name(pi, "Two-sided Incast (4096 B)"));
    CHECK(published_name(ri, "Put Incast (4096 B)"));
    CHECK(published_name(rb, "Get Bcast (4096 B)"));
    CHECK(published_name(pb, "Two-sided Bcast (4096 B)"));
    CHECK(published_name(dl, "Allreduce (6553600 B)"));

    /* Bytes per iteration behind the bandwidth. */
    congestor_state_t root = {.rank = 0, .n = 5, .count = CONGESTOR_DEFAULT_BYTES / 8},
                      other = {.rank = 3, .n = 5, .count = CONGESTOR_DEFAULT_BYTES / 8};
    CHECK(a2a->bytes_per_iteration(&other) == 4096.0 * 4);
    CHECK(a2a->bytes_per_iteration(&root) == 4096.0 * 4);
    CHECK(dl->bytes_per_iteration(&other) == 2.0 * 6553600);
    CHECK(dl->bytes_per_iteration(&root) == 2.0 * 6553600);
    const congestor_kernel_t *rooted[] = {pi, ri, rb, pb};
    for (int i = 0; i < 4; i++) {
        CHECK(rooted[i]->bytes_per_iteration(&root) == 0.0); /* the root reports nothing */
        CHECK(rooted[i]->bytes_per_iteration(&other) == 4096.0);
    }

    /* Iterations: the reference scales A2A and the incasts linearly above 32
     * ranks, the allreduce by 1 / (1 + ln(n/32)), and never its broadcasts. */
    for (int n = 2; n <= 32; n++) {
        const congestor_kernel_t *all[] = {a2a, pi, ri, rb, dl, pb};
        for (int i = 0; i < 6; i++)
            CHECK(all[i]->iterations_for(512, n) == 512);
    }
    CHECK(a2a->iterations_for(512, 40) == 409);
    CHECK(pi->iterations_for(512, 40) == 409);
    CHECK(ri->iterations_for(512, 40) == 409);
    CHECK(a2a->iterations_for(512, 100000) == 1);
    CHECK(rb->iterations_for(512, 40) == 512);
    CHECK(pb->iterations_for(512, 40) == 512);
    CHECK(rb->iterations_for(512, 100000) == 512);
    CHECK(rb->iterations_for(64, 4096) == 64);
    CHECK(dl->iterations_for(512, 40) == (int)(512.0 / (1.0 + log(40.0 / 32.0))));
    CHECK(dl->iterations_for(512, 64) == 302); /* 512 / (1 + ln 2) */

    /* network_congestor --flows: a round is 8 iterations unless the busiest
     * node's messages per round would pass FLOWS_ROUND_MESSAGES; then fewer,
     * never none; --congestor-iterations is kept as given. */
    int incast[] = {1, 0, 2, 0, 3, 0, 4, 5, 5, 4}; /* node 0 in 3 flows, 4 and 5 in 2 */
    CHECK(flows_busiest(incast, 5, 6) == 3);
    CHECK(flows_round_iterations(512, 3) == 8);
    CHECK(flows_round_iterations(512, 32) == 8);
    CHECK(flows_round_iterations(512, 33) == 7);
    CHECK(flows_round_iterations(512, 100) == 2);
    CHECK(flows_round_iterations(512, 257) == 1);
    CHECK(flows_round_iterations(512, 1 << 20) == 1);
    CHECK(flows_round_iterations(64, 100000) == 64);
    enum { FAN = 1000 };
    static int fan_in[2 * FAN];
    for (int i = 0; i < FAN; i++)
        fan_in[2 * i] = i + 1, fan_in[2 * i + 1] = 0;
    CHECK(flows_busiest(fan_in, FAN, FAN + 1) == FAN);

    /* The message size is a set-up parameter, not a global: a state made
     * for 64 KiB messages counts 64 KiB, and the printed name says so. */
    congestor_state_t big = {.rank = 3, .n = 5, .count = 8192};
    CHECK(a2a->bytes_per_iteration(&big) == 65536.0 * 4);
    CHECK(pi->bytes_per_iteration(&big) == 65536.0);
    CHECK(dl->bytes_per_iteration(&big) == 2.0 * 6553600);
    congestor_params_t p = CONGESTOR_PARAMS_DEFAULT;
    char name[80];
    congestor_display_name(a2a, &p, name, sizeof(name));
    CHECK(strcmp(name, "Alltoall (4096 B)") == 0);
    p.message_bytes = 65536;
    congestor_display_name(a2a, &p, name, sizeof(name));
    CHECK(strcmp(name, "Alltoall (65536 B)") == 0);
    congestor_display_name(dl, &p, name, sizeof(name));
    CHECK(strcmp(name, "Allreduce (6553600 B)") == 0);
    return check_report("test_congestor_kernels");
}
