/* The app model: what keys, clicks, worker events and a new terminal size
 * do, without curses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "prof/trace.h"
#include "support.h"
#include "tui/tui_app.h"

static char id_a[] = "reduction", id_b[] = "matmul", title_a[] = "Parallel reduction",
            title_b[] = "Tiled matmul", problem_a[] = "reduce_sum", library_a[] = "cub",
            dir_a[] = "/nonexistent/labs/reduction";
static char s1[] = "2^20", s2[] = "2^24", s3[] = "2^28";
static char *sizes[] = {s1, s2, s3};
static char st1t[] = "Why a sum is hard", st1b[] = "A **sum** needs every element.\n\n- one\n- two",
            st2t[] = "Trees", st2b[] = "Halve the threads each round.";
static lab_step steps[] = {{st1t, st1b, 1}, {st2t, st2b, 5}};
static char v1[] = "interleaved", v1k[] = "reduce_interleaved", v2[] = "sequential",
            v2k[] = "reduce_sequential";
static lab_variant variants[] = {{.id = v1, .title = v1, .kernel = v1k, .why = NULL, .line = 1}, {.id = v2, .title = v2, .kernel = v2k, .why = NULL, .line = 2}};
static char m1[] = "fast", m1t[] = "Over 100x faster than the CPU", m1g[] = ">= 100x",
            m2[] = "why", m2t[] = "Explain the tree", m2q[] = "q1";
static lab_milestone milestones[] = {{m1, m1t, NULL, m1g, -2, 1, 1.0, NULL, NULL, NULL, 0},
                                     {m2, m2t, m2q, NULL, -2, 2, 1.0, NULL, NULL, NULL, 0}};
static char qq[] = "Why halve the threads?", c1[] = "Because it is faster", c1f[] = "Not only.",
            c2[] = "Each round adds pairs", c2f[] = "Yes: pairs halve the data each round.";
static lab_quiz_choice choices[] = {{c1, false, c1f}, {c2, true, c2f}};
static lab_quiz quizzes[] = {{m2q, qq, choices, 2, 3}};
static char ex_k[] = "starter.cu", ex_l[] = "starter.lua";
static char h1[] = "Use `sequential` addressing.", h2[] = "Add two elements per thread.";
static char *hints[] = {h1, h2};

static lab lab_a, lab_b;
static lab *labv[2];
static lab_set set;
static tui_layout lay;

static int evals;

static void fake_eval(lab *l, size_t i, const run_result *rs, size_t n, tui_ms *out)
{
    (void)l;
    (void)i;
    evals++;
    memset(out, 0, sizeof *out);
    for (size_t k = 0; k < n; k++)
        if (strcmp(rs[k].variant, "exercise") == 0) {
            out->state = rs[k].speedup_cpu >= 100 ? TUI_MS_REACHED : TUI_MS_MISSED;
            snprintf(out->shown, sizeof out->shown, "%.0fx >= 100x", rs[k].speedup_cpu);
        }
}

static lab_exercise ex_a, ex_p;
static char ex_none[] = "";

static int setup(void **state)
{
    tui_app *a = calloc(1, sizeof *a);
    memset(&lab_a, 0, sizeof lab_a);
    lab_a.id = id_a;
    lab_a.title = title_a;
    lab_a.problem = problem_a;
    lab_a.library = library_a;
    lab_a.dir = dir_a;
    lab_a.sizes = sizes;
    lab_a.nsizes = 3;
    lab_a.time_limit_s = 30;
    lab_a.steps = steps;
    lab_a.nsteps = 2;
    lab_a.variants = variants;
    lab_a.nvariants = 2;
    lab_a.milestones = milestones;
    lab_a.nmilestones = 2;
    lab_a.quizzes = quizzes;
    lab_a.nquizzes = 1;
    memset(&ex_a, 0, sizeof ex_a);
    ex_a.id = ex_none;
    ex_a.kernel = ex_k;
    ex_a.launcher = ex_l;
    ex_a.problem = problem_a;
    ex_a.hints = hints;
    ex_a.nhints = 2;
    ex_a.sizes = sizes;
    ex_a.nsizes = 3;
    lab_a.exercises = &ex_a;
    lab_a.nexercises = 1;
    memset(&lab_b, 0, sizeof lab_b);
    lab_b.id = id_b;
    lab_b.title = title_b;
    labv[0] = &lab_a;
    labv[1] = &lab_b;
    set.v = labv;
    set.n = 2;
    tui_layout_compute(30, 100, 2, &lay);
    assert_true(tui_app_init(a, &set, true, NULL));
    a->ms_eval = fake_eval;
    a->workspace = "/nonexistent/ws";
    *state = a;
    return 0;
}

static int teardown(void **state)
{
    tui_app_free(*state);
    free(*state);
    return 0;
}

static unsigned key(tui_app *a, tui_action act)
{
    return tui_app_key(a, &lay, act);
}

static void test_navigation(void **state)
{
    tui_app *a = *state;
    assert_int_equal(a->focus, TUI_P_LABS);
    assert_ptr_equal(tui_app_lab(a), &lab_a);
    assert_true(key(a, TA_DOWN) & TUI_F_REDRAW);
    assert_ptr_equal(tui_app_lab(a), &lab_b);
    key(a, TA_DOWN);
    assert_ptr_equal(tui_app_lab(a), &lab_b);
    key(a, TA_HOME);
    assert_ptr_equal(tui_app_lab(a), &lab_a);

    key(a, TA_NEXT_PANE);
    assert_int_equal(a->focus, TUI_P_LESSON);
    key(a, TA_NEXT_PANE);
    assert_int_equal(a->focus, TUI_P_RUN);
    key(a, TA_NEXT_PANE);
    assert_int_equal(a->focus, TUI_P_MILESTONES);
    key(a, TA_NEXT_PANE);
    assert_int_equal(a->focus, TUI_P_LABS);
    key(a, TA_PREV_PANE);
    assert_int_equal(a->focus, TUI_P_MILESTONES);

    key(a, TA_HELP);
    assert_int_equal(a->overlay, TUI_OV_HELP);
    key(a, TA_DOWN);
    assert_int_equal(a->help_scroll, 1);
    key(a, TA_CANCEL);
    assert_int_equal(a->overlay, TUI_OV_NONE);
    assert_true(key(a, TA_QUIT) & TUI_F_QUIT);
    assert_true(key(a, TA_REFRESH) & TUI_F_REPAINT);
}

static void test_lesson_steps(void **state)
{
    tui_app *a = *state;
    const md_doc *d;
    d = tui_app_lesson(a, tui_app_lesson_width(&lay));
    assert_true(d->n >= 4);
    assert_string_equal(d->v[0].text, "Why a sum is hard");
    key(a, TA_NEXT_STEP);
    assert_int_equal(a->ls[0].step, 1);
    d = tui_app_lesson(a, 40);
    assert_string_equal(d->v[0].text, "Trees");
    assert_int_equal(key(a, TA_NEXT_STEP), 0);      /* last step: nothing to do */
    assert_int_equal(a->ls[0].step, 1);
    key(a, TA_PREV_STEP);
    assert_int_equal(a->ls[0].step, 0);
    a->focus = TUI_P_LESSON;
    key(a, TA_RIGHT);
    assert_int_equal(a->ls[0].step, 1);
    key(a, TA_LEFT);
    assert_int_equal(a->ls[0].step, 0);
    /* a short lesson does not scroll */
    key(a, TA_PAGE_DOWN);
    assert_int_equal(a->ls[0].lesson_scroll, 0);
    /* each lab keeps its own step */
    key(a, TA_NEXT_STEP);
    a->focus = TUI_P_LABS;
    key(a, TA_DOWN);
    assert_int_equal(a->ls[1].step, 0);
    key(a, TA_UP);
    assert_int_equal(a->ls[0].step, 1);
}

static void test_sizes(void **state)
{
    tui_app *a = *state;
    assert_string_equal(tui_app_size(a), "2^20");
    key(a, TA_NEXT_SIZE);
    assert_string_equal(tui_app_size(a), "2^24");
    a->focus = TUI_P_RUN;
    key(a, TA_RIGHT);
    assert_string_equal(tui_app_size(a), "2^28");
    assert_int_equal(key(a, TA_RIGHT), 0);
    key(a, TA_PREV_SIZE);
    assert_string_equal(tui_app_size(a), "2^24");
}

