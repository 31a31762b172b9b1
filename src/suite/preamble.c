/* The preamble of network_test and network_load_test: the reference's
 * header lines and legend, then every setting of the run and whether it is
 * the official default configuration (docs/method.md#official-defaults). */
#include <stdio.h>

#include "suite/run_context.h"

static const char *legend_network = "  Legend\n"
                                    "   RR = random ring communication pattern\n"
                                    "   Nat = natural ring communication pattern\n"
                                    "   Lat = latency\n"
                                    "   BW = bandwidth\n"
                                    "   BW+Sync = bandwidth with barrier\n";
static const char *legend_load = "  Legend\n"
                                 "   RR = random ring communication pattern\n"
                                 "   Lat = latency\n"
                                 "   BW = bandwidth\n"
                                 "   BW+Sync = bandwidth with barrier\n";

void run_print_preamble(const run_t *run, const char *const *extra_lines, int n_extra)
{
    if (run->rank != 0)
        return;
    const options_t *o = &run->opt;
    int load = run->program == PROGRAM_NETWORK_LOAD_TEST;
    printf("%s v%s\n", load ? "NetworkLoad Tests" : "Network Tests", GPCNET_VERSION);
    printf("  Test with %i MPI ranks (%i nodes)\n", run->size, run->nodes.n_nodes);
    for (int i = 0; i < n_extra; i++)
        printf("%s\n", extra_lines[i]);
    printf("\n%s\n", load ? legend_load : legend_network);

    printf("  Settings (official default configuration: %s%s%s)\n",
           run->cfg.official_default ? "yes" : "no", run->cfg.official_default ? "" : "; differs: ",
           run->cfg.non_default);
    if (load)
        printf("   seed = %llu (%s)\n", (unsigned long long)run->seed,
               run->seed_from_time ? "time on rank 0" : "--seed");
    printf("   ring seed = %llu\n", (unsigned long long)o->ring_seed);
    if (load) {
        printf("   canary fraction = %g\n", o->canary_fraction);
        printf("   congestors =");
        for (int i = 0; i < run->cfg.n_congestors; i++)
            printf("%s %s:%d", i ? "," : "", run->cfg.congestors[i]->id, run->cfg.weights[i]);
        printf("\n   congestor loops = %d measurements x %d iterations (scaled above 32 ranks)\n",
               run->cfg.congestor_measurements, run->cfg.congestor_iterations);
        printf("   congestor message = %ld B\n", o->congestor_bytes);
        printf("   placement = %s\n", o->placement == PLACEMENT_COLOCATED
                                          ? "colocated (canaries and congestors share every node)"
                                          : "split (congestors on their own nodes)");
        if (o->congestor_sweep)
            printf("   congestor sweep = yes (each congestor alone, then all together)\n");
        if (o->repeat > 1)
            printf("   repeat = %d (%s)\n", o->repeat,
                   o->seed_given ? "same seed each time" : "fresh placement seed each time");
    }
    if (o->converge > 0.0)
        printf("   converge = %g (a test ends once its Avg and 99%% are stable to this)\n",
               o->converge);
    printf("   time limit = %g s per test\n", o->time_limit);
    for (int i = 0; i < run->cfg.n_tests; i++) {
        loop_limits_t l = run->cfg.limits[i];
        printf("   %s = %d measurements x %d rings x %d iterations, %d warm-up\n",
               run->cfg.tests[i]->id, l.measurements, l.rings, l.iterations, l.warmup);
    }
    if (o->emulate_ppn)
        printf("   nodes = emulated, %d consecutive ranks per node\n", o->emulate_ppn);
    else if (o->emulate_nodes)
        printf("   nodes = emulated, %d equal groups of ranks\n", o->emulate_nodes);
    else
        printf("   nodes = shared-memory hosts\n");
    printf("   PPN = %d%s, NICs per node = %d, PPort = %g\n", run->nodes.ppn_max,
           run->nodes.ppn_min != run->nodes.ppn_max ? " (uneven)" : "", o->nics_per_node,
           (double)run->nodes.ppn_max / o->nics_per_node);
    printf("   verbose = %s\n", o->verbose ? "yes" : "no");
    printf("   MPI = %s\n", run->mpi_library);
    printf("   JSON = %s\n", run->json_path);
    fflush(stdout);
}

