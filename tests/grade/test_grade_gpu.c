/* test_grade_gpu.c - grading on a GPU: a workspace holding the reference
 * solutions earns every measured milestone; one holding broken, wrong and
 * missing kernels, and a launcher that hands the work to a shipped kernel,
 * earns none of them, each failure with its cause.  With
 * CUDALAB_GRADE_OUT set, both reports are written there (for
 * bench/results).  Skips (exit 77) without a device. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <setjmp.h>
#include <cmocka.h>

#include "core/atomicfile.h"
#include "core/paths.h"
#include "grade/grade.h"
#include "grade/report.h"
#include "supervise/supervisor.h"
#include "support.h"

static char dir[CL_PATH_MAX];
static lab_set g_labs;

/* Copies tests/<from>.cu/.lua (or starter.cu/.lua of a folder) into
 * <ws>/<lab>/starter.cu and starter.lua. */
static void place(const char *ws, const char *lab_id, const char *cu, const char *lua)
{
    char src[CL_PATH_MAX], dst[CL_PATH_MAX + 64], folder[CL_PATH_MAX + 32];
    cl_err e = {{0}};
    snprintf(folder, sizeof folder, "%s/%s", ws, lab_id);
    assert_true(paths_mkdir_p(folder, &e));
    const char *files[2][2] = {{cu, "starter.cu"}, {lua, "starter.lua"}};
    for (int i = 0; i < 2; i++) {
        ts_data_path(src, sizeof src, "%s", files[i][0]);
        snprintf(dst, sizeof dst, "%s/%s", folder, files[i][1]);
        char *text = ts_read(src);
        if (!text)
            fail_msg("cannot read %s", src);
        assert_true(ts_write(dst, text));
        free(text);
    }
}

static const grade_milestone *find(const grade_report *r, const char *lab_id, const char *id)
{
    for (size_t i = 0; i < r->nlabs; i++)
        for (size_t k = 0; strcmp(r->labs[i].id, lab_id) == 0 && k < r->labs[i].nms; k++)
            if (strcmp(r->labs[i].ms[k].id, id) == 0)
                return &r->labs[i].ms[k];
    fail_msg("no milestone %s of %s in the report", id, lab_id);
    return NULL;
}

static void progress(void *ud, const char *line)
{
    (void)ud;
    printf("  grade: %s\n", line);
}

static grade_status grade(const char *ws, const char *learner, grade_report *r)
{
    const char *argv[] = {ts_exe(), "worker", NULL};
    grade_opts o = {.workspace = ws, .learner = learner, .worker_argv = argv,
                    .progress = progress};
    cl_err e = {{0}};
    grade_status st = grade_run(&g_labs, &o, NULL, r, &e);
    if (st == GRADE_FAILED)
        fail_msg("grade_run: %s", e.msg);
    if (st == GRADE_OK) {
        const char *out = getenv("CUDALAB_GRADE_OUT");
        if (out && out[0]) {
            char folder[CL_PATH_MAX + 64];
            snprintf(folder, sizeof folder, "%s/%s", out, learner);
            report_kind kinds[] = {REPORT_JSON, REPORT_GRADESCOPE, REPORT_JUNIT, REPORT_CSV};
            if (!report_write(r, folder, kinds, 4, "bench key", 9, &e))
                fail_msg("report_write: %s", e.msg);
        }
    }
    return st;
}

static int setup(void **state)
{
    (void)state;
    if (!ts_tmpdir(dir, sizeof dir, "grade-gpu"))
        return -1;
    char home[CL_PATH_MAX], shipped[CL_PATH_MAX + 8];
    ts_home_path(home, sizeof home, "%s", "");
    snprintf(shipped, sizeof shipped, "%s/labs", home);
    const char *dirs[] = {shipped};
    lab_diags d = {0};
    cl_err e = {{0}};
    bool ok = lab_set_load(&g_labs, dirs, 1, home, &d, &e);
    if (!ok || d.n)
        fprintf(stderr, "loading the labs: %s (%zu problems)\n", ok ? "" : e.msg, d.n);
    lab_diags_free(&d);
    return ok ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    lab_set_free(&g_labs);
    ts_rm_rf(dir);
    return 0;
}

