/* The basics lab without a GPU: the lab file (steps, experiments, three
 * exercises, quizzes, milestones on each exercise's rows), the starters and
 * the reference solutions compiled with NVRTC for sm_90, the launchers
 * loaded by the engine (whose rows then say why nothing ran), each
 * exercise's workspace folder, and the occupancy experiment's kernels,
 * whose registers and spills ptxas reports as the experiment shows them.
 * CUDA_VISIBLE_DEVICES is emptied, so this holds on GPU machines too. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/paths.h"
#include "engine/engine.h"
#include "gpu/nvrtc.h"
#include "lab/labmodel.h"
#include "lab/milestone.h"
#include "lab/workspace.h"
#include "support.h"

static lab *g_lab;

static const lab_exercise *ex(const char *id)
{
    const lab_exercise *x = lab_exercise_find(g_lab, id);
    if (!x)
        fail_msg("the basics lab has no exercise '%s'", id);
    return x;
}

static size_t ms_index(const char *id)
{
    for (size_t i = 0; i < g_lab->nmilestones; i++)
        if (strcmp(g_lab->milestones[i].id, id) == 0)
            return i;
    fail_msg("the basics lab has no milestone '%s'", id);
    return 0;
}

/* ---- the lab file ---------------------------------------------------------------- */

static void test_lab_shape(void **state)
{
    (void)state;
    assert_string_equal(g_lab->problem, "basics");
    assert_int_equal(g_lab->nsizes, 0);
    assert_null(lab_own_exercise(g_lab));
    static const char *const xps[] = {"divergence", "occupancy", "hierarchy", "fences"};
    assert_int_equal(g_lab->nvariants, 4);
    for (size_t i = 0; i < 4; i++)
        assert_string_equal(g_lab->variants[i].id, xps[i]);
    static const struct {
        const char *id, *problem, *small, *large, *library;
        size_t nrungs;
    } want[] = {
        {"saxpy", "saxpy", "2^20+3", "2^26+1", "copy", 3},
        {"histogram", "histogram", "1000003", "2^26", NULL, 2},
        {"managed", "managed", "2^22", "2^24", NULL, 3},
    };
    assert_int_equal(g_lab->nexercises, 3);
    for (size_t k = 0; k < 3; k++) {
        const lab_exercise *x = &g_lab->exercises[k];
        assert_string_equal(x->id, want[k].id);
        assert_string_equal(x->problem, want[k].problem);
        assert_int_equal(x->nsizes, 2);
        assert_string_equal(x->sizes[0], want[k].small);
        assert_string_equal(x->sizes[1], want[k].large);
        if (want[k].library)
            assert_string_equal(x->library, want[k].library);
        else
            assert_null(x->library);
        assert_int_equal(x->nvariants, want[k].nrungs);
        assert_true(x->nhints >= 3);
    }
    /* the milestones: each measured one on its exercise, at the size the
     * lesson names; the course's questions as quizzes */
    static const struct {
        const char *id, *exercise, *size;
    } ms[] = {
        {"saxpy_correct", "saxpy", "2^20+3"}, {"saxpy_bandwidth", "saxpy", "2^26+1"},
        {"histogram_5x", "histogram", "2^26"}, {"managed_2x", "managed", "2^24"},
    };
    for (size_t i = 0; i < 4; i++) {
        size_t m = ms_index(ms[i].id);
        assert_ptr_equal(lab_milestone_exercise(g_lab, m), ex(ms[i].exercise));
        assert_string_equal(lab_milestone_size(g_lab, m), ms[i].size);
    }
    static const char *const quizzes[] = {"indexing", "grid",  "warp",      "bound",      "occupancy",
                                          "spills",   "privatise", "coresident", "first_touch"};
    const size_t nq = sizeof quizzes / sizeof quizzes[0];
    assert_int_equal(g_lab->nquizzes, nq);
    for (size_t q = 0; q < nq; q++) {
        assert_string_equal(g_lab->quizzes[q].id, quizzes[q]);
        size_t right = 0;
        for (size_t c = 0; c < g_lab->quizzes[q].nchoices; c++) {
            bool ok = false;
            assert_non_null(lab_quiz_answer(g_lab, q, c, &ok));
            right += ok;
        }
        assert_int_equal(right, 1);
    }
}

/* A row of exercise ex at size. */
static run_result row(const char *exid, const char *variant, result_kind kind, const char *size,
                      result_status st, double ms)
{
    run_result r;
    run_result_init(&r);
    snprintf(r.exercise, sizeof r.exercise, "%s", exid);
    snprintf(r.variant, sizeof r.variant, "%s", variant);
    snprintf(r.size, sizeof r.size, "%s", size);
    r.kind = kind;
    r.status = st;
    r.median_ms = ms;
    return r;
}

static ms_state judge(const char *id, const run_result *rs, size_t n, double *value)
{
    ms_eval ev;
    assert_true(lab_milestone_eval_judged(g_lab, ms_index(id), rs, n, &ev));
    if (value)
        *value = ev.has_value ? ev.value : -1.0;
    return ev.state;
}

