/* grade_baselines.c - the CPU baselines measured apart from the learner's
 * code, and how a graded exercise's rows take them (grade_internal.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/experiments_list.h"
#include "catalog/problem_spec.h"
#include "grade/grade_internal.h"
#include "lab/labproblem.h"
#include "lab/probdecl.h"

const run_result *grade_trusted_row(const grade_baselines *b, const char *variant, const char *size)
{
    for (size_t i = 0; b && i < b->n; i++)
        if ((b->rows[i].kind == RK_CPU || b->rows[i].kind == RK_CPU_MT) &&
            strcmp(b->rows[i].variant, variant) == 0 && strcmp(b->rows[i].size, size) == 0)
            return &b->rows[i];
    return NULL;
}

/* req, built for exercise x, made the trusted pass's: the CPU rows alone
 * (no rung, library or learner's kernel), and for an experiments lab's
 * exercise the problem it computes (the profiling lab's: the pipeline, as
 * the worker runs the learner's kernel).  false when the problem has no
 * CPU baselines to measure: one its lab declares without them (a stencil
 * measured against the copy) or an experiments problem with no exercise
 * problem of its own (multigpu's, against NCCL). */
bool grade_trusted_request(const lab *l, run_request *req)
{
    req->nvariants = 0;
    req->library[0] = '\0';
    req->exercise_kernel[0] = req->exercise_launcher[0] = '\0';
    if (experiments_problem(req->problem)) {
        const problem_spec *ps = problem_spec_of_exercise(req->problem);
        if (!ps || experiments_problem(ps->name))
            return false;
        snprintf(req->problem, sizeof req->problem, "%s", ps->name);
        req->lab_file[0] = '\0';
        return true;
    }
    const problem_decl *pd = req->lab_file[0] ? lab_problem_decl(l, req->problem) : NULL;
    return !pd || (pd->cpu && pd->builtin[0]);
}

static bool has_row(const grade_lab *gl, const char *variant, const char *size)
{
    for (size_t k = 0; k < gl->nrows; k++)
        if (strcmp(gl->rows[k].variant, variant) == 0 && strcmp(gl->rows[k].size, size) == 0)
            return true;
    return false;
}

/* gl's CPU rows replaced by the trusted ones, and every other row's
 * speedups over the CPU taken from them (0 where none was measured). */
void grade_apply_trusted(grade_lab *gl, const grade_baselines *b)
{
    for (size_t k = 0; k < gl->nrows; k++) {
        run_result *r = &gl->rows[k];
        if (r->kind == RK_CPU || r->kind == RK_CPU_MT) {
            const run_result *t = grade_trusted_row(b, r->variant, r->size);
            if (t) {
                int run = r->run;
                *r = *t;
                r->run = run;
            } else {
                r->status = RS_ERROR;
                snprintf(r->message, sizeof r->message,
                         "not measured apart from the learner's code: not used in grading");
                r->median_ms = 0;
            }
            continue;
        }
        /* rows measured against the size's "cpu" row (the pipeline's steps
         * have CPU rows of their own, read from the trusted cache) */
        if (!has_row(gl, "cpu", r->size))
            continue;
        const run_result *cpu = grade_trusted_row(b, "cpu", r->size);
        const run_result *mt = grade_trusted_row(b, "cpu_mt", r->size);
        bool timed = r->median_ms > 0.0;
        r->speedup_cpu = timed && cpu && cpu->status == RS_CORRECT ? cpu->median_ms / r->median_ms
                                                                   : 0.0;
        r->speedup_cpu_mt = timed && mt && mt->status == RS_CORRECT
                                ? mt->median_ms / r->median_ms
                                : 0.0;
    }
}

void grade_free_baselines(grade_baselines *bl, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(bl[i].rows);
    free(bl);
}
