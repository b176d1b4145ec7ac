/* classview.h - a class at a glance, from a folder of grade reports.
 *
 * class_load reads every report.json-style file under a folder (nested
 * folders too): learner x milestone, with each learner's score, best
 * figures and device.  A file that is not a cudalab grade report, cannot be
 * parsed, or (with the instructor's key) whose signature does not hold is
 * listed with what is wrong and left out of the table; nothing stops the
 * load.  The table can be written as CSV, Markdown or HTML, or browsed in
 * the TUI. */
#ifndef CUDALAB_GRADE_CLASSVIEW_H
#define CUDALAB_GRADE_CLASSVIEW_H

#include <stdbool.h>
#include <stddef.h>

#include "core/err.h"
#include "core/paths.h"
#include "grade/grade.h"
#include "grade/sign.h"

typedef struct class_file {
    char path[CL_PATH_MAX];
    bool usable;               /* in the table */
    sign_verdict verdict;      /* with a key; SIGN_UNSIGNED without one */
    char problem[512];         /* why it is not usable, or a remark */
    grade_report rep;          /* when usable */
} class_file;

typedef struct class_column {
    char lab[GRADE_ID_MAX];
    char id[GRADE_ID_MAX];
    char text[GRADE_TEXT_MAX];
    double points;
} class_column;

typedef struct class_view {
    class_file *files;
    size_t nfiles;
    size_t *rows;              /* indices of the usable files, in display order */
    size_t nrows;
    class_column *cols;        /* every (lab, milestone) seen, in first-seen order */
    size_t ncols;
    bool checked;              /* signatures were checked with a key */
    size_t skipped;            /* files that are not .json, not looked at */
} class_view;

typedef enum class_sort {
    CLASS_BY_LEARNER,          /* name, A to Z */
    CLASS_BY_SCORE,            /* score, highest first */
    CLASS_BY_TIME,             /* the first lab's best time, fastest first */
} class_sort;

/* Loads dir (key NULL: signatures not checked).  false + e only when dir
 * itself cannot be read. */
bool class_load(const char *dir, const void *key, size_t keylen, class_view *out, cl_err *e);
void class_free(class_view *v);
void class_order(class_view *v, class_sort by);

/* The milestone of column c in file f's report, or NULL (not graded). */
const grade_milestone *class_cell(const class_view *v, const class_file *f, size_t c);

/* The table as text (malloc'd): CSV (RFC 4180), Markdown, or an HTML page. */
char *class_csv(const class_view *v);
char *class_markdown(const class_view *v);
char *class_html(const class_view *v);

#endif