static void test_run_all(void **state)
{
    tui_app *a = *state;
    run_request req;
    run_progress p;
    run_result r;
    unsigned f = key(a, TA_RUN_ALL);
    assert_true(f & TUI_F_REQUEST);
    assert_int_equal(a->req.kind, TUI_REQ_RUN);
    assert_string_equal(a->req.run.lab, "reduction");
    assert_string_equal(a->req.run.problem, "reduce_sum");
    assert_string_equal(a->req.run.library, "cub");
    assert_int_equal(a->req.run.nvariants, 2);
    assert_string_equal(a->req.run.variants[1].kernel, "reduce_sequential");
    assert_int_equal(a->req.run.nsizes, 1);
    assert_string_equal(a->req.run.sizes[0], "2^20");
    assert_true(a->req.run.cpu);
    assert_string_equal(a->req.run.exercise_kernel, "/nonexistent/labs/reduction/starter.cu");
    assert_string_equal(a->req.run.exercise_launcher, "/nonexistent/labs/reduction/starter.lua");
    assert_true(a->req.time_limit_s == 30.0);

    req = a->req.run;
    req.run = 7;
    tui_app_run_started(a, &req);
    assert_true(a->running);
    assert_int_equal(a->run_rows, 5);   /* cpu, cub, two variants, exercise */
    assert_int_equal(a->req.kind, TUI_REQ_NONE);
    assert_int_equal(tui_runtable_find(&a->ls[0].table, "sequential", "2^20")->state, ROW_QUEUED);

    /* a second run waits */
    f = key(a, TA_RUN);
    assert_false(f & TUI_F_REQUEST);
    assert_non_null(strstr(tui_log_recent(&a->log, 0)->text, "in progress"));

    memset(&p, 0, sizeof p);
    p.run = 7;
    snprintf(p.variant, sizeof p.variant, "interleaved");
    snprintf(p.size, sizeof p.size, "2^20");
    p.rep = 2;
    p.of = 9;
    assert_true(tui_app_on_progress(a, &p) & TUI_F_REDRAW);
    assert_int_equal(tui_runtable_find(&a->ls[0].table, "interleaved", "2^20")->state, ROW_RUNNING);
    p.run = 6;   /* an old run's message is ignored */
    assert_int_equal(tui_app_on_progress(a, &p), 0);

    run_result_init(&r);
    r.run = 7;
    snprintf(r.variant, sizeof r.variant, "exercise");
    snprintf(r.size, sizeof r.size, "2^20");
    r.kind = RK_EXERCISE;
    r.status = RS_CORRECT;
    r.speedup_cpu = 312;
    r.median_ms = 0.1;
    evals = 0;
    tui_app_on_result(a, &r);
    assert_int_equal(a->run_rows, 5);
    assert_int_equal(a->run_rows_done, 1);
    assert_true(evals > 0);
    assert_int_equal(a->ls[0].ms[0].state, TUI_MS_REACHED);
    assert_string_equal(a->ls[0].ms[0].shown, "312x >= 100x");
    {
        int reached, total;
        tui_app_progress(a, 0, &reached, &total);
        assert_int_equal(reached, 1);
        assert_int_equal(total, 2);
    }

    run_result_init(&r);
    r.run = 7;
    snprintf(r.variant, sizeof r.variant, "sequential");
    snprintf(r.label, sizeof r.label, "sequential");
    snprintf(r.size, sizeof r.size, "2^20");
    r.status = RS_ERROR;
    snprintf(r.message, sizeof r.message, "no CUDA device found: no driver");
    tui_app_on_result(a, &r);
    assert_non_null(strstr(tui_log_recent(&a->log, 0)->text, "no CUDA device found"));
    /* a row the run did not announce still counts */
    run_result_init(&r);
    r.run = 7;
    snprintf(r.variant, sizeof r.variant, "cpu_mt");
    snprintf(r.size, sizeof r.size, "2^20");
    r.kind = RK_CPU_MT;
    tui_app_on_result(a, &r);
    assert_int_equal(a->run_rows, 6);
    assert_int_equal(a->run_rows_done, 3);

    /* quitting during a run asks first */
    assert_false(key(a, TA_QUIT) & TUI_F_QUIT);
    assert_int_equal(a->overlay, TUI_OV_CONFIRM_QUIT);
    assert_false(key(a, TA_DOWN) & TUI_F_QUIT);
    assert_int_equal(a->overlay, TUI_OV_NONE);

    f = key(a, TA_CANCEL);
    assert_true(f & TUI_F_REQUEST);
    assert_int_equal(a->req.kind, TUI_REQ_CANCEL);
    {
        run_fault flt;
        memset(&flt, 0, sizeof flt);
        flt.run = 7;
        snprintf(flt.cause, sizeof flt.cause, "cancelled");
        snprintf(flt.message, sizeof flt.message, "the run was cancelled");
        tui_app_on_fault(a, &flt);
    }
    tui_app_on_done(a, 7);
    assert_false(a->running);
    assert_int_equal(tui_runtable_find(&a->ls[0].table, "interleaved", "2^20")->state, ROW_SKIPPED);
    assert_int_equal(tui_runtable_find(&a->ls[0].table, "exercise", "2^20")->state, ROW_DONE);
    assert_true(key(a, TA_QUIT) & TUI_F_QUIT);
}

static void test_run_selected(void **state)
{
    tui_app *a = *state;
    size_t idx[16], n;
    a->focus = TUI_P_RUN;
    /* rows before any run: the two variants and the exercise */
    n = tui_runtable_view(&a->ls[0].table, "2^20", idx, 16);
    assert_int_equal(n, 3);
    key(a, TA_DOWN);
    assert_int_equal(a->ls[0].run_cursor, 1);
    assert_true(key(a, TA_RUN) & TUI_F_REQUEST);
    assert_int_equal(a->req.run.nvariants, 1);
    assert_string_equal(a->req.run.variants[0].id, "sequential");
    assert_string_equal(a->req.run.exercise_kernel, "");
    key(a, TA_DOWN);
    key(a, TA_DOWN);
    assert_int_equal(a->ls[0].run_cursor, 2);
    key(a, TA_RUN);
    assert_int_equal(a->req.run.nvariants, 0);
    assert_string_equal(a->req.run.exercise_kernel, "/nonexistent/labs/reduction/starter.cu");
    /* Enter on a row explains it */
    assert_true(key(a, TA_ENTER) & TUI_F_REDRAW);
    assert_int_equal(a->overlay, TUI_OV_DETAILS);
    assert_string_equal(a->details_title, "your kernel at size 2^20");
    assert_non_null(strstr(a->details, "not run yet"));
    key(a, TA_DOWN);
    assert_int_equal(a->details_scroll, 1);
    key(a, TA_CANCEL);
    assert_int_equal(a->overlay, TUI_OV_NONE);
    /* a lab without kernels says so instead of running */
    a->focus = TUI_P_LABS;
    key(a, TA_DOWN);
    assert_false(key(a, TA_RUN_ALL) & TUI_F_REQUEST);
    assert_non_null(strstr(tui_log_recent(&a->log, 0)->text, "no kernels"));
}

static void test_details_diagnosis(void **state)
{
    tui_app *a = *state;
    run_request req;
    run_result r;
    key(a, TA_RUN_ALL);
    req = a->req.run;
    req.run = 3;
    tui_app_run_started(a, &req);
    run_result_init(&r);
    r.run = 3;
    snprintf(r.variant, sizeof r.variant, "exercise");
    snprintf(r.label, sizeof r.label, "your kernel");
    snprintf(r.size, sizeof r.size, "2^20");
    r.kind = RK_EXERCISE;
    r.status = RS_UNWRITTEN;
    r.median_ms = 0.5;
    r.samples = 20;
    r.nmismatch = 1;
    r.mismatches[0].index = 17;
    r.mismatches[0].got = NAN;
    r.mismatches[0].expected = 4.0;
    snprintf(r.message, sizeof r.message, "1024 of 1048576 output elements were never written");
    tui_app_on_result(a, &r);
    tui_app_on_done(a, 3);
    a->focus = TUI_P_RUN;
    key(a, TA_END);
    key(a, TA_ENTER);
    assert_int_equal(a->overlay, TUI_OV_DETAILS);
    assert_string_equal(a->details_title, "your kernel at size 2^20");
    assert_non_null(strstr(a->details, "Result: outputs left unwritten"));
    assert_non_null(strstr(a->details, "element 17"));
    assert_non_null(strstr(a->details, "never written"));
    assert_non_null(strstr(a->details, "Next: "));   /* the diagnosis names a next step */
}