static void test_passing_workspace(void **state)
{
    (void)state;
    char ws[CL_PATH_MAX + 16];
    snprintf(ws, sizeof ws, "%s/pass", dir);
    place(ws, "reduction", "exercises/solutions/reduction/solution.cu",
          "exercises/solutions/reduction/solution.lua");
    place(ws, "matmul", "exercises/solutions/matmul/solution.cu",
          "exercises/solutions/matmul/solution.lua");
    place(ws, "embedding", "exercises/solutions/embedding/solution.cu",
          "exercises/solutions/embedding/solution.lua");
    place(ws, "pipeline", "pipeline/solution/pipeline.cu", "pipeline/solution/pipeline.lua");
    grade_report r;
    grade_status st = grade(ws, "passing", &r);
    if (st == GRADE_NO_DEVICE)
        fail_msg("the device went away");
    printf("graded the passing workspace on %s in %.1f s: %g of %g points\n", r.dev.name,
           r.seconds, r.score, r.max_score);
    for (size_t i = 0; i < r.nlabs; i++)
        for (size_t k = 0; k < r.labs[i].nms; k++) {
            const grade_milestone *g = &r.labs[i].ms[k];
            printf("  %-10s %-12s %s %s%s%s\n", r.labs[i].id, g->id, g->passed ? "passed" : "FAILED",
                   g->value, g->why[0] ? " | " : "", g->why);
        }
    assert_true(find(&r, "reduction", "cpu100x")->passed);
    assert_true(find(&r, "matmul", "within2x")->passed);
    assert_true(find(&r, "embedding", "correct")->passed);
    assert_true(find(&r, "embedding", "bandwidth")->passed);
    assert_true(find(&r, "pipeline", "pipeline10x")->passed);
    assert_true(find(&r, "pipeline", "steps5x")->passed);
    assert_false(find(&r, "reduction", "warps")->passed);   /* no quiz answered */
    grade_report_free(&r);
}

static void test_failing_workspace(void **state)
{
    (void)state;
    char ws[CL_PATH_MAX + 16];
    snprintf(ws, sizeof ws, "%s/fail", dir);
    place(ws, "reduction", "exercises/broken/cheat_shipped_kernel/starter.cu",
          "exercises/broken/cheat_shipped_kernel/starter.lua");
    place(ws, "matmul", "exercises/broken/wrong_off_by_one/starter.cu",
          "exercises/broken/wrong_off_by_one/starter.lua");
    place(ws, "pipeline", "exercises/broken/compile_error/starter.cu",
          "exercises/broken/compile_error/starter.lua");
    /* embedding: no files at all */
    grade_report r;
    grade_status st = grade(ws, "failing", &r);
    if (st == GRADE_NO_DEVICE)
        fail_msg("the device went away");
    printf("graded the failing workspace in %.1f s: %g of %g points\n", r.seconds, r.score,
           r.max_score);
    const grade_milestone *g = find(&r, "reduction", "cpu100x");
    printf("  reduction: %s: %s\n", g->cause, g->why);
    assert_false(g->passed);
    assert_string_equal(g->cause, "not_own");
    g = find(&r, "matmul", "within2x");
    printf("  matmul: %s: %s\n", g->cause, g->why);
    assert_false(g->passed);
    assert_string_equal(g->cause, "wrong");
    g = find(&r, "embedding", "correct");
    assert_false(g->passed);
    assert_string_equal(g->cause, "missing");
    g = find(&r, "pipeline", "pipeline10x");
    printf("  pipeline: %s: %s\n", g->cause, g->why);
    assert_false(g->passed);
    assert_string_equal(g->cause, "compile");
    assert_true(r.score == 0);
    grade_report_free(&r);
}

/* Whether the worker finds a device (asked the way grade_run asks). */
static bool have_device(char *why, size_t n)
{
    const char *argv[] = {ts_exe(), "worker", NULL};
    supervisor_opts so = {.argv = argv, .time_limit_s = 120};
    cl_err e = {{0}};
    device_info dev;
    memset(&dev, 0, sizeof dev);
    supervisor *s = supervisor_new(&so, &e);
    bool ok = s && supervisor_hello(s, 120000, &dev, &e);
    supervisor_free(s);
    snprintf(why, n, "%s", !ok ? e.msg : dev.reason);
    return ok && dev.present;
}

int main(void)
{
    char why[512];
    if (!have_device(why, sizeof why)) {
        printf("SKIP: %s\n", why);
        return 77;
    }
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_passing_workspace),
                                       cmocka_unit_test(test_failing_workspace)};
    return cmocka_run_group_tests(tests, setup, teardown);
}
