/* --fault-probe: which hosts rank 0 names, and the JSON members it writes. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "infra/fault_verdict.h"

#define CHECK_STR(got, want)                                                          \
    do {                                                                              \
        if (strcmp((got), (want)) == 0) {                                             \
            check_passes++;                                                           \
        } else {                                                                      \
            check_failures++;                                                         \
            fprintf(stderr, "%s:%d: got\n  %s\nexpected\n  %s\n", __FILE__, __LINE__, \
                    (got), (want));                                                   \
        }                                                                             \
    } while (0)

int main(void)
{
    int failed[8];
    /* One silent host among four: named alone. */
    int one[4] = {0, 0, 1, 0};
    CHECK(fault_verdict(one, 4, 0, 0, failed) == 1 && failed[0] == 2);
    /* Every host but rank 0's silent: rank 0's own host is the one cut off. */
    int others[4] = {0, 1, 1, 1};
    CHECK(fault_verdict(others, 4, 0, 0, failed) == 1 && failed[0] == 0);
    /* ... also when rank 0 is not on the first node. */
    int others2[3] = {1, 0, 1};
    CHECK(fault_verdict(others2, 3, 1, 0, failed) == 1 && failed[0] == 1);
    /* Two nodes cannot tell which side was cut: the silent one is named. */
    int two[2] = {0, 1};
    CHECK(fault_verdict(two, 2, 0, 0, failed) == 1 && failed[0] == 1);
    /* Two of four silent: both named. */
    int pair[4] = {0, 1, 0, 1};
    CHECK(fault_verdict(pair, 4, 0, 0, failed) == 2 && failed[0] == 1 && failed[1] == 3);
    /* A rank of rank 0's own node silent (a stopped process), others fine. */
    int own[4] = {1, 0, 0, 0};
    CHECK(fault_verdict(own, 4, 0, 0, failed) == 1 && failed[0] == 0);
    /* After a SIGTERM: the same, except that when no other host answered
     * (the signal may have come to rank 0 alone) nothing is named. */
    CHECK(fault_verdict(one, 4, 0, 1, failed) == 1 && failed[0] == 2);
    CHECK(fault_verdict(others, 4, 0, 1, failed) == 0);
    CHECK(fault_verdict(two, 2, 0, 1, failed) == 0);
    CHECK(fault_verdict(pair, 4, 0, 1, failed) == 2);
    /* Nobody silent: nothing named. */
    int none[4] = {0, 0, 0, 0};
    CHECK(fault_verdict(none, 4, 0, 0, failed) == 0);

    const char *names[4] = {"node01", "node02", "no\"de03", "node04"};
    char buf[1024];
    int n = fault_verdict_json(buf, sizeof(buf), names, 4, one, (int[]){2}, 1, 0, 8, 6, 0);
    CHECK(n > 0 && (size_t)n == strlen(buf));
    CHECK_STR(buf, "\"failed_hosts\": [\"no'de03\"], \"fault_probe\": {\"after\": \"deadline\", \"from\": \"node01\", "
                   "\"ranks\": 8, \"answered\": 6, \"failed_host_count\": 1, \"silent_hosts\": "
                   "[\"no'de03\"], \"silent_host_count\": 1}");
    n = fault_verdict_json(buf, sizeof(buf), names, 4, none, failed, 0, 0, 8, 8, 1);
    CHECK_STR(buf, "\"failed_hosts\": [], \"fault_probe\": {\"after\": \"SIGTERM\", \"from\": \"node01\", \"ranks\": 8, "
                   "\"answered\": 8, \"failed_host_count\": 0, \"silent_hosts\": [], "
                   "\"silent_host_count\": 0}");
    /* Too small a buffer: refused, not cut. */
    CHECK(fault_verdict_json(buf, 40, names, 4, one, (int[]){2}, 1, 0, 8, 6, 0) == -1);

    /* More silent hosts than are listed: the names stop, the counts do not. */
    enum { MANY = FAULT_VERDICT_MAX_NAMES + 8 };
    static char storage[MANY][16];
    const char *many[MANY];
    int silent[MANY], idx[MANY];
    for (int k = 0; k < MANY; k++) {
        snprintf(storage[k], sizeof(storage[k]), "n%d", k);
        many[k] = storage[k];
        silent[k] = k >= 1 && k < MANY - 1;
    }
    int nf = fault_verdict(silent, MANY, 0, 0, idx);
    CHECK(nf == MANY - 2);
    static char big[8192];
    CHECK(fault_verdict_json(big, sizeof(big), many, MANY, silent, idx, nf, 0, MANY, 2, 0) > 0);
    CHECK(strstr(big, "\"n32\"") != NULL && strstr(big, "\"n33\"") == NULL);
    CHECK(strstr(big, "\"failed_host_count\": 38") != NULL);
    CHECK(strstr(big, "\"silent_host_count\": 38") != NULL);
    return check_report("test_fault_verdict");
}
