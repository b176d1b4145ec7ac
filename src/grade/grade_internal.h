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

/* The CPU rows of every graded exercise, measured first by a worker that
 * runs nothing of the learner's (the labs' CPU code alone) and that fills
 * the grader's own cache, which the sandbox then reads and cannot write.
 * The sandbox's own CPU rows and speedups over the CPU are replaced by
 * these: nothing the learner's code could have touched decides them. */
typedef struct grade_baselines {
    run_result *rows;
    size_t n;
} grade_baselines;

/* The CPU row (RK_CPU or RK_CPU_MT) of variant at size in b, or NULL. */
const run_result *grade_trusted_row(const grade_baselines *b, const char *variant,
                                    const char *size);
/* req, built for an exercise of l, made the trusted pass's: the CPU rows
 * alone; false when its problem has no CPU baselines to measure. */
struct lab;
bool grade_trusted_request(const struct lab *l, run_request *req);
/* gl's CPU rows replaced by b's, and its speedups over the CPU taken from them. */
void grade_apply_trusted(grade_lab *gl, const grade_baselines *b);
void grade_free_baselines(grade_baselines *bl, size_t n);

#endif