static void test_milestones(void **state)
{
    (void)state;
    run_result rs[8];
    double v = 0;
    /* correct at the odd size; a wrong row elsewhere, or another
     * exercise's row, does not count */
    rs[0] = row("saxpy", "exercise", RK_EXERCISE, "1048579", RS_CORRECT, 1.0);
    rs[1] = row("managed", "exercise", RK_EXERCISE, "2^20+3", RS_WRONG, 1.0);
    rs[2] = row("saxpy", "exercise", RK_EXERCISE, "2^26+1", RS_WRONG, 1.0);
    assert_int_equal(judge("saxpy_correct", rs, 3, NULL), MS_REACHED);
    rs[0].status = RS_UNWRITTEN;
    assert_int_equal(judge("saxpy_correct", rs, 3, NULL), MS_MISSED);
    assert_int_equal(judge("saxpy_correct", rs + 1, 2, NULL), MS_PENDING);

    rs[0] = row("saxpy", "exercise", RK_EXERCISE, "2^26+1", RS_CORRECT, 1.0);
    rs[0].pct_peak_measured = 86.0;
    assert_int_equal(judge("saxpy_bandwidth", rs, 1, &v), MS_REACHED);
    assert_true(v == 86.0);
    rs[0].pct_peak_measured = 71.0;
    assert_int_equal(judge("saxpy_bandwidth", rs, 1, NULL), MS_MISSED);

    /* 5x the global-atomics rung, measured in the same run */
    rs[0] = row("histogram", "hist_global", RK_KERNEL, "2^26", RS_CORRECT, 6.0);
    rs[1] = row("histogram", "exercise", RK_EXERCISE, "2^26", RS_CORRECT, 1.0);
    rs[2] = row("histogram", "exercise", RK_EXERCISE, "1000003", RS_CORRECT, 0.01);
    assert_int_equal(judge("histogram_5x", rs, 3, &v), MS_REACHED);
    assert_true(v == 6.0);
    rs[1].median_ms = 1.5;
    assert_int_equal(judge("histogram_5x", rs, 3, &v), MS_MISSED);
    assert_true(v == 4.0);
    assert_int_equal(judge("histogram_5x", rs + 1, 2, NULL), MS_PENDING);   /* no rung row */
    rs[1].status = RS_WRONG;
    assert_int_equal(judge("histogram_5x", rs, 3, NULL), MS_MISSED);

    /* the rung and the learner's kernel of one run share the size's label */
    rs[0] = row("managed", "um_on_demand", RK_KERNEL, "2^24", RS_CORRECT, 30.0);
    rs[1] = row("managed", "exercise", RK_EXERCISE, "2^24", RS_CORRECT, 10.0);
    assert_int_equal(judge("managed_2x", rs, 2, &v), MS_REACHED);
    assert_true(v == 3.0);
    rs[1].status = RS_ERROR;
    assert_int_equal(judge("managed_2x", rs, 2, NULL), MS_PENDING);
}

/* ---- the kernels ------------------------------------------------------------------ */

/* Compiles the file at path for sm_90 and checks it defines kernel with
 * these parameter letters. */
static void compiles(const char *path, const char *name, const char *params)
{
    nvrtc_opts o = {.arch = "sm_90", .no_cache = true};
    nvrtc_output out;
    cl_err e = {{0}};
    if (!nvrtc_compile_opts(path, &o, &out, &e))
        fail_msg("%s: %s", path, e.msg);
    const nvrtc_kernel *k = nvrtc_find_kernel(&out, name);
    if (!k)
        fail_msg("%s defines no extern \"C\" kernel %s", path, name);
    assert_string_equal(k->params, params);
    assert_int_equal(k->spill_stores, 0);
    for (size_t i = 0; i < out.ndiags; i++)
        if (out.diags[i].severity == NVRTC_SEV_WARNING)
            fail_msg("%s:%d: warning: %s", path, out.diags[i].line, out.diags[i].message);
    nvrtc_output_free(&out);
}

static void test_starters_and_solutions_compile(void **state)
{
    (void)state;
    static const struct {
        const char *id, *kernel, *params;
    } v[] = {{"saxpy", "saxpy", "xfxxx"}, {"histogram", "histogram", "xxx"},
             {"managed", "saxpy", "xfxxx"}};
    for (size_t i = 0; i < 3; i++) {
        char path[CL_PATH_MAX];
        ts_home_path(path, sizeof path, "labs/basics/%s/starter.cu", v[i].id);
        compiles(path, v[i].kernel, v[i].params);
        ts_data_path(path, sizeof path, "features/basics/solutions/%s/starter.cu", v[i].id);
        compiles(path, v[i].kernel, v[i].params);
    }
}

/* Each exercise's starter and solution through the engine without a
 * device: compiled, launcher loaded, every row says no device was found,
 * every row carries the exercise's id, and the CPU rows are right. */
