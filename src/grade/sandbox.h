/* sandbox.h - the sandbox a graded learner's code runs in
 * (grade_sandbox.c): the worker's command line at each level of
 * grade_sandbox (grade/grade.h), its scratch folder and what it may read. */
#ifndef CUDALAB_GRADE_SANDBOX_H
#define CUDALAB_GRADE_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>

#include "core/err.h"
#include "core/paths.h"
#include "grade/grade.h"

/* ---- the worker's sandbox (grade_sandbox.c) ---------------------------------- */

#define GRADE_JAIL_MAX 160
#define GRADE_JAIL_FILES 4

typedef struct grade_jail {
    grade_sandbox level;
    char self[CL_PATH_MAX];            /* the worker's program */
    const char *argv[16 + 2 * 64];     /* the worker's own command line */
    char scratch[CL_PATH_MAX];         /* the one writable folder; "" when none */
    char *ro[GRADE_JAIL_MAX], *dev[GRADE_JAIL_MAX], *hide[GRADE_JAIL_MAX];
    char *env[GRADE_JAIL_MAX];
    char *files[GRADE_JAIL_FILES][2];
    size_t nro, ndev, nhide, nenv, nfiles;
    char **bw;                         /* bwrap's command line around argv */
    bool oom;
} grade_jail;

/* The worker's command for o->sandbox, reading ws and the labs' folders
 * (python: the labs have Python rows, so python3's folders are bound and
 * CUDALAB_PYTHON names it).  inner, when not NULL, runs in the worker's
 * place in the very same sandbox (tests/grade/test_sandbox.c runs its
 * probes so).  At the namespace level: false + e when the sandbox cannot
 * be made here (nothing runs then). */
bool grade_jail_open(grade_jail *j, const grade_opts *o, const char *ws, const char *const *labs,
                     size_t nlabs, bool python, const char *const *inner, cl_err *e);
/* The command to start: bwrap's around the worker's, or the worker's. */
const char *const *grade_jail_command(const grade_jail *j);
/* Frees j and removes its scratch folder with everything in it. */
void grade_jail_close(grade_jail *j);

#endif
