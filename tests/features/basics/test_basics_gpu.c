/* The basics lab on a real device.
 *
 *  1. Every experiment (divergence, occupancy, hierarchy, fences) runs and
 *     every row checks out: all correct, with a time; the fence row without
 *     fences may count stale reads (that is its point) but must run.
 *  2. Each exercise's starter runs beside the exercise's rungs and library
 *     at both of its sizes, and every row is correct.
 *  3. Each exercise's reference solution (tests/features/basics/solutions/) reaches
 *     every measured milestone of its exercise, judged at the milestone's
 *     size on rows measured like a learner's, and is faster than the
 *     starter there.
 *
 * Every row and every milestone is printed, so one run on a device is a
 * record of what the lab measures there.  Skips (exit 77) without a device. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/devinfo.h"
#include "engine/engine.h"
#include "lab/labmodel.h"
#include "lab/milestone.h"
#include "support.h"

static lab *g_lab;
static device_info g_dev;

static void print_rows(const char *what, const ts_rows *c)
{
    print_message("---- %s\n", what);
    for (int i = 0; i < c->nrows; i++) {
        const run_result *r = &c->rows[i];
        print_message("%-18s %-26s %-9s %10.4f ms %9.1f GB/s %6.1f%%  %s\n", r->variant, r->size,
                      result_status_name(r->status), r->median_ms, r->gbps,
                      r->pct_peak_measured, r->message);
    }
}

static void test_experiments(void **state)
{
    (void)state;
    run_request req;
    memset(&req, 0, sizeof req);
    req.run = 1;
    snprintf(req.lab, sizeof req.lab, "basics");
    snprintf(req.problem, sizeof req.problem, "basics");
    static ts_rows c;
    run_fault f;
    if (!ts_engine_run(&req, &c, &f))
        fail_msg("the experiments broke the CUDA context: %s", f.message);
    print_rows("experiments", &c);
    static const char *const want[] = {
        "div_warps", "div_halves", "div_lanes", "occ_r8", "occ_r32", "occ_r64", "occ_r128",
        "occ_spill", "occ_smem_4", "occ_smem_2", "occ_smem_1", "lvl_dram", "lvl_l2",
        "lvl_shared", "lvl_regs", "fence_with", "fence_without",
    };
    const size_t n = sizeof want / sizeof want[0];
    int failures = 0;
    for (size_t i = 0; i < n; i++) {
        const run_result *r = ts_row(&c, want[i], NULL);
        if (!r) {
            print_message("FAIL: no row %s\n", want[i]);
            failures++;
            continue;
        }
        if (r->status != RS_CORRECT || !(r->median_ms > 0.0)) {
            print_message("FAIL: %s is %s: %s\n", want[i], result_status_name(r->status),
                          r->message);
            failures++;
        }
    }
    const run_result *spill = ts_row(&c, "occ_spill", NULL);
    if (spill && !strstr(spill->message, "spill stores")) {
        print_message("FAIL: occ_spill does not quote ptxas's spill report: %s\n", spill->message);
        failures++;
    }
    assert_int_equal(failures, 0);
}

/* A request for exercise x at one size: its rungs, its library, the
 * learner's files (dir/kernel and dir/launcher, by base name). */
static void exercise_request(run_request *req, const lab_exercise *x, const char *size,
                             const char *kernel, const char *launcher)
{
    memset(req, 0, sizeof *req);
    req->run = 2;
    req->budget_s = 0.5;
    snprintf(req->lab, sizeof req->lab, "basics");
    snprintf(req->problem, sizeof req->problem, "%s", x->problem);
    snprintf(req->library, sizeof req->library, "%s", x->library ? x->library : "");
    snprintf(req->exercise, sizeof req->exercise, "%s", x->id);
    for (size_t v = 0; v < x->nvariants; v++)
        ts_add_variant(req, x->variants[v].id, x->variants[v].kernel);
    ts_add_size(req, size);
    snprintf(req->exercise_kernel, sizeof req->exercise_kernel, "%s", kernel);
    snprintf(req->exercise_launcher, sizeof req->exercise_launcher, "%s", launcher);
}

static int all_correct(const ts_rows *c, const char *what)
{
    int failures = 0;
    for (int i = 0; i < c->nrows; i++)
        if (c->rows[i].status != RS_CORRECT) {
            print_message("FAIL: %s: %s at %s is %s: %s\n", what, c->rows[i].variant,
                          c->rows[i].size, result_status_name(c->rows[i].status),
                          c->rows[i].message);
            failures++;
        }
    return failures;
}