static void test_exercise_files(void **state)
{
    tui_app *a = *state;
    run_request req;
    char k[RUN_PATH_MAX], l[RUN_PATH_MAX];
    assert_true(tui_app_exercise_paths(a, &lab_a, NULL, k, l, sizeof k));
    assert_string_equal(k, "/nonexistent/labs/reduction/starter.cu");   /* no copy yet: the starter */
    assert_false(tui_app_exercise_paths(a, &lab_b, NULL, k, l, sizeof k));

    /* saving runs the exercise alone */
    assert_true(tui_app_exercise_saved(a, 0, &ex_a, "/nonexistent/ws/reduction/starter.cu") & TUI_F_REQUEST);
    assert_int_equal(a->req.run.nvariants, 0);
    assert_string_equal(a->req.run.exercise_kernel, "/nonexistent/labs/reduction/starter.cu");
    req = a->req.run;
    req.run = 4;
    tui_app_run_started(a, &req);
    /* a save during a run waits for its end */
    assert_false(tui_app_exercise_saved(a, 0, &ex_a, "starter.cu") & TUI_F_REQUEST);
    assert_int_equal(a->rerun_lab, 1);
    assert_true(tui_app_on_done(a, 4) & TUI_F_REQUEST);
    assert_int_equal(a->req.kind, TUI_REQ_RUN);
    assert_int_equal(a->rerun_lab, 0);
    /* hints come one at a time, newest first */
    key(a, TA_HINT);
    assert_int_equal(a->overlay, TUI_OV_DETAILS);
    assert_true(a->details_md);
    assert_string_equal(a->details_title, "Hint 1 of 2");
    assert_non_null(strstr(a->details, "sequential"));
    assert_null(strstr(a->details, "two elements"));
    key(a, TA_HINT);                       /* H again, with the hint open */
    assert_string_equal(a->details_title, "Hint 2 of 2");
    assert_true(strstr(a->details, "two elements") < strstr(a->details, "sequential"));
    key(a, TA_CANCEL);
    key(a, TA_HINT);
    assert_string_equal(a->details_title, "Hint 2 of 2");
    key(a, TA_CANCEL);
    /* a lab without an exercise ignores saves */
    assert_int_equal(tui_app_exercise_saved(a, 1, NULL, "x.cu"), 0);

    /* e asks the loop for the editor; X asks first, then for a reset */
    assert_true(key(a, TA_EDIT) & TUI_F_REQUEST);
    assert_int_equal(a->req.kind, TUI_REQ_EDIT);
    assert_int_equal(a->req.lab, 0);
    assert_false(key(a, TA_RESET) & TUI_F_REQUEST);
    assert_int_equal(a->overlay, TUI_OV_CONFIRM_RESET);
    assert_false(key(a, TA_DOWN) & TUI_F_REQUEST);
    assert_int_equal(a->overlay, TUI_OV_NONE);
    key(a, TA_RESET);
    assert_true(key(a, TA_YES) & TUI_F_REQUEST);
    assert_int_equal(a->req.kind, TUI_REQ_RESET);
    /* the lab without an exercise says so */
    a->focus = TUI_P_LABS;
    key(a, TA_DOWN);
    assert_false(key(a, TA_EDIT) & TUI_F_REQUEST);
    assert_non_null(strstr(tui_log_recent(&a->log, 0)->text, "no exercise"));
}

static void test_quiz(void **state)
{
    tui_app *a = *state;
    a->focus = TUI_P_MILESTONES;
    key(a, TA_DOWN);
    assert_int_equal(a->ls[0].ms_cursor, 1);
    key(a, TA_ENTER);
    assert_int_equal(a->overlay, TUI_OV_QUIZ);
    assert_int_equal(a->quiz_q, 0);
    key(a, TA_ENTER);                       /* the first choice is wrong */
    assert_int_equal(a->quiz_answered, 0);
    assert_false(a->quiz_correct);
    assert_string_equal(a->quiz_feedback, "Not only.");
    assert_int_equal(a->ls[0].ms[1].state, TUI_MS_MISSED);
    /* a digit picks that choice: 2 is the right one, 3 there is not */
    assert_int_equal(tui_app_digit(a, 3), 0);
    assert_int_equal(a->quiz_cursor, 0);
    assert_true(tui_app_digit(a, 2) & TUI_F_REDRAW);
    assert_int_equal(a->quiz_cursor, 1);
    key(a, TA_ENTER);
    assert_true(a->quiz_correct);
    assert_string_equal(a->quiz_feedback, "Yes: pairs halve the data each round.");
    assert_int_equal(a->ls[0].ms[1].state, TUI_MS_REACHED);
    key(a, TA_CANCEL);
    assert_int_equal(a->overlay, TUI_OV_NONE);
    {
        int reached, total;
        tui_app_progress(a, 0, &reached, &total);
        assert_int_equal(reached, 1);
    }
    /* a wrong answer later does not take the milestone away */
    key(a, TA_ENTER);
    key(a, TA_UP);
    key(a, TA_ENTER);
    assert_int_equal(a->ls[0].ms[1].state, TUI_MS_REACHED);
}

static void test_mouse(void **state)
{
    tui_app *a = *state;
    tui_rect labs = lay.pane[TUI_P_LABS], lesson = lay.pane[TUI_P_LESSON];
    tui_app_mouse(a, &lay, labs.y + 2, labs.x + 3, TUI_MOUSE_CLICK);
    assert_ptr_equal(tui_app_lab(a), &lab_b);
    assert_int_equal(a->focus, TUI_P_LABS);
    tui_app_mouse(a, &lay, labs.y + 1, labs.x + 3, TUI_MOUSE_CLICK);
    assert_ptr_equal(tui_app_lab(a), &lab_a);
    tui_app_mouse(a, &lay, lesson.y + 3, lesson.x + 5, TUI_MOUSE_CLICK);
    assert_int_equal(a->focus, TUI_P_LESSON);
    tui_app_mouse(a, &lay, lay.pane[TUI_P_RUN].y + 2, lay.pane[TUI_P_RUN].x + 4, TUI_MOUSE_CLICK);
    assert_int_equal(a->focus, TUI_P_RUN);
    /* the wheel over the run table moves its cursor */
    tui_app_mouse(a, &lay, lay.run_table.y + 3, lay.run_table.x + 3, TUI_MOUSE_WHEEL_DOWN);
    assert_int_equal(a->ls[0].run_cursor, 1);
    /* a click outside an open overlay closes it */
    key(a, TA_HELP);
    tui_app_mouse(a, &lay, 0, 0, TUI_MOUSE_CLICK);
    assert_int_equal(a->overlay, TUI_OV_NONE);
    /* status bar and messages take no focus */
    tui_app_mouse(a, &lay, lay.pane[TUI_P_STATUS].y, 3, TUI_MOUSE_CLICK);
    assert_int_equal(a->focus, TUI_P_RUN);
}

static void test_device(void **state)
{
    tui_app *a = *state;
    device_info d;
    memset(&d, 0, sizeof d);
    snprintf(d.reason, sizeof d.reason, "no CUDA device found: CUDA driver is not installed");
    assert_false(a->dev_known);
    tui_app_on_hello(a, &d);
    assert_true(a->dev_known);
    assert_string_equal(tui_log_recent(&a->log, 0)->text,
                        "no CUDA device found: CUDA driver is not installed");
    tui_app_on_worker_lost(a, "cannot start /bin/false");
    assert_true(a->dev_lost);
    assert_string_equal(tui_log_recent(&a->log, 0)->text,
                        "the GPU worker is not running: cannot start /bin/false");
    snprintf(d.reason, sizeof d.reason, "cudaGetDeviceCount failed");
    a->dev_known = false;
    tui_app_on_hello(a, &d);
    assert_false(a->dev_lost);
    assert_string_equal(tui_log_recent(&a->log, 0)->text,
                        "no CUDA device found: cudaGetDeviceCount failed");
}

