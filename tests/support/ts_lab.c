#include "support.h"

#include <setjmp.h>
#include <stdarg.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "catalog/problem_spec.h"
#include "lab/labmodel.h"
#include "lab/labproblem.h"
#include "lab/probdecl.h"

lab *ts_lab_load(const char *path, const char *home, size_t *ndiags)
{
    lab_diags d = {0};
    lab *l = lab_load(path, home, &d);
    for (size_t i = 0; i < d.n; i++)
        fprintf(stderr, "  %s:%d: %s\n", d.v[i].file, d.v[i].line, d.v[i].msg);
    if (ndiags)
        *ndiags = d.n;
    lab_diags_free(&d);
    return l;
}

lab *ts_lab_shipped(const char *id)
{
    char path[CL_PATH_MAX];
    ts_home_path(path, sizeof path, "labs/%s/lab.lua", id);
    size_t nd = 0;
    lab *l = ts_lab_load(path, getenv("CUDALAB_HOME"), &nd);
    if (l && nd > 0) {
        lab_free(l);
        return NULL;
    }
    return l;
}

const problem_spec *ts_shipped_spec(const char *name)
{
    static lab *loaded[16];
    static size_t n;
    for (size_t i = 0; i < n; i++)
        if (strcmp(loaded[i]->decls[0].name, name) == 0)
            return &loaded[i]->decls[0].spec;
    const problem_spec *c = problem_spec_find(name);
    if (c)
        return c;
    char home[CL_PATH_MAX];
    lab_diags d = {0};
    ts_home_path(home, sizeof home, "%s", "");
    lab *l = lab_load_problem(name, home, &d);
    if (!l || n == sizeof loaded / sizeof loaded[0])
        fail_msg("no shipped problem %s: %s", name, d.n ? d.v[0].msg : "did not load");
    lab_diags_free(&d);
    loaded[n++] = l;
    return &l->decls[0].spec;
}

bool ts_lua_run(lab_state *s, const char *dir, const char *name, const char *code, int nres,
                cl_err *e)
{
    char path[CL_PATH_MAX];
    snprintf(path, sizeof path, "%s/%s.lua", dir, name);
    assert_true(ts_write(path, code));
    bool ok = sandbox_dofile(s, path, nres, e);
    unlink(path);
    return ok;
}