static void test_engine_rows(void **state)
{
    (void)state;
    for (size_t k = 0; k < g_lab->nexercises; k++) {
        const lab_exercise *x = &g_lab->exercises[k];
        for (int sol = 0; sol < 2; sol++) {
            run_request req;
            memset(&req, 0, sizeof req);
            req.run = 3;
            req.cpu = true;
            req.budget_s = 0.02;
            snprintf(req.lab, sizeof req.lab, "basics");
            snprintf(req.problem, sizeof req.problem, "%s", x->problem);
            snprintf(req.exercise, sizeof req.exercise, "%s", x->id);
            for (size_t v = 0; v < x->nvariants; v++)
                ts_add_variant(&req, x->variants[v].id, x->variants[v].kernel);
            ts_add_size(&req, x->sizes[0]);
            if (sol) {
                ts_data_path(req.exercise_kernel, sizeof req.exercise_kernel,
                             "features/basics/solutions/%s/starter.cu", x->id);
                ts_data_path(req.exercise_launcher, sizeof req.exercise_launcher,
                             "features/basics/solutions/%s/starter.lua", x->id);
            } else {
                ts_home_path(req.exercise_kernel, sizeof req.exercise_kernel,
                             "labs/basics/%s", x->kernel);
                ts_home_path(req.exercise_launcher, sizeof req.exercise_launcher,
                             "labs/basics/%s", x->launcher);
            }
            static ts_rows c;
            assert_true(ts_engine_run(&req, &c, NULL));
            const run_result *mine = ts_row_of_kind(&c, RK_EXERCISE, NULL);
            assert_non_null(mine);
            if (strncmp(mine->message, "no CUDA device found", 20) != 0) {
                ts_rows_dump(&c);
                fail_msg("%s (%s): %s", x->id, sol ? "solution" : "starter", mine->message);
            }
            for (int i = 0; i < c.nrows; i++) {
                assert_string_equal(c.rows[i].exercise, x->id);
                if (c.rows[i].kind == RK_CPU || c.rows[i].kind == RK_CPU_MT)
                    assert_int_equal(c.rows[i].status, RS_CORRECT);
            }
        }
    }
}

static void test_workspace(void **state)
{
    (void)state;
    char ws[CL_PATH_MAX];
    snprintf(ws, sizeof ws, "%s/ws", ts_tmp);
    for (size_t k = 0; k < g_lab->nexercises; k++) {
        workspace_files f;
        cl_err e = {{0}};
        assert_true(workspace_prepare(ws, g_lab, &g_lab->exercises[k], &f, &e));
        char want[CL_PATH_MAX];
        snprintf(want, sizeof want, "%s/basics/%s/starter.cu", ws, g_lab->exercises[k].id);
        assert_string_equal(f.kernel, want);
        assert_true(f.kernel_created && f.launcher_created);
        assert_true(ts_same_file(f.kernel, f.starter_kernel));
    }
    workspace_files f;
    cl_err e = {{0}};
    assert_false(workspace_files_of(ws, g_lab, NULL, &f, &e));
    assert_non_null(strstr(e.msg, "saxpy, histogram, managed"));
}

static const nvrtc_kernel *kernel(const nvrtc_output *out, const char *name)
{
    const nvrtc_kernel *k = nvrtc_find_kernel(out, name);
    if (!k)
        fail_msg("labs/basics/occupancy.cu has no kernel %s", name);
    assert_false(k->mangled);
    assert_string_equal(k->params, "xiix");
    return k;
}

static void test_occupancy_kernels(void **state)
{
    (void)state;
    char path[CL_PATH_MAX];
    ts_home_path(path, sizeof path, "labs/basics/occupancy.cu");
    nvrtc_opts o = {.arch = "sm_90", .no_cache = true};
    nvrtc_output out;
    cl_err e = {{0}};
    if (!nvrtc_compile_opts(path, &o, &out, &e))
        fail_msg("occupancy.cu: %s", e.msg);
    static const char *const names[] = {"occ_r8", "occ_r32", "occ_r64", "occ_r128"};
    int last = 0;
    for (size_t i = 0; i < 4; i++) {
        const nvrtc_kernel *k = kernel(&out, names[i]);
        print_message("%s: %d registers, %d B spilled\n", names[i], k->registers,
                      k->spill_stores);
        assert_true(k->registers > last);
        assert_int_equal(k->spill_stores, 0);
        last = k->registers;
    }
    assert_true(kernel(&out, "occ_r128")->registers > 128);
    const nvrtc_kernel *sp = kernel(&out, "occ_spill");
    assert_true(sp->registers <= 64);
    assert_true(sp->spill_stores > 0 && sp->spill_loads > 0);
    assert_non_null(strstr(out.log, "Function properties for occ_spill"));
    nvrtc_output_free(&out);
}

static int setup(void **state)
{
    if (ts_tmp_setup(state) != 0)
        return -1;
    g_lab = ts_lab_shipped("basics");
    return g_lab ? 0 : -1;
}

static int teardown(void **state)
{
    lab_free(g_lab);
    return ts_tmp_teardown(state);
}

int main(void)
{
    setenv("CUDA_VISIBLE_DEVICES", "", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lab_shape),
        cmocka_unit_test(test_milestones),
        cmocka_unit_test(test_starters_and_solutions_compile),
        cmocka_unit_test(test_engine_rows),
        cmocka_unit_test(test_workspace),
        cmocka_unit_test(test_occupancy_kernels),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
