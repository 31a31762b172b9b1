#include "infra/report.h"

#include <math.h>
#include <string.h>

#define WIDTH 80
#define WIDTH_VERBOSE 140

static void bar(FILE *f, int verbose, int inner)
{
    int width = verbose ? WIDTH_VERBOSE : WIDTH;
    char line[WIDTH_VERBOSE + 1];
    memset(line, '-', (size_t)width);
    line[0] = line[width - 1] = '+';
    if (inner) {
        /* Column edges after the 33-wide name and every 14-wide value. */
        for (int c = 34; c < width - 1; c += 15)
            line[c] = '+';
    }
    line[width] = '\0';
    fprintf(f, "%s\n", line);
}

void report_title_line(FILE *f, const char *title, int width)
{
    int inner = width - 4;
    int len = (int)strlen(title);
    if (len > inner)
        len = inner;
    int left = (inner - len) / 2;
    fprintf(f, "| %*s%.*s%*s |\n", left, "", len, title, inner - len - left, "");
}

void report_table_begin(FILE *f, const char *title, int verbose)
{
    fprintf(f, "\n");
    bar(f, verbose, 0);
    report_title_line(f, title, verbose ? WIDTH_VERBOSE : WIDTH);
    bar(f, verbose, 1);
    if (verbose)
        fprintf(f, "| %31.31s | %12.12s | %12.12s | %12.12s | %12.12s | %12.12s | %12.12s | %12.12s |\n",
                "Name", "Min", "Max", "Avg", "Avg(Worst)", "99%", "99.9%", "Units");
    else
        fprintf(f, "| %31.31s | %12.12s | %12.12s | %12.12s |\n", "Name", "Avg", "99%", "Units");
    bar(f, verbose, 1);
    fflush(f);
}

void report_row(FILE *f, const result_t *r, int verbose)
{
    if (verbose)
        fprintf(f, "| %31.31s | %12.1f | %12.1f | %12.1f | %12.1f | %12.1f | %12.1f | %12.12s |\n",
                r->name, r->min, r->max, r->avg, r->avg_worst, r->p99, r->p999, r->unit);
    else
        fprintf(f, "| %31.31s | %12.1f | %12.1f | %12.12s |\n", r->name, r->avg, r->p99, r->unit);
    bar(f, verbose, 1);
    fflush(f);
}

static const char *impact_bar =
    "+---------------------------------+----------------------+---------------------+";

void report_impact_begin(FILE *f)
{
    fprintf(f, "\n");
    bar(f, 0, 0);
    report_title_line(f, "Network Tests running with Congestion Tests - Key Results", WIDTH);
    fprintf(f, "+---------------------------------+--------------------------------------------+\n");
    fprintf(f, "| %31.31s | %42.42s |\n", "Name", "Congestion Impact Factor");
    fprintf(f, "%s\n", impact_bar);
    fprintf(f, "| %31.31s | %20.20s | %19.19s |\n", " ", "Avg", "99%");
    fprintf(f, "%s\n", impact_bar);
    fflush(f);
}

void report_impact_row(FILE *f, const char *name, double avg_printed, double p99_printed)
{
    fprintf(f, "| %31.31s | %19.1fX | %18.1fX |\n", name, avg_printed, p99_printed);
    fprintf(f, "%s\n", impact_bar);
    fflush(f);
}
