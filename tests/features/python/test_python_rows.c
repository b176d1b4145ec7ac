/* The Python rows without a GPU, CuPy or Numba: the python lab passes
 * `cudalab check`; each Python row (rungs and the learner's starter.py)
 * says it is unavailable and what to install, whether python3 lacks the
 * packages or is not there at all, while the CUDA C rung says there is no
 * device; the loader reports each mistake of a lab's Python rows at its
 * line; python3's import folders, for the confined worker, are never home
 * or temporary folders.  CUDA_VISIBLE_DEVICES is emptied first, so this
 * holds on GPU machines too. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lab/labmodel.h"
#include "lab/pyenv.h"
#include "support.h"

#define INSTALL_WORDS "(pip install cupy-cuda13x 'numba-cuda[cu13]')"

static void test_lab_checks(void **state)
{
    (void)state;
    char labdir[CL_PATH_MAX];
    ts_home_path(labdir, sizeof labdir, "labs/python");
    ts_output o = {0};
    int rc = ts_shell(&o, true, "'%s' check '%s'", ts_exe(), labdir);
    if (rc != 0 || !ts_contains(o.out, "1 lab ok"))
        fail_msg("cudalab check labs/python: rc %d\n%s", rc, o.out);
    ts_output_free(&o);
}

/* The python lab's four rows and the learner's starter.py at 2^12. */
static void run_lab(ts_rows *c)
{
    char path[CL_PATH_MAX], starter[CL_PATH_MAX];
    ts_home_path(path, sizeof path, "labs/python/lab.lua");
    ts_home_path(starter, sizeof starter, "labs/python/starter.py");
    run_request req;
    memset(&req, 0, sizeof req);
    req.run = 1;
    snprintf(req.problem, sizeof req.problem, "saxpy_python");
    snprintf(req.library, sizeof req.library, "cuda_c");
    snprintf(req.lab_file, sizeof req.lab_file, "%s", path);
    snprintf(req.exercise_kernel, sizeof req.exercise_kernel, "%s", starter);
    static const char *const rows[] = {"cuda_c", "cupy_array", "cupy_rawkernel", "numba_jit"};
    for (int i = 0; i < 4; i++)
        ts_add_variant(&req, rows[i], NULL);
    ts_add_size(&req, "2^12");
    req.cpu = true;
    req.budget_s = 0.02;
    assert_true(ts_engine_run(&req, c, NULL));
}

/* Every Python row of c says part and what to install: as an error, or,
 * where there is no device either (as in CI), as a row with no device that
 * names the packages too; the C rung has no device. */
static void expect_unavailable(const ts_rows *c, const char *part)
{
    static const char *const py[] = {"cupy_array", "cupy_rawkernel", "numba_jit", "exercise"};
    for (int i = 0; i < 4; i++) {
        const run_result *r = ts_row(c, py[i], "2^12");
        if (!r)
            ts_rows_dump(c);
        assert_non_null(r);
        if ((r->status != RS_ERROR && r->status != RS_NO_DEVICE) || !ts_contains(r->message, part) ||
            !ts_contains(r->message, INSTALL_WORDS))
            fail_msg("row %s: status %d, message '%s' (wanted '%s' and the packages)", py[i],
                     (int)r->status, r->message, part);
    }
    const run_result *cr = ts_row(c, "cuda_c", "2^12");
    assert_non_null(cr);
    assert_int_equal(cr->status, RS_NO_DEVICE);
    const run_result *cpu = ts_row_of_kind(c, RK_CPU, "2^12");
    assert_non_null(cpu);
    assert_int_equal(cpu->status, RS_CORRECT);
}

/* A python3 that cannot import CuPy: the real one without its site
 * folders (-S), through a wrapper that CUDALAB_PYTHON names. */
static void test_without_packages(void **state)
{
    (void)state;
    char python[CL_PATH_MAX], why[256];
    unsetenv(PYENV_VAR);
    if (!pyenv_find(python, sizeof python, why, sizeof why)) {
        printf("no python3 here (%s): only the missing-python3 case runs\n", why);
        return;
    }
    char wrapper[CL_PATH_MAX + 32], text[CL_PATH_MAX + 64];
    snprintf(wrapper, sizeof wrapper, "%s/python3-nosite", ts_tmp);
    snprintf(text, sizeof text, "#!/bin/sh\nexec '%s' -S \"$@\"\n", python);
    assert_true(ts_write(wrapper, text));
    assert_int_equal(chmod(wrapper, 0755), 0);
    setenv(PYENV_VAR, wrapper, 1);
    pyenv p;
    pyenv_probe_into(&p);
    assert_true(p.found);
    assert_false(p.cupy);
    char msg[512];
    assert_true(pyenv_unavailable(&p, false, msg, sizeof msg));
    assert_string_equal(msg, "unavailable: python3 cannot import cupy " INSTALL_WORDS);
    static ts_rows c;
    run_lab(&c);
    expect_unavailable(&c, "unavailable: python3 cannot import cupy");
    unsetenv(PYENV_VAR);
}

