/* Tests for milestone evaluation and quiz answers against hand-made rows. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cputime.h"
#include "lab/labmodel.h"
#include "lab/labneeds.h"
#include "lab/milestone.h"
#include "support.h"
#include "result/record.h"

static lab *g_lab;

static int setup(void **state)
{
    (void)state;
    const char *home = getenv("CUDALAB_HOME");
    const char *data = getenv("CUDALAB_TEST_DATA");
    if (!home || !data)
        return -1;
    char path[4096];
    snprintf(path, sizeof path, "%s/lab/fixtures/mscheck/lab.lua", data);
    g_lab = ts_lab_load(path, home, NULL);
    return g_lab ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    lab_free(g_lab);
    return 0;
}

static size_t find(const char *id)
{
    for (size_t i = 0; i < g_lab->nmilestones; i++)
        if (strcmp(g_lab->milestones[i].id, id) == 0)
            return i;
    fail_msg("no milestone %s", id);
    return 0;
}

static run_result row(const char *variant, const char *size, result_kind k, result_status st,
                      double speedup_cpu)
{
    run_result r;
    run_result_init(&r);
    snprintf(r.variant, sizeof r.variant, "%s", variant);
    snprintf(r.size, sizeof r.size, "%s", size);
    r.kind = k;
    r.status = st;
    r.median_ms = 1.5;
    r.speedup_cpu = speedup_cpu;
    return r;
}

/* A run at two sizes: the learner's kernel is fast at the small size and
 * slower at the large one, which is the row a check must see. */
static size_t make_rows(run_result *rs, result_status ex_status, double ex_speedup)
{
    size_t n = 0;
    rs[n++] = row("exercise", "2^28", RK_EXERCISE, ex_status, ex_speedup);
    rs[n++] = row("exercise", "2^20", RK_EXERCISE, RS_CORRECT, 1000);
    rs[n++] = row("seq", "2^20", RK_KERNEL, RS_CORRECT, 50);
    rs[n++] = row("seq", "2^28", RK_KERNEL, RS_CORRECT, 80);
    rs[n++] = row("cub", "2^28", RK_LIBRARY, RS_CORRECT, 300);
    rs[n] = row("cpu", "2^28", RK_CPU, RS_CORRECT, 0);
    rs[n++].threads = 1;
    rs[n] = row("cpu_mt", "2^28", RK_CPU_MT, RS_CORRECT, 0);
    rs[n++].threads = 8;
    return n;
}

static void test_reached_and_missed(void **state)
{
    (void)state;
    run_result rs[16];
    ms_eval ev;
    size_t n = make_rows(rs, RS_CORRECT, 312.4);
    assert_true(lab_milestone_eval(g_lab, find("fast"), rs, n, &ev));
    assert_int_equal(ev.state, MS_REACHED);
    assert_true(ev.has_value && ev.value > 312 && ev.value < 313);
    assert_string_equal(ev.shown, "312x >= 100x");
    assert_true(lab_milestone_eval(g_lab, find("correct"), rs, n, &ev));
    assert_int_equal(ev.state, MS_REACHED);
    assert_string_equal(ev.shown, "correct");

    n = make_rows(rs, RS_CORRECT, 42.25);
    assert_true(lab_milestone_eval(g_lab, find("fast"), rs, n, &ev));
    assert_int_equal(ev.state, MS_MISSED);
    assert_string_equal(ev.shown, "speedup_cpu 42.2x, needs >= 100x");
    assert_string_equal(ev.why, "speedup_cpu 42.2x, needs >= 100x");

    n = make_rows(rs, RS_WRONG, 500);
    assert_true(lab_milestone_eval(g_lab, find("fast"), rs, n, &ev));
    assert_int_equal(ev.state, MS_MISSED);
    assert_false(ev.has_value);
    assert_true(lab_milestone_eval(g_lab, find("correct"), rs, n, &ev));
    assert_int_equal(ev.state, MS_MISSED);

    /* Unknown rates (negative in the row) are nil in Lua: the check misses. */
    n = make_rows(rs, RS_CORRECT, 500);
    assert_true(lab_milestone_eval(g_lab, find("bw"), rs, n, &ev));
    assert_int_equal(ev.state, MS_MISSED);
    rs[0].pct_peak_measured = 63.4;
    assert_true(lab_milestone_eval(g_lab, find("bw"), rs, n, &ev));
    assert_int_equal(ev.state, MS_REACHED);
    assert_string_equal(ev.shown, "63.4% >= 50%");
}