static void test_empty(void **state)
{
    tui_app a;
    lab_set none = {NULL, 0};
    (void)state;
    assert_true(tui_app_init(&a, &none, false, NULL));
    assert_null(tui_app_lab(&a));
    assert_string_equal(tui_app_size(&a), "");
    assert_int_equal(tui_app_key(&a, &lay, TA_DOWN), 0);
    assert_int_equal(tui_app_key(&a, &lay, TA_RUN_ALL), 0);
    assert_int_equal(tui_app_lesson(&a, 40)->n, 0);
    assert_true(tui_app_key(&a, &lay, TA_QUIT) & TUI_F_QUIT);
    tui_app_free(&a);
}

/* ---- the profiling lab ------------------------------------------------------------ */

static char p_id[] = "profiling", p_title[] = "Profiling", p_problem[] = "profiling", p_ex[] = "pipeline",
            p_dir[] = "/nonexistent/labs/profiling";
static char ps1[] = "1048576x16", ps2[] = "4194304x32";
static char *p_sizes[] = {ps1, ps2};
static char pv1[] = "transfers", pv2[] = "stride", pv3[] = "roofline";
static lab_variant p_variants[] = {{.id = pv1, .title = pv1, .kernel = NULL, .why = NULL, .line = 1}, {.id = pv2, .title = pv2, .kernel = NULL, .why = NULL, .line = 2}, {.id = pv3, .title = pv3, .kernel = NULL, .why = NULL, .line = 3}};
static lab lab_p;
static lab *p_labv[2];
static lab_set p_set;

static int setup_prof(void **state)
{
    tui_app *a = calloc(1, sizeof *a);
    memset(&lab_p, 0, sizeof lab_p);
    lab_p.id = p_id;
    lab_p.title = p_title;
    lab_p.problem = p_problem;
    lab_p.dir = p_dir;
    lab_p.sizes = p_sizes;
    lab_p.nsizes = 2;
    lab_p.time_limit_s = 900;
    lab_p.variants = p_variants;
    lab_p.nvariants = 3;
    memset(&ex_p, 0, sizeof ex_p);
    ex_p.id = ex_none;
    ex_p.kernel = ex_k;
    ex_p.launcher = ex_l;
    ex_p.problem = p_ex;
    ex_p.sizes = p_sizes;
    ex_p.nsizes = 2;
    lab_p.exercises = &ex_p;
    lab_p.nexercises = 1;
    p_labv[0] = &lab_p;
    p_labv[1] = &lab_b;
    p_set.v = p_labv;
    p_set.n = 2;
    memset(&lab_b, 0, sizeof lab_b);
    lab_b.id = id_b;
    lab_b.title = title_b;
    tui_layout_compute(30, 100, 2, &lay);
    assert_true(tui_app_init(a, &p_set, true, NULL));
    a->workspace = "/nonexistent/ws";
    *state = a;
    return 0;
}

static run_result measured(int run, const char *variant, const char *size, result_status st)
{
    run_result r;
    run_result_init(&r);
    r.run = run;
    snprintf(r.variant, sizeof r.variant, "%s", variant);
    snprintf(r.size, sizeof r.size, "%s", size);
    r.status = st;
    r.median_ms = 1.0;
    r.samples = 10;
    return r;
}

static const tui_row *shown(tui_app *a, size_t k)
{
    size_t idx[64], n = tui_app_rows(a, idx, 64);
    assert_true(k < n);
    return &a->ls[a->sel].table.v[idx[k]];
}

static void test_profiling_rows(void **state)
{
    tui_app *a = *state;
    size_t idx[64];
    run_request req;
    run_progress p;
    run_result r;
    /* before a run: each experiment's own row, then the exercise at the size */
    assert_int_equal(tui_app_rows(a, idx, 64), 4);
    assert_string_equal(shown(a, 0)->variant, "transfers");
    assert_string_equal(shown(a, 2)->variant, "roofline");
    assert_string_equal(shown(a, 3)->variant, "exercise");
    assert_string_equal(shown(a, 3)->size, ps1);

    /* R: every experiment, then the pipeline with its CPU baseline */
    assert_true(key(a, TA_RUN_ALL) & TUI_F_REQUEST);
    assert_string_equal(a->req.run.problem, "profiling");
    assert_int_equal(a->req.run.nvariants, 3);
    assert_true(a->req.run.cpu);
    assert_true(a->req.run.budget_s == 0.0);
    assert_string_equal(a->req.run.exercise_kernel, "/nonexistent/labs/profiling/starter.cu");
    req = a->req.run;
    req.run = 11;
    tui_app_run_started(a, &req);
    assert_int_equal(a->run_rows, 6);   /* three experiments, cpu, starter, exercise */
    assert_int_equal(tui_runtable_find(&a->ls[0].table, "stride", "")->state, ROW_QUEUED);
    assert_int_equal(tui_runtable_find(&a->ls[0].table, "starter", ps1)->state, ROW_QUEUED);

    /* a measurement takes the place of its experiment's own row */
    memset(&p, 0, sizeof p);
    p.run = 11;
    snprintf(p.variant, sizeof p.variant, "stride_1");
    snprintf(p.size, sizeof p.size, "64 MiB out");
    tui_app_on_progress(a, &p);
    assert_null(tui_runtable_find(&a->ls[0].table, "stride", ""));
    assert_int_equal(a->run_rows, 6);
    r = measured(11, "stride_1", "64 MiB out", RS_CORRECT);
    r.gbps = 2000;
    tui_app_on_result(a, &r);
    r = measured(11, "stride_8", "64 MiB out", RS_CORRECT);
    tui_app_on_result(a, &r);
    assert_int_equal(a->run_rows, 7);
    /* without a device an experiment answers under its own id */
    r = measured(11, "roofline", "", RS_ERROR);
    snprintf(r.message, sizeof r.message, "no CUDA device found: no driver");
    tui_app_on_result(a, &r);
    assert_int_equal(tui_runtable_find(&a->ls[0].table, "roofline", "")->state, ROW_DONE);
    /* the timeline's announcement is kept for t */
    tui_app_on_log(a, 0, "timeline: /tmp/some/last.json (120 events over 2.00 ms)");
    assert_string_equal(a->tl_path, "/tmp/some/last.json");
    assert_true(a->tl_stale);
    assert_non_null(strstr(tui_log_recent(&a->log, 0)->text, "(t shows it)"));
    tui_app_on_done(a, 11);
    assert_int_equal(tui_runtable_find(&a->ls[0].table, "transfers", "")->state, ROW_SKIPPED);
    assert_int_equal(tui_app_rows(a, idx, 64), 7);
    assert_string_equal(shown(a, 1)->variant, "stride_1");
    assert_string_equal(shown(a, 2)->variant, "stride_8");

    /* r on a measurement runs its experiment alone */
    a->focus = TUI_P_RUN;
    key(a, TA_HOME);
    key(a, TA_DOWN);
    assert_string_equal(shown(a, a->ls[0].run_cursor)->variant, "stride_1");
    assert_true(key(a, TA_RUN) & TUI_F_REQUEST);
    assert_int_equal(a->req.run.nvariants, 1);
    assert_string_equal(a->req.run.variants[0].id, "stride");
    assert_string_equal(a->req.run.exercise_kernel, "");
    assert_false(a->req.run.cpu);
    req = a->req.run;
    req.run = 12;
    tui_app_run_started(a, &req);
    assert_int_equal(a->run_rows, 2);      /* its two measurements, no row of its own */
    assert_int_equal(tui_runtable_find(&a->ls[0].table, "stride_8", "64 MiB out")->state, ROW_QUEUED);
    assert_null(tui_runtable_find(&a->ls[0].table, "stride", ""));
    assert_int_not_equal(tui_runtable_find(&a->ls[0].table, "cpu", ps1)->state, ROW_QUEUED);
    tui_app_on_done(a, 12);

    /* r on the exercise runs the pipeline alone, with the CPU */
    key(a, TA_END);
    assert_string_equal(shown(a, a->ls[0].run_cursor)->variant, "exercise");
    key(a, TA_RUN);
    assert_int_equal(a->req.run.nvariants, 0);
    assert_true(a->req.run.cpu);
    assert_string_equal(a->req.run.exercise_kernel, "/nonexistent/labs/profiling/starter.cu");
}

