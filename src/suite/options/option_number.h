/* The numbers an option accepts, written the one way docs/running.md
 * describes: decimal digits with an optional sign, an optional fraction and
 * an optional decimal exponent (1.5, .25, -1, 1e3, 2.5E-2). strtod and
 * strtol alone would also take leading blanks, hexadecimal (0x10, 0x1p3),
 * inf and nan; a typo in a procurement run's settings should stop the run,
 * not become a different number. Pure: no MPI. */
#ifndef GPCNET_OPTION_NUMBER_H
#define GPCNET_OPTION_NUMBER_H

#include <stddef.h>

/* The first len bytes of s as a decimal number; len bytes after which the
 * number must end (the rest of s is not read). Returns 0, or -1 when they
 * are not one decimal number or it is not finite. */
int option_decimal(const char *s, size_t len, double *out);

/* All of s as a whole decimal number (optional sign, digits only). Returns
 * 0, or -1 when it is not one or does not fit a long. */
int option_whole(const char *s, long *out);

#endif
