/* The Python rows on a GPU, with CuPy and Numba installed: every row of the
 * python lab (CuPy arrays, CuPy RawKernel, Numba, the CUDA C rung) and the
 * exercise's reference solution run and are right at the lab's sizes, with
 * timing samples; a Python exception and a Numba kernel's illegal write
 * become row errors naming file:line while the engine carries on (the next
 * row, in a new python3, is right); the solution earns the lab's measured
 * milestones through grading in a confined worker, as `cudalab grade`
 * does, and a starter.py that tries to read the key or the worker's memory
 * there is refused.  Skips (exit 77) without a device, or without CuPy and
 * Numba. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/paths.h"
#include "grade/grade.h"
#include "lab/labmodel.h"
#include "lab/pyenv.h"
#include "supervise/supervisor.h"
#include "support.h"

static void request(run_request *req, const char *lab_file, const char *problem,
                    const char *library)
{
    memset(req, 0, sizeof *req);
    req->run = 1;
    snprintf(req->problem, sizeof req->problem, "%s", problem);
    snprintf(req->library, sizeof req->library, "%s", library);
    snprintf(req->lab_file, sizeof req->lab_file, "%s", lab_file);
    req->budget_s = 0.1;
}

static void test_lab_rows(void **state)
{
    (void)state;
    char path[CL_PATH_MAX], solution[CL_PATH_MAX];
    ts_home_path(path, sizeof path, "labs/python/lab.lua");
    ts_data_path(solution, sizeof solution, "features/python/solution/starter.py");
    run_request req;
    request(&req, path, "saxpy_python", "cuda_c");
    snprintf(req.exercise_kernel, sizeof req.exercise_kernel, "%s", solution);
    static const char *const rows[] = {"cuda_c", "cupy_array", "cupy_rawkernel", "numba_jit"};
    for (int i = 0; i < 4; i++)
        ts_add_variant(&req, rows[i], NULL);
    static const char *const sizes[] = {"2^12", "2^20+3", "2^26"};
    for (int s = 0; s < 3; s++)
        ts_add_size(&req, sizes[s]);
    static ts_rows c;
    c.echo = true;
    assert_true(ts_engine_run(&req, &c, NULL));
    bool ok = true;
    for (int s = 0; s < 3; s++) {
        for (int i = 0; i < 5; i++) {
            const char *id = i < 4 ? rows[i] : "exercise";
            const run_result *r = ts_row(&c, id, sizes[s]);
            if (!r || r->status != RS_CORRECT || r->samples < 3 || !(r->median_ms > 0.0)) {
                printf("row %s at %s: %s\n", id, sizes[s], r ? r->message : "missing");
                ok = false;
                continue;
            }
            printf("%-15s %-7s %10.4f ms  %8.1f GB/s  x lib %.2f  (%d samples)\n", id, sizes[s],
                   r->median_ms, r->gbps, r->speedup_lib, r->samples);
        }
    }
    if (!ok)
        ts_rows_dump(&c);
    assert_true(ok);
}

static void test_errors(void **state)
{
    (void)state;
    char path[CL_PATH_MAX];
    ts_data_path(path, sizeof path, "features/python/fixtures/pyerrors/lab.lua");
    run_request req;
    request(&req, path, "pyerrors", "copy");
    ts_add_variant(&req, "raises", NULL);
    ts_add_variant(&req, "oob", NULL);
    ts_add_variant(&req, "good", NULL);
    ts_add_size(&req, "2^16");
    ts_add_size(&req, "2^16+1");
    static ts_rows c;
    c.echo = true;
    run_fault f;
    memset(&f, 0, sizeof f);
    bool alive = ts_engine_run(&req, &c, &f);
    if (!alive)
        fail_msg("the engine's context broke: %s", f.message);
    static const char *const sizes[] = {"2^16", "2^16+1"};
    for (int s = 0; s < 2; s++) {
        const run_result *r = ts_row(&c, "raises", sizes[s]);
        assert_non_null(r);
        printf("raises at %s: %s\n", sizes[s], r->message);
        assert_int_equal(r->status, RS_ERROR);
        assert_true(ts_contains(r->message, "rungs/raises.py:8: RuntimeError: a Python error on "
                                            "purpose"));
        r = ts_row(&c, "oob", sizes[s]);
        assert_non_null(r);
        printf("oob at %s: %s\n", sizes[s], r->message);
        assert_int_equal(r->status, RS_ERROR);
        assert_true(ts_contains(r->message, "rungs/oob.py:"));
        assert_true(ts_contains(r->message, "llegal") || ts_contains(r->message, "ILLEGAL"));
        r = ts_row(&c, "good", sizes[s]);
        assert_non_null(r);
        if (r->status != RS_CORRECT)
            fail_msg("the good row after the failing ones at %s: %s", sizes[s], r->message);
    }
}

static void progress(void *ud, const char *line)
{
    (void)ud;
    printf("  grade: %s\n", line);
}

static void test_grade_solution(void **state)
{
    (void)state;
    char home[CL_PATH_MAX], labs[CL_PATH_MAX + 8], ws[CL_PATH_MAX + 32],
        folder[CL_PATH_MAX + 64], dst[CL_PATH_MAX + 96], src[CL_PATH_MAX];
    ts_home_path(home, sizeof home, "%s", "");
    snprintf(labs, sizeof labs, "%s/labs", home);
    snprintf(ws, sizeof ws, "%s/ws", ts_tmp);
    snprintf(folder, sizeof folder, "%s/python", ws);
    cl_err e = {{0}};
    assert_true(paths_mkdir_p(folder, &e));
    ts_data_path(src, sizeof src, "features/python/solution/starter.py");
    char *text = ts_read(src);
    assert_non_null(text);
    snprintf(dst, sizeof dst, "%s/starter.py", folder);
    assert_true(ts_write(dst, text));
    free(text);

    lab_set set = {0};
    lab_diags d = {0};
    const char *dirs[] = {labs};
    assert_true(lab_set_load(&set, dirs, 1, home, &d, &e));
    lab_diags_free(&d);
    const char *only[] = {"python"};
    grade_opts o = {.workspace = ws, .learner = "py", .worker_exe = ts_exe(), .only = only,
                    .nonly = 1, .progress = progress};
    grade_report r;
    grade_status st = grade_run(&set, &o, NULL, &r, &e);
    if (st != GRADE_OK)
        fail_msg("grade_run: %d %s", (int)st, e.msg);
    int passed = 0;
    for (size_t i = 0; i < r.nlabs; i++) {
        printf("%s: %g of %g %s\n", r.labs[i].id, r.labs[i].score, r.labs[i].max_score,
               r.labs[i].note);
        for (size_t k = 0; k < r.labs[i].nms; k++) {
            const grade_milestone *g = &r.labs[i].ms[k];
            printf("  %-16s %s %s %s\n", g->id, g->passed ? "passed" : "FAILED", g->value, g->why);
            if ((strcmp(g->id, "correct") == 0 || strcmp(g->id, "near_c") == 0) && g->passed)
                passed++;
        }
        assert_true(r.labs[i].kernel_text != NULL);
        assert_string_equal(r.labs[i].launcher_path, "");
    }
    assert_int_equal(passed, 2);
    grade_report_free(&r);
    lab_set_free(&set);
}

/* A learner's starter.py, graded in a confined worker, tries to read the
 * grading key beside the workspace, the worker's memory, to attach to the
 * worker and to open network sockets: each is refused (the row's error
 * lists what it tried). */
