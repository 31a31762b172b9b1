/*
 * LD_PRELOAD shim for bench/compare_reference.sh: makes every K consecutive
 * MPI ranks on this machine report the same, made-up host name, so a program
 * that finds its nodes by host name (the reference GPCNeT v1.3 sorts the
 * names from MPI_Get_processor_name) sees emulated nodes of K ranks.
 *
 * Open MPI 4.1 and MPICH 4.0 both build the processor name from the C
 * library's gethostname(); uname() is covered too, for libraries that read
 * utsname.nodename instead. The rank comes from the launcher's environment
 * (OMPI_COMM_WORLD_RANK, PMI_RANK or PMIX_RANK); a process without one (the
 * launcher itself, its proxies) keeps the real name.
 *
 * Environment:
 *   GPCNET_SHIM_PPN     ranks per emulated node (required, >= 1; else no-op)
 *   GPCNET_SHIM_PREFIX  host name prefix (default "emunode")
 *   GPCNET_SHIM_DESCENDING_NODES  N: number the nodes the other way round,
 *                       N-1 - r / K, so sorted names are in reverse rank
 *                       order (tests of the node order use it)
 * Rank r is on "<prefix>NNNNN" with NNNNN = r / K, zero-padded, so sorting
 * the names gives the nodes in rank order.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

static int fake_name(char *out, size_t len)
{
    static const char *rank_vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"};
    const char *ppn_s = getenv("GPCNET_SHIM_PPN");
    if (ppn_s == NULL)
        return 0;
    char *end;
    long ppn = strtol(ppn_s, &end, 10);
    if (*end != '\0' || ppn < 1)
        return 0;
    const char *rank_s = NULL;
    for (size_t i = 0; i < sizeof(rank_vars) / sizeof(rank_vars[0]) && rank_s == NULL; i++)
        rank_s = getenv(rank_vars[i]);
    if (rank_s == NULL)
        return 0;
    long rank = strtol(rank_s, &end, 10);
    if (*end != '\0' || rank < 0)
        return 0;
    const char *prefix = getenv("GPCNET_SHIM_PREFIX");
    if (prefix == NULL || *prefix == '\0')
        prefix = "emunode";
    long node = rank / ppn;
    const char *desc = getenv("GPCNET_SHIM_DESCENDING_NODES");
    if (desc != NULL) {
        long nodes = strtol(desc, &end, 10);
        if (*end == '\0' && nodes > node)
            node = nodes - 1 - node;
    }
    int n = snprintf(out, len, "%s%05ld", prefix, node);
    return n > 0 && (size_t)n < len;
}

int gethostname(char *name, size_t len)
{
    char fake[64];
    if (fake_name(fake, sizeof(fake))) {
        if (strlen(fake) + 1 > len) {
            errno = ENAMETOOLONG;
            return -1;
        }
        strcpy(name, fake);
        return 0;
    }
    int (*real)(char *, size_t) = (int (*)(char *, size_t))dlsym(RTLD_NEXT, "gethostname");
    return real(name, len);
}

int uname(struct utsname *buf)
{
    int (*real)(struct utsname *) = (int (*)(struct utsname *))dlsym(RTLD_NEXT, "uname");
    int rc = real(buf);
    char fake[64];
    if (rc == 0 && fake_name(fake, sizeof(fake)))
        snprintf(buf->nodename, sizeof(buf->nodename), "%s", fake);
    return rc;
}
