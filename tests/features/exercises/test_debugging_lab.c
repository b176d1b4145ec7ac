/* The debugging lab without a GPU: the lab file (order, steps, four
 * exercises and the problem each solves, a milestone on correctness at
 * 2^20+3 for each, quizzes with one right answer), every starter and
 * reference solution (tests/features/exercises/solutions/debugging/) compiled with
 * NVRTC for sm_90 without a warning, and each through the engine (compiled,
 * launcher loaded, the row saying no device was found).  The GPU side, the
 * four bugs found by their tools, is in test_exrun_gpu.
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
#include "support.h"

static lab *g_lab;

/* Each exercise: its problem, the kernels its files define (name and
 * parameter letters, as nvrtc_kernel.params has them). */
static const struct {
    const char *id, *problem;
    const char *kernels[2], *params[2];
    size_t nkernels;
} EX[] = {
    {"oob", "saxpy", {"saxpy"}, {"xfxxx"}, 1},
    {"race", "reduce_sum", {"reduce_sum"}, {"xxi"}, 1},
    {"divergent_barrier", "reduce_sum", {"reduce_sum"}, {"xxi"}, 1},
    {"uninit", "reduce_sum", {"block_sums", "final_sum"}, {"xxi", "xix"}, 2},
};
#define NEX (sizeof EX / sizeof EX[0])

static size_t ms_index(const char *id)
{
    for (size_t i = 0; i < g_lab->nmilestones; i++)
        if (strcmp(g_lab->milestones[i].id, id) == 0)
            return i;
    fail_msg("the debugging lab has no milestone '%s'", id);
    return 0;
}

static void test_lab_shape(void **state)
{
    (void)state;
    assert_string_equal(g_lab->id, "debugging");
    assert_int_equal(g_lab->order, 2);
    assert_true(g_lab->nsteps >= 6);
    assert_null(lab_own_exercise(g_lab));
    assert_int_equal(g_lab->nvariants, 0);
    assert_int_equal(g_lab->nexercises, NEX);
    for (size_t k = 0; k < NEX; k++) {
        const lab_exercise *x = &g_lab->exercises[k];
        assert_string_equal(x->id, EX[k].id);
        assert_string_equal(x->problem, EX[k].problem);
        assert_int_equal(x->nsizes, 2);
        assert_string_equal(x->sizes[0], "100003");
        assert_string_equal(x->sizes[1], "2^20+3");
        assert_true(x->nhints >= 3);
    }
    /* one milestone an exercise, judged at the odd size, worth a point */
    static const char *const fixed[] = {"oob_fixed", "race_fixed", "barrier_fixed",
                                        "uninit_fixed"};
    for (size_t k = 0; k < NEX; k++) {
        size_t m = ms_index(fixed[k]);
        assert_ptr_equal(lab_milestone_exercise(g_lab, m), &g_lab->exercises[k]);
        assert_string_equal(lab_milestone_size(g_lab, m), "2^20+3");
        assert_true(g_lab->milestones[m].points == 1.0);
    }
    assert_int_equal(g_lab->nquizzes, 4);
    for (size_t q = 0; q < g_lab->nquizzes; q++) {
        size_t right = 0;
        for (size_t c = 0; c < g_lab->quizzes[q].nchoices; c++) {
            bool ok = false;
            assert_non_null(lab_quiz_answer(g_lab, q, c, &ok));
            right += ok;
        }
        assert_int_equal(right, 1);
    }
}

/* A row of exercise exid at size. */
static run_result row(const char *exid, const char *size, result_status st)
{
    run_result r;
    run_result_init(&r);
    snprintf(r.exercise, sizeof r.exercise, "%s", exid);
    snprintf(r.variant, sizeof r.variant, "exercise");
    snprintf(r.size, sizeof r.size, "%s", size);
    r.kind = RK_EXERCISE;
    r.status = st;
    r.median_ms = 1.0;
    return r;
}

static ms_state judge(const char *id, const run_result *rs, size_t n)
{
    ms_eval ev;
    assert_true(lab_milestone_eval_judged(g_lab, ms_index(id), rs, n, &ev));
    return ev.state;
}

/* Correct at 2^20+3 reaches it; wrong there misses it; a correct row of
 * another exercise, or at the small size only, leaves it pending. */