/* Sizes written as bytes ("1 GiB", "256 MiB", as the multigpu lab's rows
 * are): the learner's row is the one at the largest, whatever the order. */
static void test_byte_sizes(void **state)
{
    (void)state;
    run_result rs[4];
    ms_eval ev;
    rs[0] = row("exercise", "1 GiB", RK_EXERCISE, RS_CORRECT, 312.4);
    rs[1] = row("exercise", "256 MiB", RK_EXERCISE, RS_CORRECT, 42.25);
    rs[2] = row("exercise", "8 B", RK_EXERCISE, RS_CORRECT, 1.0);
    assert_true(lab_milestone_eval(g_lab, find("fast"), rs, 3, &ev));
    assert_int_equal(ev.state, MS_REACHED);
    assert_string_equal(ev.shown, "312x >= 100x");
}

static void test_shape_of_r(void **state)
{
    (void)state;
    run_result rs[16];
    ms_eval ev;
    size_t n = make_rows(rs, RS_CORRECT, 200);
    assert_true(lab_milestone_eval(g_lab, find("shape"), rs, n, &ev));
    if (ev.state != MS_REACHED)
        fail_msg("state %s: %s", ms_state_name(ev.state), ev.error);
    assert_true(ev.has_value && ev.value == (double)n);
    assert_string_equal(ev.shown, "7");
}

static void test_exercise_missing(void **state)
{
    (void)state;
    run_result rs[16];
    ms_eval ev;
    size_t n = make_rows(rs, RS_CORRECT, 200);
    /* Drop both exercise rows. */
    assert_true(lab_milestone_eval(g_lab, find("fast"), rs + 2, n - 2, &ev));
    assert_int_equal(ev.state, MS_PENDING);
    assert_string_equal(ev.shown, "target: >= 100x");
    assert_true(lab_milestone_eval(g_lab, find("correct"), NULL, 0, &ev));
    assert_int_equal(ev.state, MS_PENDING);
    assert_true(lab_milestone_eval(g_lab, find("quiz"), rs, n, &ev));
    assert_int_equal(ev.state, MS_PENDING);

    /* A row that could not run (no device, compile error) judges nothing. */
    n = make_rows(rs, RS_ERROR, 0);
    assert_true(lab_milestone_eval(g_lab, find("fast"), rs, n, &ev));
    assert_int_equal(ev.state, MS_PENDING);
    assert_true(lab_milestone_eval(g_lab, find("correct"), rs, n, &ev));
    assert_int_equal(ev.state, MS_PENDING);
}

/* A check that says missed after reading a row that did not run judged
 * nothing: pending, naming the row, with no value; a miss that reads no
 * such row stays a miss, and a row that ran wrong is missed. */
static void test_unrun_rows_judge_nothing(void **state)
{
    (void)state;
    run_result rs[16];
    ms_eval ev;
    static const result_status unrun[] = {RS_NO_DEVICE, RS_ERROR};
    for (size_t u = 0; u < 2; u++) {
        size_t n = make_rows(rs, unrun[u], 0);
        snprintf(rs[0].label, sizeof rs[0].label, "your kernel");
        assert_true(lab_milestone_eval(g_lab, find("naive"), rs, n, &ev));
        assert_int_equal(ev.state, MS_PENDING);
        assert_false(ev.has_value);
        assert_string_equal(ev.shown, "target: >= 5x");
        const char *said = u == 0 ? "not judged: your kernel at 2^28 did not run (no CUDA device)"
                                  : "not judged: your kernel at 2^28 could not run";
        if (!strstr(ev.why, said))
            fail_msg("expected \"%s\" in \"%s\"", said, ev.why);
        assert_true(lab_milestone_eval(g_lab, find("naive_pairs"), rs, n, &ev));
        assert_int_equal(ev.state, MS_PENDING);
        assert_true(lab_milestone_eval(g_lab, find("nofile"), rs, n, &ev));
        assert_int_equal(ev.state, MS_MISSED);
        assert_string_equal(ev.shown, "no report.md beside your kernel");
    }
    size_t n = make_rows(rs, RS_WRONG, 0);
    assert_true(lab_milestone_eval(g_lab, find("naive"), rs, n, &ev));
    assert_int_equal(ev.state, MS_MISSED);
    assert_true(lab_milestone_eval(g_lab, find("naive_pairs"), rs, n, &ev));
    assert_int_equal(ev.state, MS_MISSED);
    assert_true(ev.has_value && ev.value > 10);   /* pairs saw the row's fields */
    n = make_rows(rs, RS_CORRECT, 200);
    assert_true(lab_milestone_eval(g_lab, find("naive"), rs, n, &ev));
    assert_int_equal(ev.state, MS_REACHED);
    /* the note of an earlier check's read does not carry over */
    assert_true(lab_milestone_eval(g_lab, find("nofile"), rs, n, &ev));
    assert_int_equal(ev.state, MS_MISSED);
}

