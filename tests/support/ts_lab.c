#include "support.h"

#include <setjmp.h>
#include <stdarg.h>
#include <cmocka.h>

#include <stdio.h>
#include <unistd.h>

#include "lab/labmodel.h"

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
