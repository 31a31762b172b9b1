/* Minimal streaming JSON writer: enough for one results document, with
 * correct escaping and null for non-finite numbers (JSON has no NaN). */
#ifndef GPCNET_JSON_WRITER_H
#define GPCNET_JSON_WRITER_H

#include <stdio.h>

#define JW_MAX_DEPTH 32

typedef struct {
    FILE *f;
    int depth;
    int count[JW_MAX_DEPTH]; /* members written at each level */
} json_writer_t;

void jw_init(json_writer_t *w, FILE *f);
/* key is NULL inside arrays and for the top-level value. */
void jw_object_begin(json_writer_t *w, const char *key);
void jw_object_end(json_writer_t *w);
void jw_array_begin(json_writer_t *w, const char *key);
void jw_array_end(json_writer_t *w);
void jw_string(json_writer_t *w, const char *key, const char *value); /* NULL -> null */
void jw_number(json_writer_t *w, const char *key, double value);
void jw_int(json_writer_t *w, const char *key, long long value);
void jw_bool(json_writer_t *w, const char *key, int value);
void jw_null(json_writer_t *w, const char *key);

#endif
