/* classview.h - a class at a glance, from a folder of grade reports.
 *
 * class_load reads every report.json-style file under a folder (nested
 * folders too, each folder once: a link back to a folder above is a loop,
 * listed and not followed): learner x milestone, with each learner's score,
 * best figures and device.  Files are left out of the table, each with what
 * is wrong, and nothing stops the load:
 *   - a file that is not a cudalab grade report, cannot be read or parsed,
 *     or is not exactly as cudalab writes it (bytes around the document, a
 *     key twice); with the instructor's key, a report whose signature does
 *     not hold or that has none;
 *   - a report of another assignment than the one shown (class_opts'
 *     assignment, else the most common one);
 *   - an older report of a learner who has a newer one (by "created"; a
 *     graded report is preferred to one that could not be graded), or a
 *     second path to the same file;
 *   - a folder or entry that cannot be read, a link loop, a FIFO or device.
 * Reports kept in the table are flagged, with a note, when the same graded
 * kernel (SHA-256; an unchanged starter aside) appears under other
 * learners, or when grading could not happen.  Gradescope's results.json
 * files that cudalab wrote are passed over quietly.  Quiz points, the
 * learner's own answers, are shown apart from the measured points.  The
 * table can be written as CSV, Markdown or HTML, or browsed in the TUI. */
#ifndef CUDALAB_GRADE_CLASSVIEW_H
#define CUDALAB_GRADE_CLASSVIEW_H

#include <stdbool.h>
#include <stddef.h>

#include "core/err.h"
#include "core/paths.h"
#include "grade/grade.h"
#include "grade/sign.h"

#define CLASS_TEXT_MAX 768

typedef struct class_file {
    char path[CL_PATH_MAX];
    bool usable;               /* in the table */
    bool report;               /* read as a cudalab grade report (usable or not) */
    sign_verdict verdict;      /* with a key; SIGN_UNSIGNED without one */
    char problem[CLASS_TEXT_MAX];   /* why it is left out of the table, or "" */
    char note[CLASS_TEXT_MAX];      /* in the table, but flagged: why, or "" */
    unsigned long long dev, ino;    /* the file's identity, once read (0 0: not read) */
    grade_report rep;          /* when report */
} class_file;

typedef struct class_column {
    char lab[GRADE_ID_MAX];
    char id[GRADE_ID_MAX];
    char text[GRADE_TEXT_MAX];
    double points;
    bool quiz;                 /* a quiz: its points are self-reported */
} class_column;

/* A report's points apart: measured afresh from the source, and the
 * quizzes' (the learner's own answers: self-reported), which a report
 * graded with --quizzes ignore does not count. */
typedef struct class_points {
    double measured, measured_max;
    double quiz, quiz_max;
    size_t quizzes;            /* quiz milestones in the report */
    bool quizzes_counted;
} class_points;

typedef struct class_opts {
    const void *key;           /* the instructor's key; NULL: signatures not checked */
    size_t keylen;
    const char *assignment;    /* the assignment to show; NULL: the most common one */
} class_opts;

typedef struct class_view {
    class_file *files;         /* every file and entry looked at, in walk order */
    size_t nfiles;
    size_t *rows;              /* indices of the usable files, in display order */
    size_t nrows;
    class_column *cols;        /* every (lab, milestone) seen, in first-seen order */
    size_t ncols;
    bool checked;              /* signatures were checked with a key */
    char assignment[GRADE_ASSIGNMENT_MAX + 1];   /* the assignment shown ("" none) */
    bool assignment_given;     /* asked for, rather than the most common */
    size_t nreports;           /* files read as grade reports, usable or not */
    size_t nflagged;           /* usable files with a note */
    size_t skipped;            /* files passed over: not .json, or Gradescope's */
} class_view;

typedef enum class_sort {
    CLASS_BY_LEARNER,          /* name, A to Z */
    CLASS_BY_SCORE,            /* score, highest first */
    CLASS_BY_TIME,             /* the first lab's best time, fastest first */
} class_sort;

/* Loads dir.  false + err only when dir itself cannot be read. */
bool class_load(const char *dir, const class_opts *opts, class_view *out, cl_err *err);
void class_free(class_view *view);
void class_order(class_view *view, class_sort by);

/* The points of report r, measured and quiz apart. */
void class_points_of(const grade_report *r, class_points *out);
/* The points of r as text: "3 of 5" measured, "1 of 1" (or "not counted")
 * quiz; "" for a report with no quiz. */
void class_points_text(const class_points *p, char *measured, size_t mn, char *quiz, size_t qn);

/* The milestone of the column in file's report, or NULL (not graded). */
const grade_milestone *class_cell(const class_view *view, const class_file *file, size_t column);

/* The table as text (malloc'd): CSV (RFC 4180), Markdown, or an HTML page,
 * each cell escaped for its reader (core/escape.h); the notes in a column,
 * the files left out listed after the table (Markdown, HTML). */
char *class_csv(const class_view *view);
char *class_markdown(const class_view *view);
char *class_html(const class_view *view);

#endif