static void test_timeline_view(void **state)
{
    tui_app *a = *state;
    char dir[] = "/tmp/cudalab-tuiapp-XXXXXX", sample[1024], found[1200] = "";
    const char *msg;
    tl_view v0;
    timeline t;
    cl_err e;
    /* nothing recorded, nothing to fall back on */
    assert_int_equal(key(a, TA_TIMELINE), TUI_F_REDRAW);
    assert_int_equal(a->overlay, TUI_OV_NONE);
    assert_non_null(strstr(tui_log_recent(&a->log, 0)->text, "no timeline yet"));

    ts_data_path(sample, sizeof sample, "prof/data/sample_trace.json");
    snprintf(a->tl_fallback, sizeof a->tl_fallback, "%s", sample);
    key(a, TA_TIMELINE);
    assert_int_equal(a->overlay, TUI_OV_TIMELINE);
    assert_true(a->tl.loaded);
    assert_string_equal(a->tl.path, sample);
    v0 = a->tl.view;
    key(a, TA_ZOOM_IN);
    assert_true(a->tl.view.t1 - a->tl.view.t0 < v0.t1 - v0.t0);
    key(a, TA_RIGHT);
    assert_true(a->tl.view.t0 > v0.t0);
    key(a, TA_HOME);
    assert_int_equal(a->tl.view.t0, v0.t0);
    key(a, TA_DOWN);
    assert_true(a->tl.item >= 0);
    key(a, TA_NEXT_PANE);
    assert_true(a->tl.item >= 0);
    assert_int_equal(a->focus, TUI_P_LABS);  /* Tab moved through items, not panes */
    key(a, TA_ENTER);
    assert_true(a->tl.view.t1 - a->tl.view.t0 < v0.t1 - v0.t0);

    /* T writes a Chrome trace into the profiling lab's workspace folder */
    assert_non_null(mkdtemp(dir));
    a->workspace = dir;
    key(a, TA_EXPORT);
    msg = tui_log_recent(&a->log, 0)->text;
    assert_non_null(strstr(msg, "trace written to "));
    sscanf(strstr(msg, dir), "%1199[^:]", found);
    assert_non_null(strstr(found, "/profiling/timeline-"));
    assert_true(trace_load(found, &t, &e));
    assert_int_equal(t.nitems, a->tl.t.nitems);
    timeline_free(&t);
    ts_rm_rf(dir);

    /* help from the view returns to it */
    key(a, TA_HELP);
    assert_int_equal(a->overlay, TUI_OV_HELP);
    key(a, TA_CANCEL);
    assert_int_equal(a->overlay, TUI_OV_TIMELINE);
    /* f and t switch between the views; Esc closes */
    key(a, TA_ROOFLINE);
    assert_int_equal(a->overlay, TUI_OV_ROOFLINE);
    key(a, TA_TIMELINE);
    assert_int_equal(a->overlay, TUI_OV_TIMELINE);
    key(a, TA_CANCEL);
    assert_int_equal(a->overlay, TUI_OV_NONE);
    /* the wheel zooms the timeline */
    key(a, TA_TIMELINE);
    v0 = a->tl.view;
    tui_app_mouse(a, &lay, 5, 40, TUI_MOUSE_WHEEL_UP);
    assert_true(a->tl.view.t1 - a->tl.view.t0 < v0.t1 - v0.t0);
    key(a, TA_QUIT);
    assert_int_equal(a->overlay, TUI_OV_NONE);

    /* a run's announcement replaces the fallback; a file that cannot be
     * read keeps what was shown */
    tui_app_on_log(a, 0, "timeline: /nonexistent/last.json (1 events over 1 ms)");
    key(a, TA_TIMELINE);
    assert_int_equal(a->overlay, TUI_OV_TIMELINE);
    assert_string_equal(a->tl.path, sample);
}

/* b opens GB/s by size; b and f switch between it and the roofline; the
 * same key again, Esc, q or Enter closes; help returns to it; the status
 * bar offers b once a row has results at two sizes. */
static void test_sweep_key(void **state)
{
    tui_app *a = *state;
    run_result r;
    assert_false(tui_runtable_swept(&a->ls[0].table));
    r = measured(0, "sequential", "2^20", RS_CORRECT);
    r.gbps = 400;
    assert_true(tui_runtable_result(&a->ls[0].table, &r, NULL));
    assert_false(tui_runtable_swept(&a->ls[0].table));
    r = measured(0, "interleaved", "2^24", RS_CORRECT);
    assert_true(tui_runtable_result(&a->ls[0].table, &r, NULL));
    assert_false(tui_runtable_swept(&a->ls[0].table));
    r = measured(0, "sequential", "2^24", RS_WRONG);
    assert_true(tui_runtable_result(&a->ls[0].table, &r, NULL));
    assert_true(tui_runtable_swept(&a->ls[0].table));

    assert_int_equal(key(a, TA_SWEEP), TUI_F_REDRAW);
    assert_int_equal(a->overlay, TUI_OV_SWEEP);
    key(a, TA_DOWN);
    key(a, TA_DOWN);
    assert_int_equal(a->plot_scroll, 2);
    key(a, TA_UP);
    key(a, TA_UP);
    key(a, TA_UP);
    assert_int_equal(a->plot_scroll, 0);
    key(a, TA_ROOFLINE);
    assert_int_equal(a->overlay, TUI_OV_ROOFLINE);
    key(a, TA_DOWN);
    key(a, TA_SWEEP);
    assert_int_equal(a->overlay, TUI_OV_SWEEP);
    assert_int_equal(a->plot_scroll, 0);
    key(a, TA_HELP);
    assert_int_equal(a->overlay, TUI_OV_HELP);
    key(a, TA_CANCEL);
    assert_int_equal(a->overlay, TUI_OV_SWEEP);
    key(a, TA_SWEEP);
    assert_int_equal(a->overlay, TUI_OV_NONE);
    key(a, TA_SWEEP);
    key(a, TA_CANCEL);
    assert_int_equal(a->overlay, TUI_OV_NONE);
    key(a, TA_SWEEP);
    tui_app_mouse(a, &lay, 5, 40, TUI_MOUSE_WHEEL_DOWN);
    assert_int_equal(a->plot_scroll, 1);
    key(a, TA_QUIT);
    assert_int_equal(a->overlay, TUI_OV_NONE);
}

static void test_compile_errors(void **state)
{
    tui_app *a = *state;
    run_request req;
    run_result r;
    key(a, TA_RUN_ALL);
    req = a->req.run;
    req.run = 5;
    tui_app_run_started(a, &req);
    tui_app_on_log(a, 2, "starter.cu:12:21: error: identifier \"blockDim_x\" is undefined\n"
                         "      int i = blockIdx.x * blockDim_x + threadIdx.x;\n"
                         "                           ^");
    tui_app_on_log(a, 0, "your kernel reduce_sum (sm_90): 16 registers a thread");
    r = measured(5, "exercise", "2^20", RS_ERROR);
    r.kind = RK_EXERCISE;
    r.median_ms = 0;
    snprintf(r.label, sizeof r.label, "your kernel");
    snprintf(r.message, sizeof r.message, "starter.cu:12:21: error: identifier \"blockDim_x\" is undefined");
    tui_app_on_result(a, &r);
    tui_app_on_done(a, 5);
    a->focus = TUI_P_RUN;
    key(a, TA_END);
    key(a, TA_ENTER);
    assert_int_equal(a->overlay, TUI_OV_DETAILS);
    assert_non_null(strstr(a->details, "What the compiler said:\nstarter.cu:12:21: error: identifier"));
    assert_non_null(strstr(a->details, "\n      int i = blockIdx.x * blockDim_x + threadIdx.x;\n"
                                       "                           ^\n"));
    assert_null(strstr(a->details, "16 registers"));
    assert_non_null(strstr(a->details, "Your kernel does not compile"));
    assert_non_null(strstr(a->details, "at starter.cu:12:21"));
    key(a, TA_CANCEL);
    /* a reset to the starter forgets the row's error and the compiler's
     * output: they belong to code that is gone */
    tui_row *row = tui_runtable_find(&a->ls[0].table, "exercise", "2^20");
    assert_non_null(row);
    assert_true(row->has_result);
    tui_app_exercise_reset(a, 0, tui_app_exercise(a));
    assert_false(row->has_result);
    assert_int_equal(row->state, ROW_IDLE);
    assert_string_equal(a->ls[0].compile_log, "");
    /* the next run starts with a clean slate */
    tui_app_on_log(a, 2, "starter.cu:3:1: error: something");
    key(a, TA_RUN_ALL);
    req = a->req.run;
    req.run = 6;
    tui_app_run_started(a, &req);
    assert_string_equal(a->ls[0].compile_log, "");
}

