/* Prints the C kernel tables, one kernel a line (tab-separated):
 *   canary <id> <name> <label> <unit> <load_canary>
 *   congestor <id> <name> <label> MiB/s/rank <default_mix>
 * (the label: the printed name before its size, which the summaries print
 * where the size would not fit, and gpcnet's short names are).
 * With --json, the same as one JSON document: the build writes it to
 * python/gpcnet/data/catalog.json, gpcnet's catalogue of kernels, and
 * tests/integration/test_kernel_catalog.py checks that the file checked in
 * is what this prints (docs/design.md, "The Python catalogue"). A tool of
 * the build, with the C tests on or off; not installed. Calls no MPI. */
#include <stdio.h>
#include <string.h>

#include "canary/canary.h"
#include "congestor/congestor.h"
#include "infra/json_writer.h"

/* The printed names at the published sizes. */
static const char *canary_name(const canary_kernel_t *k)
{
    static char name[64];
    const canary_params_t published = canary_params_default(k);
    canary_display_name(k, &published, name, sizeof(name));
    return name;
}

static const char *congestor_name(const congestor_kernel_t *k)
{
    static char name[64];
    const congestor_params_t published = congestor_params_default(k);
    congestor_display_name(k, &published, name, sizeof(name));
    return name;
}

static int dump_json(void)
{
    json_writer_t w;
    jw_init(&w, stdout);
    jw_object_begin(&w, NULL);
    jw_array_begin(&w, "canaries");
    for (int i = 0; i < canary_kernel_count; i++) {
        const canary_kernel_t *k = canary_kernels[i];
        jw_object_begin(&w, NULL);
        jw_string(&w, "id", k->id);
        jw_string(&w, "name", canary_name(k));
        jw_string(&w, "label", k->label);
        jw_string(&w, "unit", k->unit);
        jw_bool(&w, "load_canary", k->load_canary);
        jw_object_end(&w);
    }
    jw_array_end(&w);
    jw_array_begin(&w, "congestors");
    for (int i = 0; i < congestor_kernel_count; i++) {
        const congestor_kernel_t *k = congestor_kernels[i];
        jw_object_begin(&w, NULL);
        jw_string(&w, "id", k->id);
        jw_string(&w, "name", congestor_name(k));
        jw_string(&w, "label", k->label);
        jw_string(&w, "unit", "MiB/s/rank");
        jw_bool(&w, "default_mix", k->default_mix);
        jw_object_end(&w);
    }
    jw_array_end(&w);
    jw_object_end(&w);
    return fflush(stdout) == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--json") == 0)
        return dump_json();
    for (int i = 0; i < canary_kernel_count; i++) {
        const canary_kernel_t *k = canary_kernels[i];
        printf("canary\t%s\t%s\t%s\t%s\t%d\n", k->id, canary_name(k), k->label, k->unit,
               k->load_canary);
    }
    for (int i = 0; i < congestor_kernel_count; i++) {
        const congestor_kernel_t *k = congestor_kernels[i];
        printf("congestor\t%s\t%s\t%s\tMiB/s/rank\t%d\n", k->id, congestor_name(k),
               k->label, k->default_mix);
    }
    return 0;
}
