/* --help of the three programs (fits 80 columns). */
#include <stdio.h>
#include <string.h>

#include "infra/options.h"

/* The names, wrapped to fit 80 columns under a 29-column indent. */
static void catalog_wrapped(const name_catalog_t *cat, char *buf, size_t len)
{
    const char *indent = "\n                             ";
    size_t col = 29;
    buf[0] = '\0';
    for (int i = 0; i < cat->count; i++) {
        size_t w = strlen(cat->ids[i]) + 2;
        if (i && col + w > 79) {
            strncat(buf, ",", len - strlen(buf) - 1);
            strncat(buf, indent, len - strlen(buf) - 1);
            col = 29;
        } else if (i) {
            strncat(buf, ", ", len - strlen(buf) - 1);
        }
        strncat(buf, cat->ids[i], len - strlen(buf) - 1);
        col += w;
    }
}

static const char *common_tail =
    "      --emulate-nodes K      treat every K consecutive ranks as one node\n"
    "      --emulate-node-count N split the ranks into N equal nodes\n"
    "                             (default: nodes are the real shared-memory hosts)\n"
    "      --output-dir DIR       where results and node lists go (default .)\n"
    "      --json FILE            results JSON (default DIR/%s.json)\n"
    "      --force                overwrite existing result files\n"
    "      --deadline SEC         abort the whole job after SEC seconds\n"
    "\n"
    "Exit status: 0 success, 1 run-time error (e.g. too few nodes), 2 bad usage.\n";

static void congestor_usage(const name_catalog_t *congestors, char *buf, size_t len)
{
    char cnames[1024];
    catalog_wrapped(congestors, cnames, sizeof(cnames));
    int n = snprintf(
        buf, len,
        "Usage: mpirun [...] network_congestor [options]\n"
        "\n"
        "Runs congestor kernels on all given nodes (dealt to whole nodes, as the load\n"
        "test deals them) until --duration, SIGINT/SIGTERM or --stop-file, so that\n"
        "another job (a real application) can run beside the congestion. Prints each\n"
        "kernel's bandwidth every --report-interval seconds and a final summary.\n"
        "\n"
        "Options:\n"
        "  -h, --help                 show this help and exit\n"
        "      --version              show the version and exit\n"
        "  -q, --quiet                no progress lines on stderr\n"
        "      --congestors LIST      kernels and weights, e.g. a2a,rma_bcast:2\n"
        "                             (default: a2a,p2p_incast,rma_incast,rma_bcast)\n"
        "      --seed N|time          seed of the node dealing (default: time on rank 0)\n"
        "      --congestor-bytes N    message size of every congestor (default 4096)\n"
        "      --congestor-iterations N  iterations per pass (default 512, scaled)\n"
        "      --duration SEC         stop after SEC seconds (default: no limit)\n"
        "      --stop-file PATH       stop once PATH exists (checked every pass)\n"
        "      --start-file PATH      wait until PATH exists before congesting\n"
        "      --report-interval SEC  seconds between bandwidth lines (default 5)\n"
        "      --flows FILE           instead of the kernels: point-to-point traffic\n"
        "                             along 'SRC DST' node-name lines (bullies)\n");
    if (n > 0 && (size_t)n < len)
        n += snprintf(buf + n, len - (size_t)n, common_tail, "network_congestor");
    if (n > 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n,
                 "\nCongestors (--congestors):\n                             %s\n", cnames);
}

void options_usage(program_t program, const name_catalog_t *tests,
                   const name_catalog_t *congestors, char *buf, size_t len)
{
    if (program == PROGRAM_NETWORK_CONGESTOR) {
        congestor_usage(congestors, buf, len);
        return;
    }
    char tnames[1024], cnames[1024];
    catalog_wrapped(tests, tnames, sizeof(tnames));
    catalog_wrapped(congestors, cnames, sizeof(cnames));
    int load = program == PROGRAM_NETWORK_LOAD_TEST;
    int n = snprintf(
        buf, len,
        "Usage: mpirun [...] %s [options]\n"
        "\n%s"
        "\n"
        "Defaults reproduce the published GPCNeT v1.3 configuration (an official run\n"
        "uses no option that changes the measurement; the run says whether it did).\n"
        "\n"
        "Options:\n"
        "  -h, --help                 show this help and exit\n"
        "      --version              show the version and exit\n"
        "  -v, --verbose              verbose tables: Min, Max, Avg(Worst), 99.9%%%s\n"
        "  -q, --quiet                no progress lines on stderr\n"
        "      --tests LIST           tests to run in order (default: %s), of:\n"
        "                             %s\n"
        "%s"
        "      --time-limit SEC       time limit per test (default 10)\n"
        "      --converge TOL         end a test once its Avg and 99%% are stable to the\n"
        "                             relative tolerance TOL (e.g. 0.05); the time limit\n"
        "                             stays the cap (default: off)\n"
        "      --measurements N       override measurements per test (nM)\n"
        "      --rings N              override random rings per measurement (nR)\n"
        "      --iterations N         override timed iterations per ring (nI)\n"
        "      --warmup N             override warm-up iterations\n"
        "      --ring-seed N          base seed of the random rings (default 1000)\n"
        "      --nics-per-node N      NICs per node, to report ranks per port (default 1)\n",
        program_name(program),
        load ? "Measures latency- and bandwidth-sensitive canary tests in isolation and\n"
               "while congestor kernels load the network (docs/method.md). Needs at least 10\n"
               "nodes with the defaults (2 canary nodes and 2 per congestor).\n"
             : "Runs the isolated network tests on all nodes at once: random and natural\n"
               "rings, allreduce and alltoall (docs/method.md). Needs at least 2 nodes.\n",
        load ? ",\n                             and the isolated congestor baselines" : "",
        load ? "3 canaries" : "all 8", tnames,
        load ? "      --seed N|time          placement seed (default: time on rank 0)\n"
               "      --canary-fraction F    share of nodes running canaries (default 0.2)\n"
               "      --congestors LIST      congestor kernels and weights, e.g. a2a,rma_bcast:2\n"
               "                             (default: a2a,p2p_incast,rma_incast,rma_bcast)\n"
               "      --congestor-measurements N  measurements per congestor pass (default 256)\n"
               "      --congestor-iterations N    override iterations per congestor measurement\n"
               "      --congestor-bytes N    message size of every congestor (default 4096)\n"
               "      --placement KIND       split: congestors on 80% of the nodes, canaries on\n"
               "                             the rest (default, published); colocated: both on\n"
               "                             every node, half the ranks each (shared NICs)\n"
               "      --congestor-sweep      canaries under each congestor alone, then all\n"
               "                             together; prints the impact matrix\n"
               "      --repeat N             repeat the whole run N times (fresh placement\n"
               "                             seed each unless --seed); prints mean, min, max\n"
               "                             and coefficient of variation of every value\n"
             : "");
    if (n > 0 && (size_t)n < len)
        n += snprintf(buf + n, len - (size_t)n, common_tail, program_name(program));
    if (load && n > 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n,
                 "\nCongestors (--congestors):\n                             %s\n", cnames);
}