/* A compiler that prints a line a kernel fills the messages pane no more
 * than three lines; the rest are counted, and kept for the row's details. */
static void test_compiler_flood(void **state)
{
    tui_app *a = *state;
    run_request req;
    key(a, TA_RUN_ALL);
    req = a->req.run;
    req.run = 9;
    tui_app_run_started(a, &req);
    size_t before = a->log.n;
    for (int k = 0; k < 40; k++) {
        char line[96];
        snprintf(line, sizeof line, "ptxas info    : Used %d registers, used 0 barriers", k);
        tui_app_on_log(a, 0, line);
    }
    assert_int_equal(a->log.n - before, 3);
    tui_app_on_done(a, 9);
    char buf[512];
    const char *last = tui_log_text(tui_log_recent(&a->log, 0), buf, sizeof buf);
    assert_non_null(strstr(last, "37 more lines from the compiler"));
    assert_non_null(strstr(a->ls[0].compile_log, "Used 39 registers"));
}

/* A time limit that strikes a lab's own row blames the run, not the
 * learner's kernel, which had not run. */
static void test_timeout_on_a_lab_row(void **state)
{
    tui_app *a = *state;
    run_request req;
    key(a, TA_RUN_ALL);
    req = a->req.run;
    req.run = 11;
    tui_app_run_started(a, &req);
    run_fault flt;
    memset(&flt, 0, sizeof flt);
    flt.run = 11;
    snprintf(flt.cause, sizeof flt.cause, "timeout");
    snprintf(flt.variant, sizeof flt.variant, "interleaved");
    snprintf(flt.message, sizeof flt.message, "the worker ran past the time limit of 1 s");
    tui_app_on_fault(a, &flt);
    tui_app_on_done(a, 11);
    tui_row *row = tui_runtable_find(&a->ls[0].table, "interleaved", "2^20");
    assert_non_null(row);
    assert_int_equal(row->state, ROW_FAULT);
    a->focus = TUI_P_RUN;
    size_t idx[16], n = tui_runtable_view(&a->ls[0].table, "2^20", idx, 16);
    for (size_t k = 0; k < n; k++)
        if (&a->ls[0].table.v[idx[k]] == row)
            a->ls[0].run_cursor = k;
    key(a, TA_ENTER);
    assert_int_equal(a->overlay, TUI_OV_DETAILS);
    assert_non_null(strstr(a->details, "The run did not finish in time"));
    assert_null(strstr(a->details, "Your kernel did not finish"));
}

static void test_tools(void **state)
{
    tui_app *a = *state;
    char ws[] = "/tmp/cudalab-tuiws-XXXXXX", path[256];
    FILE *f;
    run_request req;
    run_result r;
    assert_non_null(mkdtemp(ws));
    snprintf(path, sizeof path, "%s/reduction", ws);
    assert_int_equal(mkdir(path, 0755), 0);
    snprintf(path, sizeof path, "%s/reduction/starter.cu", ws);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs("extern \"C\" __global__ void reduce_sum(const float *in, float *out, long long n) {}\n", f);
    fclose(f);
    a->workspace = ws;
    a->focus = TUI_P_RUN;

    /* N on a shipped rung: that kernel, run alone at the row's size */
    key(a, TA_DOWN);
    assert_true(key(a, TA_NCU) & TUI_F_REQUEST);
    assert_int_equal(a->req.kind, TUI_REQ_NCU);
    assert_string_equal(a->req.kernel, "reduce_sequential");
    assert_int_equal(a->req.nargs, 9);
    assert_string_equal(a->req.args[8], "0.05");
    assert_string_equal(a->req.args[0], "run");
    assert_string_equal(a->req.args[1], "reduction");
    assert_string_equal(a->req.args[3], "sequential");
    assert_string_equal(a->req.args[5], "2^20");
    assert_string_equal(a->req.args[6], "--no-cpu");
    /* on the learner's row: the kernels its file declares */
    key(a, TA_END);
    key(a, TA_NCU);
    assert_string_equal(a->req.kernel, "^(reduce_sum)$");
    assert_string_equal(a->req.args[2], "--exercise");
    assert_string_equal(a->req.variant, "exercise");

    /* the job runs: a second one waits, Esc stops it */
    tui_app_job_started(a);
    assert_int_equal(a->job, TUI_JOB_NCU);
    assert_string_equal(a->job_what, "Nsight Compute on ^(reduce_sum)$");
    assert_non_null(strstr(tui_log_recent(&a->log, 0)->text, "profiling with Nsight Compute"));
    assert_false(key(a, TA_MEMCHECK) & TUI_F_REQUEST);
    assert_non_null(strstr(tui_log_recent(&a->log, 0)->text, "still running"));
    assert_true(key(a, TA_CANCEL) & TUI_F_REQUEST);
    assert_int_equal(a->req.kind, TUI_REQ_CANCEL_JOB);

    /* its metrics join the row's details */
    tui_app_on_job(a, "OK\nNsight Compute, first launch of reduce_sum\n  DRAM throughput   91.3 %\n", 0);
    assert_int_equal(a->job, TUI_JOB_NONE);
    assert_int_equal(a->overlay, TUI_OV_DETAILS);
    assert_string_equal(a->details_title, "your kernel at size 2^20");
    assert_non_null(strstr(a->details, "not run yet"));
    assert_non_null(strstr(a->details, "DRAM throughput   91.3 %"));
    key(a, TA_CANCEL);
    key(a, TA_UP);
    key(a, TA_ENTER);
    assert_null(strstr(a->details, "DRAM throughput"));   /* another row: not its metrics */
    key(a, TA_CANCEL);

    /* failures: the tool is missing, or answered with an error */
    key(a, TA_NCU);
    tui_app_job_failed(a, "Nsight Compute (ncu) was not found.");
    assert_int_equal(a->overlay, TUI_OV_DETAILS);
    assert_string_equal(a->details, "Nsight Compute (ncu) was not found.");
    assert_int_equal(a->req.kind, TUI_REQ_NONE);
    key(a, TA_CANCEL);
    key(a, TA_NCU);
    tui_app_job_started(a);
    tui_app_on_job(a, "ERR\nno CUDA device found: Nsight Compute has nothing to profile", 1);
    assert_string_equal(a->details, "no CUDA device found: Nsight Compute has nothing to profile");
    key(a, TA_CANCEL);
    key(a, TA_NCU);
    tui_app_job_started(a);
    tui_app_on_job(a, "", 128 + 9);
    assert_non_null(strstr(a->details, "stopped before it answered (signal 9)"));
    key(a, TA_CANCEL);

    /* CPU rows run no kernel of cudalab's */
    key(a, TA_RUN_ALL);
    req = a->req.run;
    req.run = 8;
    tui_app_run_started(a, &req);
    r = measured(8, "cpu", "2^20", RS_CORRECT);
    r.kind = RK_CPU;
    tui_app_on_result(a, &r);
    tui_app_on_done(a, 8);
    key(a, TA_HOME);
    assert_false(key(a, TA_NCU) & TUI_F_REQUEST);
    assert_non_null(strstr(tui_log_recent(&a->log, 0)->text, "runs no kernel"));

    /* M and C: the sanitizer on the learner's kernel */
    assert_true(key(a, TA_MEMCHECK) & TUI_F_REQUEST);
    assert_int_equal(a->req.kind, TUI_REQ_SANITIZE);
    assert_false(a->req.racecheck);
    assert_true(key(a, TA_RACECHECK) & TUI_F_REQUEST);
    assert_true(a->req.racecheck);
    tui_app_job_started(a);
    assert_int_equal(a->job, TUI_JOB_SANITIZE);
    assert_string_equal(a->job_what, "racecheck on your kernel");
    tui_app_on_job(a, "OK\ncompute-sanitizer racecheck ran your kernel once at size 2^20.\nResult: correct\n\n"
                      "racecheck found 1 problem:\n\n1. RAW race hazard on shared memory in reduce_sum\n", 0);
    assert_int_equal(a->overlay, TUI_OV_DETAILS);
    assert_string_equal(a->details_title, "racecheck on your kernel");
    assert_non_null(strstr(a->details, "1. RAW race hazard"));
    assert_string_equal(tui_log_recent(&a->log, 0)->text, "racecheck found 1 problem:");
    assert_int_equal(tui_log_recent(&a->log, 0)->level, TUI_LOG_WARN);
    key(a, TA_CANCEL);
    key(a, TA_MEMCHECK);
    tui_app_job_started(a);
    tui_app_on_job(a, "ERR\ncompute-sanitizer was not found: it comes with the CUDA toolkit", 1);
    assert_non_null(strstr(a->details, "compute-sanitizer was not found"));
    assert_int_equal(tui_log_recent(&a->log, 0)->level, TUI_LOG_ERROR);
    key(a, TA_CANCEL);
    /* no job while a run is on */
    key(a, TA_RUN_ALL);
    req = a->req.run;
    req.run = 9;
    tui_app_run_started(a, &req);
    assert_false(key(a, TA_MEMCHECK) & TUI_F_REQUEST);
    assert_non_null(strstr(tui_log_recent(&a->log, 0)->text, "run is in progress"));
    tui_app_on_done(a, 9);
    /* a lab without an exercise has nothing to check */
    a->focus = TUI_P_LABS;
    key(a, TA_DOWN);
    assert_false(key(a, TA_RACECHECK) & TUI_F_REQUEST);
    assert_non_null(strstr(tui_log_recent(&a->log, 0)->text, "no exercise to check"));

    unlink(path);
    snprintf(path, sizeof path, "%s/reduction", ws);
    rmdir(path);
    rmdir(ws);
}

