/* classview_internal.h - what the class view's files share.  Private to
 * src/grade/ (classview.c, classwalk.c, classcheck.c). */
#ifndef CUDALAB_GRADE_CLASSVIEW_INTERNAL_H
#define CUDALAB_GRADE_CLASSVIEW_INTERNAL_H

#include <stdbool.h>

#include "grade/classview.h"

/* Appends a file (or folder entry) to view, zeroed but for its path; NULL when
 * out of memory. */
class_file *class_add_file(class_view *view, size_t *cap, const char *path);
/* Walks dir into view: every .json file read (a report, or a problem), every
 * entry that cannot be read listed.  false + err when dir itself cannot be
 * read, or when out of memory. */
bool class_walk(class_view *view, size_t *cap, const char *dir, const class_opts *opts,
                cl_err *err);
/* The checks across reports: the assignment shown, a learner's older
 * reports, the same kernel under several learners, reports not graded.
 * false when out of memory. */
bool class_check(class_view *view, const class_opts *opts);

#endif
