/* JSON writer: structure, escaping, null for non-finite numbers. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "infra/json_writer.h"

int main(void)
{
    FILE *f = tmpfile();
    json_writer_t w;
    jw_init(&w, f);
    jw_object_begin(&w, NULL);
    jw_string(&w, "s", "a\"b\\c\nd\t\x01");
    jw_number(&w, "x", 1.5);
    jw_number(&w, "nan", NAN);
    jw_number(&w, "inf", INFINITY);
    jw_int(&w, "i", -42);
    jw_bool(&w, "t", 1);
    jw_null(&w, "n");
    jw_string(&w, "nul", NULL);
    jw_array_begin(&w, "a");
    jw_int(&w, NULL, 1);
    jw_array_begin(&w, NULL);
    jw_array_end(&w);
    jw_object_begin(&w, NULL);
    jw_object_end(&w);
    jw_array_end(&w);
    jw_object_end(&w);
    rewind(f);
    char buf[1024];
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    buf[n] = '\0';
    fclose(f);
    const char *want = "{\n"
                       "  \"s\": \"a\\\"b\\\\c\\nd\\t\\u0001\",\n"
                       "  \"x\": 1.5,\n"
                       "  \"nan\": null,\n"
                       "  \"inf\": null,\n"
                       "  \"i\": -42,\n"
                       "  \"t\": true,\n"
                       "  \"n\": null,\n"
                       "  \"nul\": null,\n"
                       "  \"a\": [\n"
                       "    1,\n"
                       "    [],\n"
                       "    {}\n"
                       "  ]\n"
                       "}\n";
    if (strcmp(buf, want) != 0)
        fprintf(stderr, "got:\n%s\nwant:\n%s\n", buf, want);
    CHECK(strcmp(buf, want) == 0);

    /* Doubles survive the round trip exactly (%.17g). */
    f = tmpfile();
    jw_init(&w, f);
    jw_number(&w, NULL, 0.1 + 0.2);
    rewind(f);
    n = fread(buf, 1, sizeof(buf) - 1, f);
    buf[n] = '\0';
    fclose(f);
    CHECK(strtod(buf, NULL) == 0.1 + 0.2);
    return check_report("test_json_writer");
}
