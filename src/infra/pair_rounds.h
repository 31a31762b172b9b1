/* Rounds of disjoint pairs over n nodes (docs/method.md#naming-a-slow-node):
 * the round-robin ("circle") schedule, in which every node meets every
 * other once in each cycle of n - 1 rounds (n rounds when n is odd, where
 * each round leaves one node out). Pure, no MPI: every rank computes the
 * same partners without talking. */
#ifndef GPCNET_PAIR_ROUNDS_H
#define GPCNET_PAIR_ROUNDS_H

/* Rounds in one cycle, after which the pairs repeat: n - 1, or n when n
 * is odd; 0 when n < 2. */
int pair_rounds_cycle(int n);

/* The partner of node (0 .. n-1) in round (>= 0; taken modulo the cycle),
 * or -1 when it sits the round out (n odd, or n < 2). Symmetric: the
 * partner's partner is the node. */
int pair_rounds_partner(int n, int round, int node);

#endif
