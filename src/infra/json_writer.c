#include "infra/json_writer.h"

#include <math.h>

void jw_init(json_writer_t *w, FILE *f)
{
    w->f = f;
    w->depth = 0;
    w->count[0] = 0;
}

/* Length of the well-formed UTF-8 sequence at p (RFC 3629), or 0. A string
 * ending inside a sequence stops at its NUL, which is no continuation byte. */
static int utf8_len(const unsigned char *p)
{
    unsigned c = p[0];
    int n = c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3
          : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    for (int i = 1; i < n; i++)
        if ((p[i] & 0xC0) != 0x80)
            return 0;
    if (n == 3 && ((c == 0xE0 && p[1] < 0xA0) || (c == 0xED && p[1] > 0x9F)))
        return 0; /* overlong, or a surrogate */
    if (n == 4 && ((c == 0xF0 && p[1] < 0x90) || (c == 0xF4 && p[1] > 0x8F)))
        return 0; /* overlong, or beyond U+10FFFF */
    return n;
}

/* JSON text must be UTF-8: a byte that is not part of a well-formed
 * sequence (a Latin-1 path, say) becomes U+FFFD instead of breaking the
 * whole document for every reader. */
static void put_escaped(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        default:
            if (*p < 0x20) {
                fprintf(f, "\\u%04x", *p);
            } else {
                int n = utf8_len(p);
                if (n == 0) {
                    fputs("\\ufffd", f);
                } else {
                    fwrite(p, 1, (size_t)n, f);
                    p += n - 1;
                }
            }
        }
    }
    fputc('"', f);
}

/* Separator, indentation and key before every value. */
static void lead(json_writer_t *w, const char *key)
{
    if (w->count[w->depth] > 0)
        fputc(',', w->f);
    if (w->depth > 0) {
        fputc('\n', w->f);
        for (int i = 0; i < w->depth; i++)
            fputs("  ", w->f);
    }
    w->count[w->depth]++;
    if (key) {
        put_escaped(w->f, key);
        fputs(": ", w->f);
    }
}

static void open(json_writer_t *w, const char *key, char c)
{
    lead(w, key);
    fputc(c, w->f);
    if (w->depth + 1 < JW_MAX_DEPTH)
        w->depth++;
    w->count[w->depth] = 0;
}

static void close_(json_writer_t *w, char c)
{
    int had = w->count[w->depth] > 0;
    if (w->depth > 0)
        w->depth--;
    if (had) {
        fputc('\n', w->f);
        for (int i = 0; i < w->depth; i++)
            fputs("  ", w->f);
    }
    fputc(c, w->f);
    if (w->depth == 0)
        fputc('\n', w->f);
}

void jw_object_begin(json_writer_t *w, const char *key) { open(w, key, '{'); }
void jw_object_end(json_writer_t *w) { close_(w, '}'); }
void jw_array_begin(json_writer_t *w, const char *key) { open(w, key, '['); }
void jw_array_end(json_writer_t *w) { close_(w, ']'); }

void jw_string(json_writer_t *w, const char *key, const char *value)
{
    lead(w, key);
    if (value)
        put_escaped(w->f, value);
    else
        fputs("null", w->f);
}

void jw_number(json_writer_t *w, const char *key, double value)
{
    lead(w, key);
    if (isfinite(value))
        fprintf(w->f, "%.17g", value);
    else
        fputs("null", w->f);
}

void jw_int(json_writer_t *w, const char *key, long long value)
{
    lead(w, key);
    fprintf(w->f, "%lld", value);
}

void jw_bool(json_writer_t *w, const char *key, int value)
{
    lead(w, key);
    fputs(value ? "true" : "false", w->f);
}

void jw_null(json_writer_t *w, const char *key)
{
    lead(w, key);
    fputs("null", w->f);
}
