#include "infra/pair_rounds.h"

int pair_rounds_cycle(int n)
{
    if (n < 2)
        return 0;
    return n % 2 ? n : n - 1;
}

int pair_rounds_partner(int n, int round, int node)
{
    if (n < 2 || node < 0 || node >= n || round < 0)
        return -1;
    /* An odd count gets a phantom node n; meeting it is sitting out. The
     * last (real or phantom) node m stays put; in round r it meets node r,
     * and every other node x meets 2r - x (mod m): the pairs of one round
     * are disjoint, and over m rounds x meets every other node once. */
    int m = n % 2 ? n : n - 1;
    int r = round % m;
    int partner;
    if (node == m)
        partner = r;
    else if (node == r)
        partner = m;
    else
        partner = ((2 * r - node) % m + m) % m;
    return partner < n ? partner : -1;
}
