/* report.h - a grade report in each of its formats, and writing them.
 *
 *   report.json   cudalab's own: every measurement, the device, the seed,
 *                 cudalab's version, the graded sources with their SHA-256
 *   results.json  Gradescope's autograder format (score, execution_time,
 *                 output, visibility, tests[], leaderboard), plain text,
 *                 the binding in extra_data.cudalab
 *   junit.xml     JUnit XML: a testsuite per lab with the binding in its
 *                 <properties>, a testcase per milestone, a failure carrying
 *                 its diagnosis
 *   grades.csv    one row per lab x milestone (RFC 4180)
 * Every format carries what binds the report to one submission (the
 * learner, the assignment, the sources' SHA-256, the time, the machine),
 * and escapes the text it holds for the program that reads it
 * (core/escape.h).  A report that could not be graded (r->error) scores 0
 * and says why in each format.  With an instructor's key each file is
 * signed (grade/sign.h). */
#ifndef CUDALAB_GRADE_REPORT_H
#define CUDALAB_GRADE_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <cjson/cJSON.h>

#include "core/err.h"
#include "grade/grade.h"

#define REPORT_FORMAT "cudalab-grade"
#define REPORT_GRADESCOPE_FORMAT "cudalab-gradescope"   /* extra_data.cudalab.format */
#define REPORT_XML_DECLARATION "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
#define REPORT_FORMAT_VERSION 2   /* 2: bound to an assignment and a machine */

typedef enum report_kind {
    REPORT_JSON,
    REPORT_GRADESCOPE,
    REPORT_JUNIT,
    REPORT_CSV,
    REPORT_NKINDS,
} report_kind;

/* "json", "gradescope", "junit", "csv". */
const char *report_kind_name(report_kind kind);
/* The kind a name means; false when none. */
bool report_kind_from_name(const char *name, report_kind *kind);
/* "report.json", "results.json", "junit.xml", "grades.csv". */
const char *report_file_name(report_kind kind);

/* The documents (NULL when out of memory; text is malloc'd). */
cJSON *report_json(const grade_report *report);
cJSON *report_gradescope(const grade_report *report);
char *report_junit(const grade_report *report);
char *report_csv(const grade_report *report);

/* Reads a report.json back (for the class view); the rows and the sources'
 * text are not read.  false + err naming what is wrong; a report of an older
 * format (not bound to an assignment) is refused. */
bool report_read_json(const cJSON *doc, grade_report *report, cl_err *err);

/* Whose report a file is: what binds it, as every format writes it. */
typedef struct report_binding {
    char learner[128];
    char assignment[GRADE_ASSIGNMENT_MAX + 1];
    char created[32];             /* when it was graded: ISO 8601, UTC */
} report_binding;
/* The most bytes a report file may hold to be read back. */
#define REPORT_READ_MAX ((size_t)64 << 20)
/* Reads the binding of the report text (len bytes, read from path: JSON,
 * XML or CSV, as sign_verify_text tells them apart) into out; false, out
 * zeroed, when it holds none.  Meant for a file that verified: it reads
 * the binding where cudalab's writers put it and checks nothing else. */
bool report_binding_read(const char *path, const char *text, size_t len, report_binding *out);

/* Writes each of kinds[0..n) into dir (made when missing), each file
 * atomically, signed when keylen > 0 (a CSV's signature beside it, in
 * grades.csv.sig; an unsigned CSV's older signature is removed). */
bool report_write(const grade_report *report, const char *dir, const report_kind *kinds,
                  size_t nkinds, const void *key, size_t keylen, cl_err *err);

#endif
