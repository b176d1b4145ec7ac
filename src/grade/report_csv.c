/* report_csv.c - the grade report as CSV (RFC 4180): one row a lab x
 * milestone, each cell escaped for a spreadsheet (core/escape.h), a quiz's
 * marked self_reported (and counted or not); a report that could not be
 * graded is one row saying why. */
#include "grade/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/escape.h"
#include "core/strbuf.h"

static const char *const head[] = {
    "learner", "lab",    "milestone", "kind",       "points",   "earned",
    "passed",  "value",  "size",      "cause",      "device",   "created",
    "assignment", "hostname", "kernel_sha256", "self_reported", "counted",
};
#define NCOLS (sizeof head / sizeof head[0])

/* One row of NCOLS cells. */
static void row(strbuf *f, const char *const *cells)
{
    for (size_t i = 0; i < NCOLS; i++) {
        escape_csv_cell(f, cells[i]);
        strbuf_str(f, i + 1 == NCOLS ? "\r\n" : ",");
    }
}

static void milestone_row(strbuf *f, const grade_report *r, const grade_lab *gl,
                          const grade_milestone *g)
{
    char points[32], earned[32];
    snprintf(points, sizeof points, "%g", g->points);
    snprintf(earned, sizeof earned, "%g", g->earned);
    const char *cells[NCOLS] = {
        r->learner, gl->id,   g->id,      g->quiz ? "quiz" : "measured", points, earned,
        g->passed ? "true" : "false",     g->value, g->size, g->cause,   r->dev.name,
        r->created, r->assignment,        r->hostname,       gl->kernel_sha,
        g->quiz ? "true" : "false",       g->not_counted ? "false" : "true",
    };
    row(f, cells);
}

char *report_csv(const grade_report *report)
{
    strbuf sb;
    strbuf_init(&sb, 0);
    row(&sb, head);
    if (report->error[0]) {
        const char *cells[NCOLS] = {
            report->learner, "", "", "", "0", "0", "false", report->error, "", "not_graded",
            report->dev.name, report->created, report->assignment, report->hostname, "",
            "", "",
        };
        row(&sb, cells);
    }
    for (size_t i = 0; i < report->nlabs && !report->error[0]; i++)
        for (size_t k = 0; k < report->labs[i].nms; k++)
            milestone_row(&sb, report, &report->labs[i], &report->labs[i].ms[k]);
    if (sb.failed) {
        strbuf_free(&sb);
        return NULL;
    }
    return strbuf_take(&sb);
}
