/* Random perfect matchings (infra/matching.h): every node paired exactly
 * once, the same seed giving the same pairs, the three matchings of four
 * nodes equally likely, and the pairs the Python model derives from the
 * same seed (gpcnet/testbed/ebb_model.py, an independent implementation of
 * the generator: matchings 0-2 of seed 1000 on 4 nodes). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "infra/matching.h"

static void check_perfect(unsigned long long seed, int m, int n)
{
    int *order = malloc(sizeof(int) * (size_t)n), *partner = malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++)
        partner[i] = -1;
    matching_partners(seed, m, n, order, partner);
    for (int i = 0; i < n; i++) {
        CHECK(partner[i] >= 0 && partner[i] < n && partner[i] != i);
        CHECK(partner[partner[i]] == i);
    }
    free(order);
    free(partner);
}

int main(void)
{
    for (int n = 2; n <= 40; n += 2)
        for (int m = 0; m < 30; m++)
            check_perfect(1000, m, n);

    int order[4], p[4], q[4];
    const int expected[3][4] = {{1, 0, 3, 2}, {1, 0, 3, 2}, {2, 3, 0, 1}};
    for (int m = 0; m < 3; m++) {
        matching_partners(1000, m, 4, order, p);
        CHECK(memcmp(p, expected[m], sizeof(p)) == 0);
    }

    /* Same seed, same pairs; another seed, other pairs somewhere. */
    int differ = 0;
    for (int m = 0; m < 20; m++) {
        matching_partners(5, m, 4, order, p);
        matching_partners(5, m, 4, order, q);
        CHECK(memcmp(p, q, sizeof(p)) == 0);
        matching_partners(6, m, 4, order, q);
        differ += memcmp(p, q, sizeof(p)) != 0;
    }
    CHECK(differ > 0);

    /* Node 0's partner says which of the three matchings of 4 it is: each
     * about a third of 3000 (binomial sd 26; 150 is almost 6 sd). */
    int count[4] = {0};
    for (int m = 0; m < 3000; m++) {
        matching_partners(42, m, 4, order, p);
        count[p[0]]++;
    }
    for (int k = 1; k < 4; k++)
        CHECK(count[k] > 850 && count[k] < 1150);
    return check_report("matching");
}