static void test_milestones(void **state)
{
    (void)state;
    run_result rs[3];
    rs[0] = row("race", "1048579", RS_CORRECT);
    rs[1] = row("oob", "1048579", RS_WRONG);
    assert_int_equal(judge("race_fixed", rs, 2), MS_REACHED);
    assert_int_equal(judge("oob_fixed", rs, 2), MS_MISSED);
    assert_int_equal(judge("uninit_fixed", rs, 2), MS_PENDING);
    rs[0] = row("divergent_barrier", "1048579", RS_WRONG);
    assert_int_equal(judge("barrier_fixed", rs, 1), MS_MISSED);
    rs[0].status = RS_CORRECT;
    assert_int_equal(judge("barrier_fixed", rs, 1), MS_REACHED);
    rs[0] = row("uninit", "100003", RS_CORRECT);
    assert_int_equal(judge("uninit_fixed", rs, 1), MS_PENDING);
}

/* Compiles the file at path for sm_90 and checks it defines EX[k]'s kernels. */
static void compiles(const char *path, size_t k)
{
    nvrtc_opts o = {.arch = "sm_90", .no_cache = true};
    nvrtc_output out;
    cl_err e = {{0}};
    if (!nvrtc_compile_opts(path, &o, &out, &e))
        fail_msg("%s: %s", path, e.msg);
    for (size_t j = 0; j < EX[k].nkernels; j++) {
        const nvrtc_kernel *kn = nvrtc_find_kernel(&out, EX[k].kernels[j]);
        if (!kn)
            fail_msg("%s defines no extern \"C\" kernel %s", path, EX[k].kernels[j]);
        assert_string_equal(kn->params, EX[k].params[j]);
        assert_int_equal(kn->spill_stores, 0);
    }
    for (size_t i = 0; i < out.ndiags; i++)
        if (out.diags[i].severity == NVRTC_SEV_WARNING)
            fail_msg("%s:%d: warning: %s", path, out.diags[i].line, out.diags[i].message);
    nvrtc_output_free(&out);
}

static void test_starters_and_solutions_compile(void **state)
{
    (void)state;
    for (size_t k = 0; k < NEX; k++) {
        char path[CL_PATH_MAX];
        ts_home_path(path, sizeof path, "labs/debugging/%s/starter.cu", EX[k].id);
        compiles(path, k);
        ts_data_path(path, sizeof path, "features/exercises/solutions/debugging/%s/solution.cu", EX[k].id);
        compiles(path, k);
    }
}

/* Each starter and solution through the engine without a device: compiled,
 * launcher loaded, its row says no device was found and carries the
 * exercise's id. */
static void test_engine_rows(void **state)
{
    (void)state;
    for (size_t k = 0; k < g_lab->nexercises; k++) {
        const lab_exercise *x = &g_lab->exercises[k];
        for (int sol = 0; sol < 2; sol++) {
            run_request req;
            memset(&req, 0, sizeof req);
            req.run = 5;
            req.cpu = false;
            req.budget_s = 0.02;
            snprintf(req.lab, sizeof req.lab, "debugging");
            snprintf(req.problem, sizeof req.problem, "%s", x->problem);
            snprintf(req.exercise, sizeof req.exercise, "%s", x->id);
            ts_add_size(&req, x->sizes[0]);
            if (sol) {
                ts_data_path(req.exercise_kernel, sizeof req.exercise_kernel,
                             "features/exercises/solutions/debugging/%s/solution.cu", x->id);
                ts_data_path(req.exercise_launcher, sizeof req.exercise_launcher,
                             "features/exercises/solutions/debugging/%s/solution.lua", x->id);
            } else {
                ts_home_path(req.exercise_kernel, sizeof req.exercise_kernel,
                             "labs/debugging/%s", x->kernel);
                ts_home_path(req.exercise_launcher, sizeof req.exercise_launcher,
                             "labs/debugging/%s", x->launcher);
            }
            static ts_rows c;
            assert_true(ts_engine_run(&req, &c, NULL));
            const run_result *mine = ts_row_of_kind(&c, RK_EXERCISE, NULL);
            assert_non_null(mine);
            if (strncmp(mine->message, "no CUDA device found", 20) != 0) {
                ts_rows_dump(&c);
                fail_msg("%s (%s): %s", x->id, sol ? "solution" : "starter", mine->message);
            }
            assert_string_equal(mine->exercise, x->id);
            bool usage = false;
            for (int l = 0; l < c.nlogs; l++)
                usage |= strstr(c.logs[l], "registers a thread") != NULL;
            if (!usage)
                fail_msg("%s (%s): no resource usage in the log", x->id,
                         sol ? "solution" : "starter");
        }
    }
}

static int setup(void **state)
{
    if (ts_tmp_setup(state) != 0)
        return -1;
    g_lab = ts_lab_shipped("debugging");
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
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
