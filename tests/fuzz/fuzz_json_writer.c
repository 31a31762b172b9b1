/* Fuzz the JSON writer with arbitrary keys, strings and numbers: whatever
 * it is given (control characters, quotes, backslashes, bytes that are not
 * UTF-8, NaN, infinities), the document must be valid JSON encoded as
 * UTF-8 that a reader (Python's json module, the gpcnet tool) accepts.
 * A small strict validator written for this check reads it back. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_check.h"
#include "infra/json_writer.h"

typedef struct {
    const unsigned char *p, *end;
} reader_t;

static void ws(reader_t *r)
{
    while (r->p < r->end && (*r->p == ' ' || *r->p == '\n' || *r->p == '\t' || *r->p == '\r'))
        r->p++;
}

static int hex(int c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

/* One UTF-8 sequence (RFC 3629: no overlongs, no surrogates, <= U+10FFFF). */
static int utf8(reader_t *r)
{
    unsigned c = *r->p;
    int len = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
    if (!len || r->end - r->p < len)
        return 0;
    unsigned cp = len == 1 ? c : len == 2 ? (c & 0x1F) : len == 3 ? (c & 0x0F) : (c & 0x07);
    for (int i = 1; i < len; i++) {
        if ((r->p[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (r->p[i] & 0x3F);
    }
    static const unsigned min_cp[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < min_cp[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    r->p += len;
    return 1;
}

static int string(reader_t *r)
{
    if (r->p >= r->end || *r->p != '"')
        return 0;
    r->p++;
    while (r->p < r->end && *r->p != '"') {
        if (*r->p < 0x20)
            return 0;
        if (*r->p == '\\') {
            r->p++;
            if (r->p >= r->end)
                return 0;
            if (*r->p == 'u') {
                if (r->end - r->p < 5 || !hex(r->p[1]) || !hex(r->p[2]) || !hex(r->p[3]) ||
                    !hex(r->p[4]))
                    return 0;
                r->p += 5;
            } else if (strchr("\"\\/bfnrt", *r->p) && *r->p) {
                r->p++;
            } else {
                return 0;
            }
        } else if (!utf8(r)) {
            return 0;
        }
    }
    if (r->p >= r->end)
        return 0;
    r->p++;
    return 1;
}

static int digits(reader_t *r)
{
    const unsigned char *s = r->p;
    while (r->p < r->end && *r->p >= '0' && *r->p <= '9')
        r->p++;
    return r->p > s;
}

static int number(reader_t *r)
{
    if (r->p < r->end && *r->p == '-')
        r->p++;
    if (r->p < r->end && *r->p == '0')
        r->p++;
    else if (!digits(r))
        return 0;
    if (r->p < r->end && *r->p == '.') {
        r->p++;
        if (!digits(r))
            return 0;
    }
    if (r->p < r->end && (*r->p == 'e' || *r->p == 'E')) {
        r->p++;
        if (r->p < r->end && (*r->p == '+' || *r->p == '-'))
            r->p++;
        if (!digits(r))
            return 0;
    }
    return 1;
}

static int literal(reader_t *r, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(r->end - r->p) < n || memcmp(r->p, word, n) != 0)
        return 0;
    r->p += n;
    return 1;
}

static int value(reader_t *r, int depth);

static int members(reader_t *r, int depth, char close, int keyed)
{
    r->p++;
    ws(r);
    if (r->p < r->end && *r->p == close) {
        r->p++;
        return 1;
    }
    for (;;) {
        ws(r);
        if (keyed) {
            if (!string(r))
                return 0;
            ws(r);
            if (r->p >= r->end || *r->p != ':')
                return 0;
            r->p++;
        }
        if (!value(r, depth + 1))
            return 0;
        ws(r);
        if (r->p < r->end && *r->p == ',') {
            r->p++;
            continue;
        }
        if (r->p < r->end && *r->p == close) {
            r->p++;
            return 1;
        }
        return 0;
    }
}

static int value(reader_t *r, int depth)
{
    if (depth > 64)
        return 0;
    ws(r);
    if (r->p >= r->end)
        return 0;
    switch (*r->p) {
    case '{': return members(r, depth, '}', 1);
    case '[': return members(r, depth, ']', 0);
    case '"': return string(r);
    case 't': return literal(r, "true");
    case 'f': return literal(r, "false");
    case 'n': return literal(r, "null");
    default: return number(r);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 8192)
        return 0;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    json_writer_t w;
    jw_init(&w, f);
    jw_object_begin(&w, NULL);
    /* Chunks separated by NUL bytes; the first byte of each picks what it
     * becomes: key + string, array of strings, number (8 bytes), integer. */
    size_t i = 0;
    int depth = 1;
    while (i < size) {
        const char *chunk = (const char *)data + i;
        size_t n = strnlen(chunk, size - i);
        char tmp[8200];
        memcpy(tmp, chunk, n);
        tmp[n] = '\0';
        unsigned kind = n ? (unsigned char)tmp[0] % 6 : 0;
        const char *text = n ? tmp + 1 : tmp;
        const char *key = depth == 1 ? text : NULL; /* keys only in the object */
        switch (kind) {
        case 0: jw_string(&w, key, text); break;
        case 1:
            if (depth < JW_MAX_DEPTH - 2) {
                jw_array_begin(&w, key);
                depth++;
            }
            break;
        case 2:
            if (depth > 1) {
                /* close whatever is open the right way: arrays here */
                jw_array_end(&w);
                depth--;
            } else {
                jw_null(&w, key);
            }
            break;
        case 3: {
            double v = 0.0;
            memcpy(&v, tmp + 1, n > 8 ? 8 : (n ? n - 1 : 0));
            jw_number(&w, key, v);
            break;
        }
        case 4: jw_int(&w, key, (long long)n * (text[0] ? -7919 : 1)); break;
        default: jw_bool(&w, key, (int)n & 1); break;
        }
        i += n + 1;
    }
    while (depth-- > 1)
        jw_array_end(&w);
    jw_object_end(&w);
    fclose(f);

    reader_t r = {(const unsigned char *)buf, (const unsigned char *)buf + len};
    int ok = value(&r, 0);
    ws(&r);
    if (!ok || r.p != r.end) {
        fprintf(stderr, "invalid JSON written:\n%.*s\n", (int)len, buf);
        FUZZ_CHECK(0);
    }
    free(buf);
    return 0;
}
