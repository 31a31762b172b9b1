/* Fuzz the flow list reader (network_congestor --flows) with any bytes.
 * It must either refuse the file with one printable line naming it, or
 * return flows between two different known nodes, each once, as many as
 * the lines that are neither blank nor comments. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "congestor/flow_list.h"
#include "fuzz_check.h"

#define N_NODES 6
#define NAME_LEN 16

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char path[64];
    static char names[N_NODES][NAME_LEN];
    static int fd = -1;
    if (fd < 0) {
        snprintf(path, sizeof(path), "/tmp/fuzz_flows.XXXXXX");
        fd = mkstemp(path); /* a fresh file of ours, rewritten for every input */
        FUZZ_CHECK(fd >= 0);
        for (int i = 0; i < N_NODES; i++)
            snprintf(names[i], NAME_LEN, "n%d", i);
    }
    FUZZ_CHECK(ftruncate(fd, 0) == 0 && pwrite(fd, data, size, 0) == (ssize_t)size);

    char err[1024] = "";
    int *pairs = NULL;
    int n = flows_parse(path, (const char *)names, NAME_LEN, N_NODES, &pairs, err, sizeof(err));
    if (n < 0) {
        FUZZ_CHECK(strncmp(err, "--flows ", 8) == 0 && strstr(err, path) != NULL);
        for (const char *c = err; *c; c++)
            FUZZ_CHECK(*c >= 0x20 && *c < 0x7f); /* one line, no raw bytes */
        FUZZ_CHECK(pairs == NULL);
        return 0;
    }
    FUZZ_CHECK(n > 0 && err[0] == '\0' && memchr(data, 0, size) == NULL);
    int seen[N_NODES][N_NODES] = {{0}};
    for (int i = 0; i < n; i++) {
        int a = pairs[2 * i], b = pairs[2 * i + 1];
        FUZZ_CHECK(a >= 0 && a < N_NODES && b >= 0 && b < N_NODES && a != b);
        FUZZ_CHECK(!seen[a][b]++); /* a repeated flow is refused */
    }
    free(pairs);
    return 0;
}
