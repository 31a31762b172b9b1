/* Shared by the option unit tests: what the settings lines or the JSON
 * config of a run come out as, captured from stdout or a writer. */
#ifndef GPCNET_TEST_CAPTURE_REPORT_H
#define GPCNET_TEST_CAPTURE_REPORT_H

#include <stdio.h>
#include <unistd.h>

#include "infra/json_writer.h"
#include "suite/options/option_report.h"

/* The text write() puts on stdout, or the config object when w is given. */
static char *captured(void (*write)(const run_t *), const run_t *run, json_writer_t *w)
{
    static char text[16384];
    FILE *f = tmpfile();
    if (w) {
        jw_init(w, f);
        jw_object_begin(w, NULL);
        options_write_config(w, run);
        jw_object_end(w);
    } else {
        fflush(stdout);
        int saved = dup(1);
        dup2(fileno(f), 1);
        write(run);
        fflush(stdout);
        dup2(saved, 1);
        close(saved);
    }
    rewind(f);
    size_t n = fread(text, 1, sizeof(text) - 1, f);
    text[n] = '\0';
    fclose(f);
    return text;
}

#endif