static void assert_error(const char *id, const char *part, int line)
{
    run_result rs[16];
    ms_eval ev;
    size_t n = make_rows(rs, RS_CORRECT, 200);
    double t0 = cpu_time_s();
    assert_false(lab_milestone_eval(g_lab, find(id), rs, n, &ev));
    assert_true(cpu_time_s() - t0 < 1.0);
    assert_int_equal(ev.state, MS_ERROR);
    if (!strstr(ev.error, part))
        fail_msg("milestone %s: expected \"%s\" in \"%s\"", id, part, ev.error);
    if (line) {
        char where[64];
        snprintf(where, sizeof where, "mscheck/lab.lua:%d:", line);
        if (!strstr(ev.error, where))
            fail_msg("milestone %s: expected \"%s\" in \"%s\"", id, where, ev.error);
    }
}

static void test_check_errors(void **state)
{
    (void)state;
    assert_error("boom", "boom", 25);
    assert_error("forever", "script ran longer than 500 ms (infinite loop?)", 28);
    assert_error("hog", "script exceeded its memory limit of 64 MiB", 0);
    assert_error("tamper", "attempt to modify a read-only table", 32);
    assert_error("badvalue", "the check returned a string as its value", 33);
    /* The state is still usable after a runaway check. */
    run_result rs[16];
    ms_eval ev;
    size_t n = make_rows(rs, RS_CORRECT, 200);
    assert_true(lab_milestone_eval(g_lab, find("fast"), rs, n, &ev));
    assert_int_equal(ev.state, MS_REACHED);
    assert_false(lab_milestone_eval(g_lab, g_lab->nmilestones, rs, n, &ev));
    /* a field no row has is an error at the check's line, with the near name */
    assert_error("typo", "a row has no field 'pct_peek' (did you mean 'pct_peak'?)", 49);
}

/* A miss of a check of several conditions names the one that failed, with
 * its own figure; never the passing figure of another. */
static void test_which_condition_failed(void **state)
{
    (void)state;
    run_result rs[16];
    ms_eval ev;
    size_t n = make_rows(rs, RS_CORRECT, 200);
    rs[0].has_report = false;
    assert_true(lab_milestone_eval(g_lab, find("both"), rs, n, &ev));
    assert_int_equal(ev.state, MS_MISSED);
    assert_string_equal(ev.why, "no report written");
    assert_string_equal(ev.shown, "no report written");
    rs[0].has_report = true;
    assert_true(lab_milestone_eval(g_lab, find("both"), rs, n, &ev));
    assert_int_equal(ev.state, MS_MISSED);
    assert_string_equal(ev.shown, "condition 3 is not met");
    n = make_rows(rs, RS_CORRECT, 20);
    assert_true(lab_milestone_eval(g_lab, find("both"), rs, n, &ev));
    assert_string_equal(ev.shown, "speedup_cpu 20x, needs >= 100x");
    n = make_rows(rs, RS_WRONG, 500);
    assert_true(lab_milestone_eval(g_lab, find("both"), rs, n, &ev));
    assert_string_equal(ev.shown, "your kernel is not correct (wrong)");
}

/* The rungs milestones compare with are measured beside the learner's
 * kernel: each once, from checks.speedup_over and from needs. */
static void test_needs(void **state)
{
    (void)state;
    const lab_milestone *m = &g_lab->milestones[find("near_seq")];
    assert_int_equal(m->nneeds, 1);
    assert_string_equal(m->needs[0], "seq");
    m = &g_lab->milestones[find("own_needs")];
    assert_int_equal(m->nneeds, 2);
    assert_int_equal(g_lab->milestones[find("fast")].nneeds, 0);
    run_request req;
    memset(&req, 0, sizeof req);
    lab_request_needs(g_lab, NULL, &req);
    assert_int_equal(req.nvariants, 1);
    assert_string_equal(req.variants[0].id, "seq");
    assert_string_equal(req.variants[0].kernel, "reduce_sequential");
    lab_request_needs(g_lab, NULL, &req);
    assert_int_equal(req.nvariants, 1);
}

