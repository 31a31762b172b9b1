/* What rank 0 concludes from a fault probe (fault_probe.h), kept free of MPI
 * so that the rule and the JSON it writes are unit-tested. */
#ifndef GPCNET_FAULT_VERDICT_H
#define GPCNET_FAULT_VERDICT_H

#include <stddef.h>

/* Names listed at most in "failed_hosts" and "silent_hosts"; the counts say
 * how many there were in all. */
#define FAULT_VERDICT_MAX_NAMES 32

/* silent[n] is 1 for a node with a rank that did not answer. Fills failed[]
 * with node indices and returns how many: the silent nodes, except when
 * every node but rank 0's own is silent. Then, before the deadline
 * (after_signal 0), with at least three nodes, the likelier fault is rank
 * 0's own host cut off (one link) rather than all the others at once: that
 * node is named alone. After a SIGTERM (after_signal 1) the others answer
 * only on their own signal, which may never have come: nothing is named. */
int fault_verdict(const int *silent, int n_nodes, int node_of_rank0, int after_signal,
                  int *failed);

/* The JSON members the aborted document gets after "aborted_in" (no
 * leading comma): "failed_hosts": [...], "fault_probe": {...}, whose
 * "after" says which moment asked ("deadline" or "SIGTERM"). Names are
 * written with any '"', '\' or control character replaced by '\'', as the
 * watchdog writes them unescaped. Returns the length, or -1 when buf is too
 * small (nothing usable then). */
int fault_verdict_json(char *buf, size_t len, const char *const *names, int n_nodes,
                       const int *silent, const int *failed, int n_failed, int node_of_rank0,
                       int n_ranks, int n_answered, int after_signal);

#endif
