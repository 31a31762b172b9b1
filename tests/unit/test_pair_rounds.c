/* Rounds of disjoint pairs (infra/pair_rounds.h): each round is a matching,
 * a cycle meets every pair exactly once, and odd counts leave one node out. */
#include <stdlib.h>

#include "check.h"
#include "infra/pair_rounds.h"

static void check_count(int n)
{
    int cycle = pair_rounds_cycle(n);
    CHECK(cycle == (n % 2 ? n : n - 1));
    int *met = calloc((size_t)n * (size_t)n, sizeof(int));
    for (int r = 0; r < cycle; r++) {
        int out = 0;
        for (int x = 0; x < n; x++) {
            int p = pair_rounds_partner(n, r, x);
            if (p < 0) {
                out++;
                continue;
            }
            CHECK(p != x && p < n);
            CHECK(pair_rounds_partner(n, r, p) == x); /* disjoint pairs */
            met[x * n + p]++;
            /* The schedule repeats after a cycle. */
            CHECK(pair_rounds_partner(n, r + cycle, x) == p);
        }
        CHECK(out == n % 2); /* one node sits out when n is odd, none else */
    }
    for (int x = 0; x < n; x++)
        for (int y = 0; y < n; y++)
            CHECK(met[x * n + y] == (x != y)); /* every pair once per cycle */
    free(met);
}

int main(void)
{
    for (int n = 2; n <= 41; n++)
        check_count(n);
    CHECK(pair_rounds_cycle(1) == 0 && pair_rounds_cycle(0) == 0);
    CHECK(pair_rounds_partner(1, 0, 0) == -1);
    CHECK(pair_rounds_partner(4, 0, 4) == -1 && pair_rounds_partner(4, 0, -1) == -1);
    CHECK(pair_rounds_partner(2, 7, 0) == 1);
    return check_report("pair_rounds");
}