static void test_confined_python(void **state)
{
    (void)state;
    char home[CL_PATH_MAX], labs[CL_PATH_MAX + 8], ws[CL_PATH_MAX + 32], key[CL_PATH_MAX + 32],
        dir[CL_PATH_MAX + 64], file[CL_PATH_MAX + 96], text[CL_PATH_MAX + 2048];
    cl_err e = {{0}};
    ts_home_path(home, sizeof home, "%s", "");
    snprintf(labs, sizeof labs, "%s/labs", home);
    snprintf(ws, sizeof ws, "%s/ws-probe", ts_tmp);
    snprintf(dir, sizeof dir, "%s/instructor", ts_tmp);
    assert_true(paths_mkdir_p(dir, &e));
    snprintf(key, sizeof key, "%s/instructor/grade.key", ts_tmp);
    assert_true(ts_write(key, "SECRET-python-probe\n"));
    snprintf(dir, sizeof dir, "%s/python", ws);
    assert_true(paths_mkdir_p(dir, &e));
    snprintf(file, sizeof file, "%s/starter.py", dir);
    snprintf(text, sizeof text,
             "import ctypes, os, socket\n"
             "def attempt(what, fn):\n"
             "    try:\n"
             "        fn()\n"
             "        return what + ': ALLOWED'\n"
             "    except Exception:\n"
             "        return what + ': refused'\n"
             "def run(args):\n"
             "    ppid = os.getppid()\n"
             "    libc = ctypes.CDLL(None, use_errno=True)\n"
             "    mem = '/proc/%%d/mem' %% ppid\n"
             "    attach = libc.ptrace(16, ppid, 0, 0) == 0\n"
             "    res = [attempt('read key', lambda: open('%s').read()),\n"
             "           attempt('read worker memory', lambda: open(mem, 'rb').read(1)),\n"
             "           attempt('open a TCP socket', lambda: socket.socket(socket.AF_INET,"
             " socket.SOCK_STREAM)),\n"
             "           attempt('open a UDP socket', lambda: socket.socket(socket.AF_INET6,"
             " socket.SOCK_DGRAM)),\n"
             "           'attach to worker: ' + ('ALLOWED' if attach else 'refused')]\n"
             "    raise RuntimeError(' | '.join(res))\n",
             key);
    assert_true(ts_write(file, text));
    lab_set set = {0};
    lab_diags d = {0};
    const char *dirs[] = {labs};
    assert_true(lab_set_load(&set, dirs, 1, home, &d, &e));
    lab_diags_free(&d);
    const char *only[] = {"python"};
    grade_opts o = {.workspace = ws, .learner = "probe", .worker_exe = ts_exe(), .only = only,
                    .nonly = 1, .progress = progress};
    grade_report r;
    assert_int_equal(grade_run(&set, &o, NULL, &r, &e), GRADE_OK);
    assert_true(r.nlabs == 1 && r.labs[0].nms > 0);
    const char *why = r.labs[0].ms[0].why;
    printf("the probe's row: %s\n", why);
    assert_true(ts_contains(why, "read key: refused"));
    assert_true(ts_contains(why, "read worker memory: refused"));
    assert_true(ts_contains(why, "attach to worker: refused"));
    assert_true(ts_contains(why, "open a TCP socket: refused"));
    assert_true(ts_contains(why, "open a UDP socket: refused"));
    assert_false(ts_contains(why, "ALLOWED"));
    assert_false(ts_contains(why, "SECRET-python-probe"));
    grade_report_free(&r);
    lab_set_free(&set);
}

int main(void)
{
    char why[512];
    if (!ts_worker_has_device(why, sizeof why)) {
        printf("SKIP: %s\n", why);
        return 77;
    }
    const pyenv *p = pyenv_probe();
    char msg[512];
    if (pyenv_unavailable(p, true, msg, sizeof msg)) {
        printf("SKIP: %s\n", msg);
        return 77;
    }
    printf("python3 %s (%s): CuPy %s, Numba %s\n", p->python, p->version, p->cupy_version,
           p->numba_version);
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_lab_rows),
                                       cmocka_unit_test(test_errors),
                                       cmocka_unit_test(test_grade_solution),
                                       cmocka_unit_test(test_confined_python)};
    return cmocka_run_group_tests(tests, ts_tmp_setup, ts_tmp_teardown);
}