/* ---- a lab of several exercises ---- */

static char m_id[] = "multi", m_title[] = "Several exercises", m_dir[] = "/nonexistent/labs/multi";
static char m_sz1[] = "2^20", m_sz2[] = "256", m_sz3[] = "512";
static char *m_lab_sizes[] = {m_sz1};
static char *m_two_sizes[] = {m_sz2, m_sz3};
static char m_one[] = "one", m_two[] = "two", m_two_t[] = "The second", m_sgemm[] = "sgemm",
            m_cublas[] = "cublas", m_naive[] = "naive", m_naive_k[] = "sgemm_naive",
            m_k1[] = "one/starter.cu", m_l1[] = "one/starter.lua", m_k2[] = "two/starter.cu",
            m_l2[] = "two/starter.lua";
static lab_variant m_two_variants[] = {{.id = m_naive, .title = m_naive, .kernel = m_naive_k, .why = NULL, .line = 1}};
static lab_exercise m_ex[2];
static lab lab_m;
static lab *m_labv[1];
static lab_set m_set;

static int setup_multi(void **state)
{
    tui_app *a = calloc(1, sizeof *a);
    memset(&lab_m, 0, sizeof lab_m);
    memset(m_ex, 0, sizeof m_ex);
    lab_m.id = m_id;
    lab_m.title = m_title;
    lab_m.problem = problem_a;
    lab_m.library = library_a;
    lab_m.dir = m_dir;
    lab_m.sizes = m_lab_sizes;
    lab_m.nsizes = 1;
    lab_m.time_limit_s = 30;
    lab_m.variants = variants;
    lab_m.nvariants = 1;
    m_ex[0] = (lab_exercise){.id = m_one, .title = m_one, .kernel = m_k1, .launcher = m_l1,
                             .problem = problem_a, .sizes = m_lab_sizes, .nsizes = 1};
    m_ex[1] = (lab_exercise){.id = m_two, .title = m_two_t, .kernel = m_k2, .launcher = m_l2,
                             .problem = m_sgemm, .library = m_cublas, .sizes = m_two_sizes,
                             .nsizes = 2, .variants = m_two_variants, .nvariants = 1};
    lab_m.exercises = m_ex;
    lab_m.nexercises = 2;
    m_labv[0] = &lab_m;
    m_set.v = m_labv;
    m_set.n = 1;
    tui_layout_compute(30, 100, 2, &lay);
    assert_true(tui_app_init(a, &m_set, true, NULL));
    a->workspace = "/nonexistent/ws";
    *state = a;
    return 0;
}

/* x picks the next exercise: its sizes, its rows (with the lab's rungs),
 * its runs (its own problem, library and rungs), its results kept apart. */
static void test_several_exercises(void **state)
{
    tui_app *a = *state;
    size_t idx[64];
    assert_ptr_equal(tui_app_exercise(a), &m_ex[0]);
    assert_string_equal(tui_app_size(a), "2^20");
    assert_int_equal(tui_app_rows(a, idx, 64), 2);     /* the lab's rung, exercise one */
    assert_string_equal(shown(a, 0)->variant, "interleaved");
    assert_string_equal(shown(a, 1)->exercise, "one");

    assert_true(key(a, TA_NEXT_EXERCISE) & TUI_F_REDRAW);
    assert_ptr_equal(tui_app_exercise(a), &m_ex[1]);
    assert_string_equal(tui_app_size(a), "256");
    assert_int_equal(tui_app_rows(a, idx, 64), 2);     /* its rung and its kernel at 256 */
    assert_string_equal(shown(a, 0)->variant, "naive");
    assert_string_equal(shown(a, 1)->variant, "exercise");
    assert_string_equal(shown(a, 1)->exercise, "two");
    key(a, TA_NEXT_SIZE);
    assert_string_equal(tui_app_size(a), "512");

    assert_true(key(a, TA_RUN_ALL) & TUI_F_REQUEST);
    run_request req = a->req.run;
    assert_string_equal(req.problem, "sgemm");
    assert_string_equal(req.library, "cublas");
    assert_string_equal(req.exercise, "two");
    assert_int_equal(req.nvariants, 1);
    assert_string_equal(req.variants[0].id, "naive");
    assert_string_equal(req.sizes[0], "512");
    assert_string_equal(req.exercise_kernel, "/nonexistent/labs/multi/two/starter.cu");
    req.run = 21;
    tui_app_run_started(a, &req);
    assert_int_equal(a->run_rows, 4);                  /* cpu, cublas, naive, exercise */
    run_result r = measured(21, "exercise", "512", RS_CORRECT);
    r.kind = RK_EXERCISE;
    snprintf(r.exercise, sizeof r.exercise, "two");
    tui_app_on_result(a, &r);
    tui_app_on_done(a, 21);
    const tui_row *mine = tui_runtable_find(&a->ls[0].table, "exercise", "512");
    assert_non_null(mine);
    assert_true(mine->has_result);
    assert_string_equal(mine->exercise, "two");

    key(a, TA_NEXT_EXERCISE);                          /* back to the first */
    assert_ptr_equal(tui_app_exercise(a), &m_ex[0]);
    assert_string_equal(tui_app_size(a), "2^20");
    assert_null(tui_runtable_find(&a->ls[0].table, "exercise", "512"));
    assert_true(key(a, TA_EDIT) & TUI_F_REQUEST);
    assert_int_equal(a->req.ex, 0);
}

/* ---- a lab of experiments and exercises (the basics lab's shape) ---- */

static char b_id[] = "basicsish", b_problem[] = "basics", b_dir[] = "/nonexistent/labs/basicsish";
static char b_x1[] = "divergence", b_x2[] = "fences", b_saxpy[] = "saxpy", b_copy[] = "copy",
            b_rung[] = "saxpy_grid_stride", b_k[] = "saxpy/starter.cu", b_l[] = "saxpy/starter.lua";
static char *b_sizes[] = {m_sz1, m_sz3};
static lab_variant b_variants[] = {{.id = b_x1, .title = b_x1, .kernel = b_x1, .why = NULL, .line = 1}, {.id = b_x2, .title = b_x2, .kernel = b_x2, .why = NULL, .line = 2}};
static lab_variant b_rungs[] = {{.id = b_rung, .title = b_rung, .kernel = b_rung, .why = NULL, .line = 3}};
static lab_exercise b_ex[1];
static lab lab_bx;
static lab *b_labv[1];
static lab_set b_set;