static void test_starters(void **state)
{
    (void)state;
    int failures = 0;
    for (size_t k = 0; k < g_lab->nexercises; k++) {
        const lab_exercise *x = &g_lab->exercises[k];
        char kernel[CL_PATH_MAX], launcher[CL_PATH_MAX], what[128];
        ts_home_path(kernel, sizeof kernel, "labs/basics/%s", x->kernel);
        ts_home_path(launcher, sizeof launcher, "labs/basics/%s", x->launcher);
        for (size_t z = 0; z < x->nsizes; z++) {
            run_request req;
            exercise_request(&req, x, x->sizes[z], kernel, launcher);
            static ts_rows c;
            run_fault f;
            if (!ts_engine_run(&req, &c, &f))
                fail_msg("%s's starter broke the CUDA context: %s", x->id, f.message);
            snprintf(what, sizeof what, "%s's starter at %s", x->id, x->sizes[z]);
            print_rows(what, &c);
            failures += all_correct(&c, what);
            if (!ts_row_of_kind(&c, RK_EXERCISE, NULL)) {
                print_message("FAIL: %s: no row for the learner's kernel\n", what);
                failures++;
            }
        }
    }
    assert_int_equal(failures, 0);
}

static void test_solutions_reach_milestones(void **state)
{
    (void)state;
    int failures = 0;
    for (size_t k = 0; k < g_lab->nexercises; k++) {
        const lab_exercise *x = &g_lab->exercises[k];
        for (size_t i = 0; i < g_lab->nmilestones; i++) {
            if (g_lab->milestones[i].quiz || lab_milestone_exercise(g_lab, i) != x)
                continue;
            const char *size = lab_milestone_size(g_lab, i);
            char kernel[CL_PATH_MAX], launcher[CL_PATH_MAX], what[160];
            ts_data_path(kernel, sizeof kernel, "features/basics/solutions/%s/starter.cu", x->id);
            ts_data_path(launcher, sizeof launcher, "features/basics/solutions/%s/starter.lua", x->id);
            run_request req;
            exercise_request(&req, x, size, kernel, launcher);
            static ts_rows c;
            run_fault f;
            if (!ts_engine_run(&req, &c, &f))
                fail_msg("%s's solution broke the CUDA context: %s", x->id, f.message);
            snprintf(what, sizeof what, "%s's solution at %s", x->id, size);
            print_rows(what, &c);
            failures += all_correct(&c, what);
            ms_eval ev;
            lab_milestone_eval_judged(g_lab, i, c.rows, (size_t)c.nrows, &ev);
            print_message("milestone %s: %s (%s)\n", g_lab->milestones[i].id,
                          ms_state_name(ev.state), ev.state == MS_ERROR ? ev.error : ev.shown);
            if (ev.state != MS_REACHED) {
                print_message("FAIL: the solution does not reach %s\n", g_lab->milestones[i].id);
                failures++;
            }
        }
    }
    assert_int_equal(failures, 0);
}

/* At each exercise's larger size the solution beats the starter. */
static void test_solutions_beat_starters(void **state)
{
    (void)state;
    int failures = 0;
    for (size_t k = 0; k < g_lab->nexercises; k++) {
        const lab_exercise *x = &g_lab->exercises[k];
        const char *size = x->sizes[x->nsizes - 1];
        double ms[2] = {0, 0};
        for (int sol = 0; sol < 2; sol++) {
            char kernel[CL_PATH_MAX], launcher[CL_PATH_MAX];
            if (sol) {
                ts_data_path(kernel, sizeof kernel, "features/basics/solutions/%s/starter.cu", x->id);
                ts_data_path(launcher, sizeof launcher, "features/basics/solutions/%s/starter.lua", x->id);
            } else {
                ts_home_path(kernel, sizeof kernel, "labs/basics/%s", x->kernel);
                ts_home_path(launcher, sizeof launcher, "labs/basics/%s", x->launcher);
            }
            run_request req;
            exercise_request(&req, x, size, kernel, launcher);
            req.nvariants = 0;
            req.library[0] = '\0';
            static ts_rows c;
            assert_true(ts_engine_run(&req, &c, NULL));
            const run_result *r = ts_row_of_kind(&c, RK_EXERCISE, NULL);
            assert_non_null(r);
            ms[sol] = r->median_ms;
        }
        print_message("%s at %s: starter %.4f ms, solution %.4f ms (%.1fx)\n", x->id, size, ms[0],
                      ms[1], ms[1] > 0 ? ms[0] / ms[1] : 0.0);
        if (!(ms[1] > 0.0 && ms[1] < ms[0])) {
            print_message("FAIL: %s's solution is not faster than its starter\n", x->id);
            failures++;
        }
    }
    assert_int_equal(failures, 0);
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
    engine_shutdown();
    return ts_tmp_teardown(state);
}

int main(void)
{
    engine_probe(&g_dev);
    if (!g_dev.present) {
        printf("SKIP: %s\n", g_dev.reason);
        return 77;
    }
    printf("device: %s, %d SMs, copy bandwidth %.0f GB/s measured\n", g_dev.name, g_dev.sm_count,
           g_dev.peak_bw_measured_gbs);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_experiments),
        cmocka_unit_test(test_starters),
        cmocka_unit_test(test_solutions_reach_milestones),
        cmocka_unit_test(test_solutions_beat_starters),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
