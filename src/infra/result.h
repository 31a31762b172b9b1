/* One table row: the statistics of one test (docs/method.md#statistics), unrounded. */
#ifndef GPCNET_RESULT_H
#define GPCNET_RESULT_H

#include "infra/histogram.h"

typedef struct {
    char test_id[32];
    char name[64];
    char unit[16];
    int higher_is_better;
    double avg, p99, p999, median, min, max, avg_worst;
    int ranks;
    long measurements;
    int rings, iterations;
    int timed_out;
    int converged;                        /* --converge ended the test */
    double avg_precision, tail_precision; /* reached with --converge, else NaN */
    double wall_s;
    hist_t hist; /* merged fine-grained samples */
} result_t;

#endif
