/* Tiny assertion helpers for the C unit tests (no framework needed). */
#ifndef GPCNET_CHECK_H
#define GPCNET_CHECK_H

#include <math.h>
#include <stdio.h>

static int check_failures, check_passes;

#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (cond) {                                                                  \
            check_passes++;                                                          \
        } else {                                                                     \
            check_failures++;                                                        \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                            \
    } while (0)

#define CHECK_NEAR(a, b, rel)                                                              \
    do {                                                                                   \
        double a_ = (a), b_ = (b);                                                         \
        if (fabs(a_ - b_) <= (rel) * fabs(b_)) {                                           \
            check_passes++;                                                                \
        } else {                                                                           \
            check_failures++;                                                              \
            fprintf(stderr, "%s:%d: %s = %.17g, expected %.17g within %g\n", __FILE__,     \
                    __LINE__, #a, a_, b_, (double)(rel));                                  \
        }                                                                                  \
    } while (0)

static int check_report(const char *name)
{
    printf("%s: %d passed, %d failed\n", name, check_passes, check_failures);
    return check_failures ? 1 : 0;
}

#endif
