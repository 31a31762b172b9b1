#include "suite/options/option_number.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int digit(char c) { return c >= '0' && c <= '9'; }

/* Bytes of [+-]digits at s (at most len), or 0 when there are no digits. */
static size_t signed_digits(const char *s, size_t len, size_t *n_digits)
{
    size_t i = 0;
    if (i < len && (s[i] == '+' || s[i] == '-'))
        i++;
    size_t start = i;
    while (i < len && digit(s[i]))
        i++;
    *n_digits = i - start;
    return i;
}

int option_decimal(const char *s, size_t len, double *out)
{
    char buf[64];
    if (len == 0 || len >= sizeof(buf))
        return -1;
    size_t whole, frac = 0;
    size_t i = signed_digits(s, len, &whole);
    if (i < len && s[i] == '.') {
        i++;
        while (i < len && digit(s[i])) {
            i++;
            frac++;
        }
    }
    if (whole + frac == 0)
        return -1;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        size_t exp;
        i++;
        i += signed_digits(s + i, len - i, &exp);
        if (exp == 0)
            return -1;
    }
    if (i != len)
        return -1;
    memcpy(buf, s, len);
    buf[len] = '\0';
    errno = 0;
    double v = strtod(buf, NULL);
    if (errno == ERANGE || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

int option_whole(const char *s, long *out)
{
    size_t n_digits, len = strlen(s);
    if (len == 0 || signed_digits(s, len, &n_digits) != len || n_digits == 0)
        return -1;
    errno = 0;
    long v = strtol(s, NULL, 10);
    if (errno == ERANGE)
        return -1;
    *out = v;
    return 0;
}
