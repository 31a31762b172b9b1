/* The text tables (docs/method.md#tables), byte for byte in the reference's layout so
 * that scripts written for GPCNeT v1.3 keep parsing them: 80 columns, or
 * 140 with --verbose. World rank 0 only. */
#ifndef GPCNET_REPORT_H
#define GPCNET_REPORT_H

#include <stdio.h>

#include "infra/result.h"

void report_table_begin(FILE *f, const char *title, int verbose);
void report_row(FILE *f, const result_t *r, int verbose);
void report_impact_begin(FILE *f);
void report_impact_row(FILE *f, const char *name, double avg_printed, double p99_printed);
/* "| <title centred> |" within the table width. */
void report_title_line(FILE *f, const char *title, int width);

#endif
