/* The preamble of network_test and network_load_test: the reference's
 * header lines and legend, then every setting of the run and whether it is
 * the official default configuration (docs/method.md#official-defaults). */
#include <stdio.h>

#include "suite/options/option_report.h"
#include "suite/preamble.h"
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
    if (run->env.rank != 0)
        return;
    int load = run->env.program == PROGRAM_NETWORK_LOAD_TEST;
    printf("%s v%s\n", load ? "NetworkLoad Tests" : "Network Tests", GPCNET_VERSION);
    printf("  Test with %i MPI ranks (%i nodes)\n", run->env.size, run->env.nodes.n_nodes);
    for (int i = 0; i < n_extra; i++)
        printf("%s\n", extra_lines[i]);
    if (run->env.plan->set.fault_probe > 0.0)
        printf("  MPI with threads (MPI_THREAD_MULTIPLE) for --fault-probe\n");
    printf("\n%s\n", load ? legend_load : legend_network);

    options_print_settings(run);
    fflush(stdout);
}

