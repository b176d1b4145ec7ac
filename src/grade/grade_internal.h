/* grade_internal.h - what the grade files share.  Private to src/grade/. */
#ifndef CUDALAB_GRADE_GRADE_INTERNAL_H
#define CUDALAB_GRADE_GRADE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "core/paths.h"
#include "grade/grade.h"
#include "grade/sandbox.h"
#include "result/record.h"

struct problem_spec;

/* A failed learner row in plain words: the diagnosis's cause name into
 * cause, "title (where): explanation  Next step: ..." into why. */
void grade_explain_row(const run_result *result, const struct problem_spec *spec, char *cause,
                       size_t cn, char *why, size_t wn);
/* The same for a fault that ended a run. */
void grade_explain_fault(const run_fault *fault, double time_limit_s, char *cause, size_t cn,
                         char *why, size_t wn);

#endif