static void test_quiz_answers(void **state)
{
    (void)state;
    bool correct = true;
    assert_int_equal(g_lab->nquizzes, 1);
    assert_string_equal(lab_quiz_answer(g_lab, 0, 0, &correct), "Too few.");
    assert_false(correct);
    assert_string_equal(lab_quiz_answer(g_lab, 0, 1, &correct), "Right.");
    assert_true(correct);
    assert_null(lab_quiz_answer(g_lab, 0, 3, &correct));
    assert_false(correct);
    assert_null(lab_quiz_answer(g_lab, 1, 0, &correct));
}

/* In a lab of several exercises a milestone sees only its exercise's rows,
 * at that exercise's sizes, read by that exercise's problem. */
static void test_exercise_rows(void **state)
{
    (void)state;
    char path[4096];
    snprintf(path, sizeof path, "%s/lab/fixtures/multiex/lab.lua", getenv("CUDALAB_TEST_DATA"));
    lab *l = ts_lab_load(path, getenv("CUDALAB_HOME"), NULL);
    assert_non_null(l);
    size_t own = 0, sum2 = 1, mm = 2;
    assert_string_equal(l->milestones[mm].id, "mm");
    assert_ptr_equal(lab_milestone_exercise(l, own), lab_own_exercise(l));
    assert_ptr_equal(lab_milestone_exercise(l, mm), lab_exercise_find(l, "mm"));
    assert_string_equal(lab_milestone_size(l, own), "2^24");
    assert_string_equal(lab_milestone_size(l, sum2), "2^24");
    assert_string_equal(lab_milestone_size(l, mm), "256");
    assert_true(lab_milestone_same_size(l, mm, "256", "256x256x256"));
    assert_false(lab_milestone_same_size(l, own, "256", "256x256x256"));

    run_result rs[6];
    size_t n = 0;
    rs[n++] = row("exercise", "2^24", RK_EXERCISE, RS_WRONG, 0);    /* the lab's own */
    rs[n] = row("exercise", "2^24", RK_EXERCISE, RS_CORRECT, 10);
    snprintf(rs[n++].exercise, sizeof rs[0].exercise, "sum2");
    rs[n] = row("exercise", "256x256x256", RK_EXERCISE, RS_CORRECT, 10);
    rs[n].speedup_lib = 0.75;
    snprintf(rs[n++].exercise, sizeof rs[0].exercise, "mm");
    rs[n] = row("exercise", "512", RK_EXERCISE, RS_CORRECT, 10);
    rs[n].speedup_lib = 0.1;   /* a size the milestone is not judged at */
    snprintf(rs[n++].exercise, sizeof rs[0].exercise, "mm");
    ms_eval ev;
    assert_true(lab_milestone_eval_judged(l, own, rs, n, &ev));
    assert_int_equal(ev.state, MS_MISSED);
    assert_true(lab_milestone_eval_judged(l, sum2, rs, n, &ev));
    assert_int_equal(ev.state, MS_REACHED);
    assert_true(lab_milestone_eval_judged(l, mm, rs, n, &ev));
    assert_int_equal(ev.state, MS_REACHED);
    assert_true(ev.has_value && ev.value == 0.75);
    /* without its exercise's rows, a milestone has nothing to judge */
    assert_true(lab_milestone_eval_judged(l, mm, rs, 2, &ev));
    assert_int_equal(ev.state, MS_PENDING);
    assert_true(lab_milestone_eval(l, sum2, rs, 1, &ev));
    assert_int_equal(ev.state, MS_PENDING);
    lab_free(l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reached_and_missed),
        cmocka_unit_test(test_byte_sizes),
        cmocka_unit_test(test_shape_of_r),
        cmocka_unit_test(test_exercise_missing),
        cmocka_unit_test(test_check_errors),
        cmocka_unit_test(test_which_condition_failed),
        cmocka_unit_test(test_needs),
        cmocka_unit_test(test_quiz_answers),
        cmocka_unit_test(test_exercise_rows),
        cmocka_unit_test(test_unrun_rows_judge_nothing),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
