/* test_grade_gpu.c - grading on a GPU: a workspace holding every lab's
 * reference solution, with every quiz answered through the progress store,
 * earns the full score (and says how long each lab took); one holding
 * broken, wrong and missing kernels, and a launcher that hands the work to
 * a shipped kernel, earns none of them, each failure with its cause; a
 * workspace whose kernels try to read the grading key through the real
 * `cudalab grade` leaks it nowhere.  With CUDALAB_GRADE_OUT set, the
 * reports are written there (for bench/results).  Skips (exit 77) without
 * a device. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cuda_runtime_api.h>

#include <setjmp.h>
#include <cmocka.h>

#include "core/atomicfile.h"
#include "core/paths.h"
#include "grade/grade.h"
#include "grade/report.h"
#include "store/store.h"
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

/* Copies tests/<cu> and tests/<lua> into <ws>/<path> under the names
 * kernel and launcher (a listed exercise's folder and starter names). */
static void place_as(const char *ws, const char *path, const char *cu, const char *kernel,
                     const char *lua, const char *launcher)
{
    char src[CL_PATH_MAX], dst[CL_PATH_MAX * 2], folder[CL_PATH_MAX + 64];
    cl_err e = {{0}};
    snprintf(folder, sizeof folder, "%s/%s", ws, path);
    assert_true(paths_mkdir_p(folder, &e));
    const char *files[2][2] = {{cu, kernel}, {lua, launcher}};
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

/* Copies tests/<from> into <ws>/<path>/<name>. */
static void place_file(const char *ws, const char *path, const char *from, const char *name)
{
    char src[CL_PATH_MAX], dst[CL_PATH_MAX * 2], folder[CL_PATH_MAX + 64];
    cl_err e = {{0}};
    snprintf(folder, sizeof folder, "%s/%s", ws, path);
    assert_true(paths_mkdir_p(folder, &e));
    ts_data_path(src, sizeof src, "%s", from);
    snprintf(dst, sizeof dst, "%s/%s", folder, name);
    char *text = ts_read(src);
    if (!text)
        fail_msg("cannot read %s", src);
    assert_true(ts_write(dst, text));
    free(text);
}

static grade_status grade_with(const char *ws, const char *learner, store *st, grade_report *r)
{
    /* the grading worker as `cudalab grade` starts it: confined */
    grade_opts o = {.workspace = ws, .learner = learner, .worker_exe = ts_exe(),
                    .progress = progress};
    cl_err e = {{0}};
    grade_status st_ = grade_run(&g_labs, &o, st, r, &e);
    if (st_ == GRADE_FAILED)
        fail_msg("grade_run: %s", e.msg);
    return st_;
}

static grade_status grade(const char *ws, const char *learner, grade_report *r)
{
    /* the grading worker as `cudalab grade` starts it: confined */
    grade_opts o = {.workspace = ws, .learner = learner, .worker_exe = ts_exe(),
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
    place(ws, "reduction", "features/exercises/solutions/reduction/solution.cu",
          "features/exercises/solutions/reduction/solution.lua");
    place(ws, "matmul", "features/exercises/solutions/matmul/solution.cu",
          "features/exercises/solutions/matmul/solution.lua");
    place(ws, "embedding", "features/exercises/solutions/embedding/solution.cu",
          "features/exercises/solutions/embedding/solution.lua");
    place(ws, "pipeline", "features/pipeline/solution/pipeline.cu", "features/pipeline/solution/pipeline.lua");
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

/* Every quiz of every lab answered right once, through the store. */
static void answer_every_quiz(store *st)
{
    cl_err e = {{0}};
    for (size_t i = 0; i < g_labs.n; i++) {
        const lab *l = g_labs.v[i];
        for (size_t q = 0; q < l->nquizzes; q++)
            for (size_t c = 0; c < l->quizzes[q].nchoices; c++)
                if (l->quizzes[q].choices[c].correct) {
                    if (!store_quiz_answer(st, l->id, l->quizzes[q].id, (int)c, true, &e))
                        fail_msg("answering %s/%s: %s", l->id, l->quizzes[q].id, e.msg);
                    break;
                }
    }
}

/* Every lab's reference solution, every quiz answered: the full score. */
static void test_full_score(void **state)
{
    (void)state;
    char ws[CL_PATH_MAX + 16], data[CL_PATH_MAX + 16];
    snprintf(ws, sizeof ws, "%s/full", dir);
    snprintf(data, sizeof data, "%s/full-data", dir);
    place(ws, "reduction", "features/exercises/solutions/reduction/solution.cu",
          "features/exercises/solutions/reduction/solution.lua");
    place(ws, "matmul", "features/exercises/solutions/matmul/solution.cu",
          "features/exercises/solutions/matmul/solution.lua");
    place_as(ws, "matmul/wmma", "features/exercises/solutions/matmul_wmma/solution.cu", "wmma_starter.cu",
             "features/exercises/solutions/matmul_wmma/solution.lua", "wmma_starter.lua");
    place(ws, "embedding", "features/exercises/solutions/embedding/solution.cu",
          "features/exercises/solutions/embedding/solution.lua");
    place(ws, "pipeline", "features/pipeline/solution/pipeline.cu", "features/pipeline/solution/pipeline.lua");
    place(ws, "profiling", "features/pipeline/solution/pipeline.cu", "features/pipeline/solution/pipeline.lua");
    /* the labs written in the lab language alone */
    static const char *const declared[] = {"scan", "stencil", "layernorm"};
    for (size_t i = 0; i < 3; i++) {
        char cu[128], lua[128];
        snprintf(cu, sizeof cu, "features/%s/solution/solution.cu", declared[i]);
        snprintf(lua, sizeof lua, "features/%s/solution/solution.lua", declared[i]);
        place(ws, declared[i], cu, lua);
    }
    static const char *const basics[] = {"saxpy", "histogram", "managed"};
    for (size_t i = 0; i < 3; i++) {
        char path[64], cu[128], lua[128];
        snprintf(path, sizeof path, "basics/%s", basics[i]);
        snprintf(cu, sizeof cu, "features/basics/solutions/%s/starter.cu", basics[i]);
        snprintf(lua, sizeof lua, "features/basics/solutions/%s/starter.lua", basics[i]);
        place_as(ws, path, cu, "starter.cu", lua, "starter.lua");
    }
    /* the debugging lab's four bugs fixed, and the Python lab's Numba kernel */
    static const char *const bugs[] = {"oob", "race", "divergent_barrier", "uninit"};
    for (size_t i = 0; i < 4; i++) {
        char path[64], cu[128], lua[128];
        snprintf(path, sizeof path, "debugging/%s", bugs[i]);
        snprintf(cu, sizeof cu, "features/exercises/solutions/debugging/%s/solution.cu", bugs[i]);
        snprintf(lua, sizeof lua, "features/exercises/solutions/debugging/%s/solution.lua", bugs[i]);
        place_as(ws, path, cu, "starter.cu", lua, "starter.lua");
    }
    place_file(ws, "python", "features/python/solution/starter.py", "starter.py");
    /* the multigpu lab's ring, a kernel file with no launcher */
    place_file(ws, "multigpu", "features/multigpu/ring_solution.cu", "starter.cu");
    /* the profiling report, written by the real command */
    ts_output o = {0};
    int rc = ts_shell(&o, true, "'%s' --workspace '%s' --data '%s' report profiling --size 2^20",
                      ts_exe(), ws, data);
    if (rc != 0)
        fail_msg("cudalab report profiling: rc %d\n%s", rc, o.out);
    ts_output_free(&o);
    store *st = NULL;
    cl_err e = {{0}};
    char notice[256];
    assert_true(store_open(data, &st, notice, sizeof notice, &e));
    answer_every_quiz(st);

    grade_report r;
    grade_status gs = grade_with(ws, "full", st, &r);
    store_close(st);
    if (gs == GRADE_NO_DEVICE)
        fail_msg("the device went away");
    printf("graded every lab of one learner on %s in %.1f s: %g of %g points\n", r.dev.name,
           r.seconds, r.score, r.max_score);
    /* the multigpu lab measures nothing with fewer than two GPUs: there its
     * measured milestones are missed, with the reason, and the rest is whole */
    int gpus = 0;
    if (cudaGetDeviceCount(&gpus) != cudaSuccess)
        gpus = 0;
    double unreachable = 0.0;
    bool all = true;
    for (size_t i = 0; i < r.nlabs; i++) {
        printf("  %-16s %5.1f s  %g of %g%s%s\n", r.labs[i].id, r.labs[i].seconds,
               r.labs[i].score, r.labs[i].max_score, r.labs[i].note[0] ? "  " : "",
               r.labs[i].note);
        for (size_t k = 0; k < r.labs[i].nms; k++) {
            const grade_milestone *g = &r.labs[i].ms[k];
            printf("    %-18s %s %s%s%s\n", g->id, g->passed ? "passed" : "FAILED", g->value,
                   g->why[0] ? " | " : "", g->why);
            bool excused = gpus < 2 && strcmp(r.labs[i].id, "multigpu") == 0 && !g->quiz &&
                           !g->passed && g->why[0];
            unreachable += excused ? g->points : 0.0;
            all &= g->passed || g->points == 0 || excused;
        }
    }
    if (unreachable > 0.0)
        printf("multigpu: %g points need two or more GPUs; this machine has %d\n", unreachable,
               gpus);
    assert_true(all);
    assert_true(r.score == r.max_score - unreachable);
    assert_true(r.max_score > 0);
    grade_report_free(&r);
}

static void test_failing_workspace(void **state)
{
    (void)state;
    char ws[CL_PATH_MAX + 16];
    snprintf(ws, sizeof ws, "%s/fail", dir);
    place(ws, "reduction", "features/exercises/broken/cheat_shipped_kernel/starter.cu",
          "features/exercises/broken/cheat_shipped_kernel/starter.lua");
    place(ws, "matmul", "features/exercises/broken/wrong_off_by_one/starter.cu",
          "features/exercises/broken/wrong_off_by_one/starter.lua");
    place(ws, "pipeline", "features/exercises/broken/compile_error/starter.cu",
          "features/exercises/broken/compile_error/starter.lua");
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

#define SECRET "SECRET-grade-key-4c1d-never-seen"

/* The real `cudalab grade`, signing with a key in a file and with the key
 * in the environment, over a workspace whose kernels try every way to
 * include the key: the secret appears in no output, report, log, store or
 * cache, and the learner's attempts fail with their file and line. */
static void test_planted_secret(void **state)
{
    (void)state;
    char ws[CL_PATH_MAX + 16], key[CL_PATH_MAX + 32], out[CL_PATH_MAX + 16];
    char data[CL_PATH_MAX + 16], cache[CL_PATH_MAX + 16], body[CL_PATH_MAX * 2];
    snprintf(ws, sizeof ws, "%s/secret-ws", dir);
    snprintf(key, sizeof key, "%s/instructor/grade.key", dir);
    snprintf(out, sizeof out, "%s/secret-out", dir);
    snprintf(data, sizeof data, "%s/secret-data", dir);
    snprintf(cache, sizeof cache, "%s/secret-cache", dir);
    char folder[CL_PATH_MAX + 32];
    cl_err e = {{0}};
    snprintf(folder, sizeof folder, "%s/instructor", dir);
    assert_true(paths_mkdir_p(folder, &e));
    assert_true(ts_write(key, SECRET "\n"));
    place(ws, "reduction", "features/exercises/solutions/reduction/solution.cu",
          "features/exercises/solutions/reduction/solution.lua");
    place(ws, "embedding", "features/exercises/solutions/embedding/solution.cu",
          "features/exercises/solutions/embedding/solution.lua");
    place(ws, "matmul", "features/exercises/solutions/matmul/solution.cu",
          "features/exercises/solutions/matmul/solution.lua");
    snprintf(body, sizeof body, "__device__ int leak =\n#include \"%s\"\n;\n", key);
    snprintf(folder, sizeof folder, "%s/reduction/starter.cu", ws);
    assert_true(ts_write(folder, body));
    snprintf(body, sizeof body, "#define K \"%s\"\n#include K\n", key);
    snprintf(folder, sizeof folder, "%s/embedding/starter.cu", ws);
    assert_true(ts_write(folder, body));
    snprintf(folder, sizeof folder, "%s/matmul/starter.cu", ws);
    unlink(folder);
    assert_int_equal(symlink(key, folder), 0);

    ts_output o = {0};
    int rc = ts_shell(&o, false,
                      "CUDALAB_CACHE='%s' CUDALAB_GRADE_KEY='%s' '%s' --workspace '%s' --data '%s' "
                      "grade --lab reduction --lab embedding --lab matmul --assignment a1 "
                      "--key '%s' --out '%s'",
                      cache, SECRET, ts_exe(), ws, data, key, out);
    printf("grade exited %d\n%s%s", rc, o.out, o.err);
    assert_int_equal(rc, 0);
    assert_null(strstr(o.out, SECRET));
    assert_null(strstr(o.err, SECRET));
    ts_output_free(&o);
    char path[CL_PATH_MAX * 2];
    snprintf(path, sizeof path, "%s/report.json", out);
    char *report = ts_read(path);
    assert_non_null(report);
    assert_true(ts_contains(report, "absolute paths are not allowed"));
    assert_true(ts_contains(report, "built by a macro"));
    assert_true(ts_contains(report, "outside its folder"));
    free(report);
    /* every folder grading may have written (grade creates no data folder) */
    rc = ts_shell(&o, true, "for d in '%s' '%s' '%s' '%s'; do [ -e \"$d\" ] && "
                            "grep -rla '%s' \"$d\"; done; true",
                  out, data, ws, cache, SECRET);
    if (o.out[0])
        fail_msg("the secret is in: %s", o.out);
    ts_output_free(&o);
}

int main(void)
{
    char why[512];
    if (!ts_worker_has_device(why, sizeof why)) {
        printf("SKIP: %s\n", why);
        return 77;
    }
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_full_score),
                                       cmocka_unit_test(test_passing_workspace),
                                       cmocka_unit_test(test_failing_workspace),
                                       cmocka_unit_test(test_planted_secret)};
    return cmocka_run_group_tests(tests, setup, teardown);
}