static void test_no_python(void **state)
{
    (void)state;
    setenv(PYENV_VAR, "/nonexistent/python3", 1);
    static ts_rows c;
    run_lab(&c);
    expect_unavailable(&c, "unavailable: CUDALAB_PYTHON names /nonexistent/python3, which is "
                           "not an executable file");
    setenv(PYENV_VAR, "no-such-python-here", 1);
    pyenv p;
    pyenv_probe_into(&p);
    assert_false(p.found);
    assert_true(ts_contains(p.why, "no-such-python-here, which is not in PATH"));
    unsetenv(PYENV_VAR);
}

static void test_loader_mistakes(void **state)
{
    (void)state;
    char path[CL_PATH_MAX], home[CL_PATH_MAX];
    ts_data_path(path, sizeof path, "features/python/fixtures/pybad/lab.lua");
    ts_home_path(home, sizeof home, "%s", "");
    lab_diags d = {0};
    lab *l = lab_load(path, home, &d);
    assert_null(l);
    static const struct {
        int line;
        const char *part;
    } want[] = {
        {16, "variant 'both': a Python rung has only 'python'"},
        {18, "variant 'notpy': field 'python' must name a .py file inside the lab folder"},
        {20, "variant 'outside': field 'python' must name a .py file inside the lab folder"},
        {22, "exercise: a Python exercise has only 'python'"},
    };
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        bool found = false;
        for (size_t i = 0; i < d.n && !found; i++)
            found = d.v[i].line == want[k].line && ts_contains(d.v[i].msg, want[k].part);
        if (!found) {
            for (size_t i = 0; i < d.n; i++)
                printf("  %s:%d: %s\n", d.v[i].file, d.v[i].line, d.v[i].msg);
            fail_msg("no diagnostic '%s' at line %d", want[k].part, want[k].line);
        }
    }
    lab_diags_free(&d);
}

/* A Python rung whose file is missing is reported when the lab loads. */
static void test_missing_rung_file(void **state)
{
    (void)state;
    char dir[CL_PATH_MAX + 16], file[CL_PATH_MAX + 32], home[CL_PATH_MAX];
    snprintf(dir, sizeof dir, "%s/pymiss", ts_tmp);
    cl_err e = {{0}};
    assert_true(paths_mkdir_p(dir, &e));
    snprintf(file, sizeof file, "%s/lab.lua", dir);
    assert_true(ts_write(file,
        "return lab {\n"
        "  id = \"pymiss\", title = \"t\",\n"
        "  problem = problem { dims = { \"n\" },\n"
        "    args = { { name = \"x\", type = \"f32\", length = \"n\", fill = { \"constant\", 1 } },\n"
        "             { name = \"y\", type = \"f32\", length = \"n\", output = \"exact\" } },\n"
        "    reference = function(a) for i = 0, #a.x - 1 do a.y[i] = a.x[i] end end },\n"
        "  sizes = { \"64\" },\n"
        "  steps = { step \"s\" [[ s ]] },\n"
        "  variants = { variant { id = \"gone\", title = \"g\", python = \"rungs/gone.py\" } },\n"
        "  exercise = exercise { python = \"mine.py\" },\n"
        "}\n"));
    ts_home_path(home, sizeof home, "%s", "");
    /* the exercise's file first; with it there, the rung's */
    for (int pass = 0; pass < 2; pass++) {
        lab_diags d = {0};
        lab *l = lab_load(file, home, &d);
        assert_null(l);
        bool found = false;
        for (size_t i = 0; i < d.n; i++)
            found |= pass == 0 ? d.v[i].line == 10 &&
                                     ts_contains(d.v[i].msg, "file 'mine.py' not found")
                               : d.v[i].line == 9 &&
                                     ts_contains(d.v[i].msg, "'rungs/gone.py' does not exist");
        if (!found)
            for (size_t i = 0; i < d.n; i++)
                printf("  %s:%d: %s\n", d.v[i].file, d.v[i].line, d.v[i].msg);
        assert_true(found);
        lab_diags_free(&d);
        snprintf(file, sizeof file, "%s/mine.py", dir);
        assert_true(ts_write(file, "def run(args):\n    pass\n"));
        snprintf(file, sizeof file, "%s/lab.lua", dir);
    }
}

static void test_import_dirs(void **state)
{
    (void)state;
    char *dirs[32];
    unsetenv(PYENV_VAR);
    size_t n = pyenv_import_dirs(dirs, 32);
    const char *home = getenv("HOME");
    for (size_t i = 0; i < n; i++) {
        assert_true(dirs[i][0] == '/');
        assert_true(strcmp(dirs[i], "/") != 0);
        assert_false(ts_starts_with(dirs[i], "/home/") || ts_starts_with(dirs[i], "/root/") ||
                     ts_starts_with(dirs[i], "/tmp/"));
        if (home && home[0] && strcmp(home, "/") != 0)
            assert_false(ts_starts_with(dirs[i], home));
        free(dirs[i]);
    }
    printf("python3's import folders a confined worker may read: %zu\n", n);
}

int main(void)
{
    setenv("CUDA_VISIBLE_DEVICES", "", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lab_checks),       cmocka_unit_test(test_without_packages),
        cmocka_unit_test(test_no_python),        cmocka_unit_test(test_loader_mistakes),
        cmocka_unit_test(test_missing_rung_file), cmocka_unit_test(test_import_dirs),
    };
    return cmocka_run_group_tests(tests, ts_tmp_setup, ts_tmp_teardown);
}