static int setup_basics(void **state)
{
    tui_app *a = calloc(1, sizeof *a);
    memset(&lab_bx, 0, sizeof lab_bx);
    lab_bx.id = b_id;
    lab_bx.title = b_id;
    lab_bx.problem = b_problem;
    lab_bx.dir = b_dir;
    lab_bx.time_limit_s = 60;
    lab_bx.variants = b_variants;
    lab_bx.nvariants = 2;
    b_ex[0] = (lab_exercise){.id = b_saxpy, .title = b_saxpy, .kernel = b_k, .launcher = b_l,
                             .problem = b_saxpy, .library = b_copy, .sizes = b_sizes, .nsizes = 2,
                             .variants = b_rungs, .nvariants = 1};
    lab_bx.exercises = b_ex;
    lab_bx.nexercises = 1;
    b_labv[0] = &lab_bx;
    b_set.v = b_labv;
    b_set.n = 1;
    tui_layout_compute(30, 100, 2, &lay);
    assert_true(tui_app_init(a, &b_set, true, NULL));
    a->workspace = "/nonexistent/ws";
    *state = a;
    return 0;
}

/* The experiments show above the exercise's rows; R runs the experiments
 * alone (a lab request), r on the exercise's rows runs the exercise as its
 * own problem, and each run's rows land where they belong. */
static void test_experiments_and_exercises(void **state)
{
    tui_app *a = *state;
    size_t idx[64];
    assert_string_equal(tui_app_size(a), "2^20");
    assert_int_equal(tui_app_rows(a, idx, 64), 4);    /* two experiments, the rung, yours */
    assert_string_equal(shown(a, 0)->variant, "divergence");
    assert_string_equal(shown(a, 1)->variant, "fences");
    assert_string_equal(shown(a, 3)->variant, "exercise");

    assert_true(key(a, TA_RUN_ALL) & TUI_F_REQUEST);
    run_request req = a->req.run;
    assert_string_equal(req.problem, "basics");
    assert_string_equal(req.exercise, "");
    assert_int_equal(req.nvariants, 2);
    assert_string_equal(req.exercise_kernel, "");
    req.run = 31;
    tui_app_run_started(a, &req);
    assert_int_equal(a->run_rows, 2);
    run_result r = measured(31, "div_warps", "4M threads", RS_CORRECT);
    tui_app_on_result(a, &r);
    tui_app_on_done(a, 31);
    assert_null(tui_runtable_find(&a->ls[0].table, "divergence", ""));   /* replaced */
    assert_non_null(tui_runtable_find(&a->ls[0].table, "div_warps", "4M threads"));

    a->focus = TUI_P_RUN;
    key(a, TA_END);                                    /* the last row: yours */
    assert_int_equal(a->ls[0].run_cursor, tui_app_rows(a, idx, 64) - 1);
    assert_string_equal(shown(a, a->ls[0].run_cursor)->variant, "exercise");
    assert_true(key(a, TA_RUN) & TUI_F_REQUEST);
    req = a->req.run;
    assert_string_equal(req.problem, "saxpy");
    assert_string_equal(req.library, "copy");
    assert_string_equal(req.exercise, "saxpy");
    assert_int_equal(req.nvariants, 1);
    assert_string_equal(req.exercise_kernel, "/nonexistent/labs/basicsish/saxpy/starter.cu");
    req.run = 32;
    tui_app_run_started(a, &req);
    assert_int_equal(a->run_rows, 4);                  /* cpu, copy, the rung, yours */
    r = measured(32, "exercise", "2^20", RS_CORRECT);
    r.kind = RK_EXERCISE;
    snprintf(r.exercise, sizeof r.exercise, "saxpy");
    tui_app_on_result(a, &r);
    tui_app_on_done(a, 32);
    assert_true(tui_runtable_find(&a->ls[0].table, "exercise", "2^20")->has_result);
    assert_non_null(tui_runtable_find(&a->ls[0].table, "div_warps", "4M threads"));
}

static void test_messages_view(void **state)
{
    tui_app *a = *state;
    for (int i = 0; i < 30; i++)
        tui_log_add(&a->log, TUI_LOG_WARN, "labs/bad%02d/lab.lua:4: variant 'ghost': no shipped "
                                           "kernel named 'reduce_ghost_%02d'", i, i);
    int vis = tui_app_messages_visible(&lay);
    int total = (int)tui_log_lines(&a->log, tui_app_messages_width(&lay));
    assert_true(total >= 30 && total > vis);
    assert_true(key(a, TA_MESSAGES) & TUI_F_REDRAW);
    assert_int_equal(a->overlay, TUI_OV_MESSAGES);
    assert_int_equal(a->msg_scroll, total - vis);      /* opens on the newest */
    key(a, TA_DOWN);
    assert_int_equal(a->msg_scroll, total - vis);      /* not past the end */
    key(a, TA_HOME);
    assert_int_equal(a->msg_scroll, 0);
    key(a, TA_UP);
    assert_int_equal(a->msg_scroll, 0);
    key(a, TA_PAGE_DOWN);
    assert_int_equal(a->msg_scroll, vis - 1 < total - vis ? vis - 1 : total - vis);
    key(a, TA_END);
    assert_int_equal(a->msg_scroll, total - vis);
    /* a narrower terminal wraps into more lines: the end moves with it */
    tui_layout narrow;
    tui_layout_compute(30, 60, 2, &narrow);
    tui_app_relayout(a, &narrow);
    assert_true(a->msg_scroll <= (int)tui_log_lines(&a->log, tui_app_messages_width(&narrow)));
    key(a, TA_CANCEL);
    assert_int_equal(a->overlay, TUI_OV_NONE);
    /* a click on the messages pane opens them too */
    tui_rect r = lay.pane[TUI_P_LOG];
    assert_true(tui_app_mouse(a, &lay, r.y + 1, r.x + 2, TUI_MOUSE_CLICK) & TUI_F_REDRAW);
    assert_int_equal(a->overlay, TUI_OV_MESSAGES);
    key(a, TA_MESSAGES);
    assert_int_equal(a->overlay, TUI_OV_NONE);
}

static void test_relayout(void **state)
{
    tui_app *a = *state;
    tui_labstate *s = tui_app_state(a);
    /* scrolled down in a smaller window: a larger one shows every row again */
    key(a, TA_NEXT_PANE);
    key(a, TA_NEXT_PANE);
    key(a, TA_END);
    assert_int_equal(s->run_cursor, 2);
    s->run_scroll = 2;
    s->ms_scroll = 1;
    tui_app_relayout(a, &lay);
    assert_int_equal(s->run_scroll, 0);
    assert_int_equal(s->run_cursor, 2);
    assert_int_equal(s->ms_scroll, 0);
    /* a cursor past the rows comes back to the last one */
    s->run_cursor = 7;
    tui_app_relayout(a, &lay);
    assert_int_equal(s->run_cursor, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_navigation, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lesson_steps, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sizes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_run_all, setup, teardown),
        cmocka_unit_test_setup_teardown(test_run_selected, setup, teardown),
        cmocka_unit_test_setup_teardown(test_details_diagnosis, setup, teardown),
        cmocka_unit_test_setup_teardown(test_exercise_files, setup, teardown),
        cmocka_unit_test_setup_teardown(test_quiz, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mouse, setup, teardown),
        cmocka_unit_test_setup_teardown(test_device, setup, teardown),
        cmocka_unit_test(test_empty),
        cmocka_unit_test_setup_teardown(test_profiling_rows, setup_prof, teardown),
        cmocka_unit_test_setup_teardown(test_timeline_view, setup_prof, teardown),
        cmocka_unit_test_setup_teardown(test_compiler_flood, setup, teardown),
        cmocka_unit_test_setup_teardown(test_timeout_on_a_lab_row, setup, teardown),
        cmocka_unit_test_setup_teardown(test_compile_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sweep_key, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tools, setup, teardown),
        cmocka_unit_test_setup_teardown(test_several_exercises, setup_multi, teardown),
        cmocka_unit_test_setup_teardown(test_experiments_and_exercises, setup_basics, teardown),
        cmocka_unit_test_setup_teardown(test_messages_view, setup, teardown),
        cmocka_unit_test_setup_teardown(test_relayout, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
