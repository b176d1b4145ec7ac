#include "grade/grade_internal.h"

#include <stdio.h>

#include "catalog/problem_spec.h"

#include "supervise/diag_row.h"

static void explain(const diagnosis *d, char *why, size_t wn)
{
    snprintf(why, wn, "%s%s%s%s: %s Next step: %s", d->title, d->where[0] ? " (" : "", d->where,
             d->where[0] ? ")" : "", d->explanation, d->next_step);
}

void grade_explain_row(const run_result *result, const problem_spec *spec, char *cause, size_t cn,
                       char *why, size_t wn)
{
    diagnosis d;
    diag_row(result, NULL, spec, 0, NULL, &d);
    snprintf(cause, cn, "%s", diag_cause_name(d.cause));
    explain(&d, why, wn);
}

void grade_explain_fault(const run_fault *fault, double time_limit_s, char *cause, size_t cn,
                         char *why, size_t wn)
{
    diagnosis d;
    diag_row(NULL, fault, NULL, time_limit_s, NULL, &d);
    snprintf(cause, cn, "%s", diag_cause_name(d.cause));
    explain(&d, why, wn);
}
