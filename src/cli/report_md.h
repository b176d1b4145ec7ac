/* report_md.h - the profiling lab's report, as Markdown (pure functions).
 *
 * `cudalab report profiling` (cli/cmd_report.h) measures the lab's starter
 * and the learner's pipeline, records a timeline of one call of each,
 * summarises both (prof/tlsummary.h) and hands everything here.  The
 * report has, in order: a title line with PIPELINE_REPORT_MARK (what the
 * engine looks for, catalog/pipeline_files.h), a before-and-after table (time,
 * GB/s, x CPU, x starter, correctness, with the CPU rows), the two
 * timelines side by side and lane by lane, "What changed" derived from the
 * two timelines, and the learner's own section: everything after the
 * REPORT_NOTES_MARK line under REPORT_NOTES_HEADING is theirs and is
 * carried over when the report is rewritten. */
#ifndef CUDALAB_CLI_REPORT_MD_H
#define CUDALAB_CLI_REPORT_MD_H

#include <stddef.h>

#include "prof/tlsummary.h"
#include "result/record.h"

#define REPORT_NOTES_HEADING "## Your notes"
#define REPORT_NOTES_MARK                                                                      \
    "<!-- Your notes go below this line: cudalab keeps them when it rewrites the report. -->"

typedef struct report_side {
    const run_result *row;      /* its measured row; NULL when none came back */
    const tl_summary *tl;       /* its timeline's summary; NULL when none was recorded */
    const char *trace;          /* file name of its Chrome trace beside the report, or NULL */
    const char *why_no_tl;      /* why there is no timeline, or NULL */
} report_side;

typedef struct report_input {
    const char *device;         /* the GPU's name */
    const char *size;           /* the table's rows, "2^20" */
    const char *when;           /* "2025-03-01 14:05" */
    const run_result *cpu, *cpu_mt;   /* the CPU rows, or NULL */
    report_side starter, mine;
} report_input;

/* The learner's section of an earlier report: the text after the notes
 * marker line (or, when the marker was deleted, after the notes heading),
 * malloc'd; NULL when old has neither. */
char *report_md_notes(const char *old);

/* "What changed": one Markdown bullet a line, derived from the starter's
 * and the learner's timeline summaries and rows (either row may be NULL).
 * Returns the length written into out (always NUL-terminated). */
size_t report_md_changes(const tl_summary *before, const tl_summary *after,
                         const run_result *before_row, const run_result *after_row, char *out,
                         size_t out_size);

/* The whole report (malloc'd, NULL when out of memory); notes NULL: a
 * prompt for the learner's first notes. */
char *report_md_build(const report_input *in, const char *notes);

#endif
