/* The profiling lab's exercise without a CUDA device: the engine's rows
 * for the pipeline problem and for a profiling request with an exercise
 * (the starter and the learner's rows say "no CUDA device found", the CPU
 * rows check correct), bad sizes, check-only requests; host Buffers and
 * their views in Lua; `cudalab report profiling` (this binary serves as
 * its worker) saying there is no device, exiting 3 and writing nothing,
 * and its usage errors; the lab's milestones on hand-made rows; `cudalab
 * check` on the lab.  CUDA_VISIBLE_DEVICES is emptied first, so this holds
 * on GPU machines too. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <lua.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd_report.h"
#include "core/paths.h"
#include "lab/labmodel.h"
#include "lab/milestone.h"
#include "lab/sandbox.h"
#include "support.h"
#include "engine/engine.h"
#include "luagpu/luagpu.h"
#include "engine/pipeline.h"
#include "worker/dispatch.h"
#include "worker/workerloop.h"

static char g_tmp[CL_PATH_MAX], g_home[CL_PATH_MAX];
static char g_kernel[CL_PATH_MAX], g_launcher[CL_PATH_MAX];

static void request(run_request *req, const char *problem, bool exercise)
{
    memset(req, 0, sizeof *req);
    req->run = 3;
    snprintf(req->lab, sizeof req->lab, "profiling");
    snprintf(req->problem, sizeof req->problem, "%s", problem);
    req->cpu = true;
    req->budget_s = 0.05;
    if (exercise) {
        snprintf(req->exercise_kernel, sizeof req->exercise_kernel, "%s", g_kernel);
        snprintf(req->exercise_launcher, sizeof req->exercise_launcher, "%s", g_launcher);
    }
}

static void run(const run_request *req, ts_rows *c)
{
    assert_true(ts_engine_run(req, c, NULL));
}

/* Row i is variant at size with status; its message starts with text. */
static void expect_row(const ts_rows *c, int i, const char *variant, result_kind kind,
                       const char *size, result_status status, const char *text)
{
    if (i >= c->nrows) {
        ts_rows_dump(c);
        fail_msg("row %d (%s at %s) missing: only %d rows", i, variant, size, c->nrows);
    }
    const run_result *r = &c->rows[i];
    if (strcmp(r->variant, variant) != 0 || r->kind != kind || strcmp(r->size, size) != 0 ||
        r->status != status || strncmp(r->message, text, strlen(text)) != 0) {
        ts_rows_dump(c);
        fail_msg("row %d: expected %s (%s) at %s: %s: \"%s...\", got %s (%s)", i, variant,
                 result_kind_name(kind), size, result_status_name(status), text, r->variant,
                 result_kind_name(r->kind));
    }
}

static void expect_pipeline_rows(const ts_rows *c, int first, const char *size, bool starter)
{
    int i = first;
    if (starter)
        expect_row(c, i++, "starter", RK_KERNEL, size, RS_NO_DEVICE, "no CUDA device found");
    expect_row(c, i++, "exercise", RK_EXERCISE, size, RS_NO_DEVICE, "no CUDA device found");
    expect_row(c, i++, "cpu", RK_CPU, size, RS_CORRECT, "");
    expect_row(c, i, "cpu_mt", RK_CPU_MT, size, RS_CORRECT, "");
    for (int k = first; k <= i; k++) {
        assert_true(c->rows[k].speedup_starter == 0.0);
        assert_false(c->rows[k].has_report);
    }
    assert_true(c->rows[i - 1].median_ms > 0.0 && c->rows[i - 1].gbps > 0.0);
    assert_true(c->rows[i - 1].pct_peak_measured < 0.0);
}

/* ---- the engine ------------------------------------------------------------ */

static void test_pipeline_request(void **state)
{
    (void)state;
    static run_request req;
    static ts_rows c;
    request(&req, "pipeline", true);
    ts_add_size(&req, "4099x7");
    ts_add_size(&req, "1x1");
    run(&req, &c);
    assert_int_equal(c.nrows, 8);
    expect_pipeline_rows(&c, 0, "4099x7", true);
    expect_pipeline_rows(&c, 4, "1x1", true);

    /* a variant that is neither "starter" nor "timeline" is a row of its own */
    request(&req, "pipeline", true);
    ts_add_variant(&req, "timeline", NULL);
    ts_add_variant(&req, "bogus", NULL);
    ts_add_size(&req, "64x3");
    run(&req, &c);
    assert_int_equal(c.nrows, 5);
    expect_row(&c, 0, "bogus", RK_KERNEL, "64x3", RS_NO_DEVICE, "no CUDA device found");
    expect_pipeline_rows(&c, 1, "64x3", true);

    /* the starter alone, without the learner's kernel */
    request(&req, "pipeline", false);
    ts_add_variant(&req, "starter", NULL);
    ts_add_size(&req, "64x3");
    req.cpu = false;
    run(&req, &c);
    assert_int_equal(c.nrows, 1);
    expect_row(&c, 0, "starter", RK_KERNEL, "64x3", RS_NO_DEVICE, "no CUDA device found");

    /* check-only (compute-sanitizer) runs leave the starter out */
    request(&req, "pipeline", true);
    req.check_only = true;
    ts_add_size(&req, "64x3");
    run(&req, &c);
    assert_int_equal(c.nrows, 3);
    expect_row(&c, 0, "exercise", RK_EXERCISE, "64x3", RS_NO_DEVICE, "no CUDA device found");

    /* the reference solution compiles and its launcher loads: its row gets
     * as far as the missing device */
    request(&req, "pipeline", true);
    ts_data_path(req.exercise_kernel, sizeof req.exercise_kernel, "pipeline/solution/pipeline.cu");
    ts_data_path(req.exercise_launcher, sizeof req.exercise_launcher,
                 "pipeline/solution/pipeline.lua");
    req.cpu = false;
    ts_add_size(&req, "64x3");
    run(&req, &c);
    assert_int_equal(c.nrows, 2);
    expect_row(&c, 0, "starter", RK_KERNEL, "64x3", RS_NO_DEVICE, "no CUDA device found");
    expect_row(&c, 1, "exercise", RK_EXERCISE, "64x3", RS_NO_DEVICE, "no CUDA device found");

    /* a size the problem cannot read: every row says why */
    request(&req, "pipeline", true);
    ts_add_size(&req, "1048576");
    run(&req, &c);
    assert_int_equal(c.nrows, 4);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(c.rows[i].status, RS_ERROR);
        assert_true(ts_contains(c.rows[i].message, "pipeline size '1048576': give ROWSxFEATURES"));
    }
    assert_string_equal(c.rows[0].variant, "starter");
}

static void test_profiling_request(void **state)
{
    (void)state;
    static run_request req;
    static ts_rows c;
    /* experiments named, and the exercise at the lab's sizes */
    request(&req, "profiling", true);
    ts_add_variant(&req, "transfers", NULL);
    ts_add_size(&req, "300x16");
    run(&req, &c);
    assert_int_equal(c.nrows, 5);
    expect_row(&c, 0, "transfers", RK_KERNEL, "", RS_NO_DEVICE, "no CUDA device found");
    expect_pipeline_rows(&c, 1, "300x16", true);

    /* the exercise alone: no experiment runs */
    request(&req, "profiling", true);
    ts_add_size(&req, "300x16");
    run(&req, &c);
    assert_int_equal(c.nrows, 4);
    expect_pipeline_rows(&c, 0, "300x16", true);

    /* no exercise: the experiments only, whatever the sizes */
    request(&req, "profiling", false);
    ts_add_variant(&req, "stride", NULL);
    ts_add_size(&req, "300x16");
    run(&req, &c);
    assert_int_equal(c.nrows, 1);
    expect_row(&c, 0, "stride", RK_KERNEL, "", RS_NO_DEVICE, "no CUDA device found");

    /* no sizes: the pipeline's default size */
    request(&req, "profiling", true);
    req.cpu = false;
    run(&req, &c);
    assert_int_equal(c.nrows, 2);
    expect_row(&c, 0, "starter", RK_KERNEL, PIPELINE_DEFAULT_SIZE, RS_NO_DEVICE,
               "no CUDA device found");
    expect_row(&c, 1, "exercise", RK_EXERCISE, PIPELINE_DEFAULT_SIZE, RS_NO_DEVICE,
               "no CUDA device found");
}

/* ---- host Buffers in Lua ------------------------------------------------------ */

static void test_host_buffers(void **state)
{
    (void)state;
    cl_err e = {{0}};
    lab_state *s = sandbox_new(0, 0, &e);
    assert_non_null(s);
    assert_true(luagpu_install(s, &e));
    lua_State *L = sandbox_lua(s);
    float table[10];
    for (int i = 0; i < 10; i++)
        table[i] = (float)i;
    luagpu_push_borrowed_host(L, table, 10, false);
    assert_true(sandbox_set_global(s, "b", &e));

    const char *views =
        "local v = b:view(2, 5)\n"
        "local w = v:view(1, 3)\n"
        "local t = w:download()\n"
        "w:upload({-1, -2})\n"
        "v:view(4, 1):fill(7)\n"
        "return b.where, #b, b.size, #v, v.where, t[1] + t[2] * 10 + t[3] * 100, tostring(w)\n";
    if (!ts_lua_run(s, g_tmp, "views", views, 7, &e))
        fail_msg("%s", e.msg);
    assert_string_equal(lua_tostring(L, -7), "pageable");
    assert_int_equal(lua_tointeger(L, -6), 10);
    assert_int_equal(lua_tointeger(L, -5), 40);
    assert_int_equal(lua_tointeger(L, -4), 5);
    assert_string_equal(lua_tostring(L, -3), "pageable");
    assert_true(lua_tonumber(L, -2) == 3.0 + 40.0 + 500.0);
    assert_true(ts_contains(lua_tostring(L, -1), "3 x f32, 12 B, pageable; a view from element 3"));
    lua_pop(L, 7);
    /* w is elements 3..5 of b; v:view(4, 1) is element 6 */
    const float want[10] = {0, 1, 2, -1, -2, 5, 7, 7, 8, 9};
    for (int i = 0; i < 10; i++)
        assert_true(table[i] == (i == 7 ? 7.0f : want[i]));

    static const struct {
        const char *code, *msg;
    } bad[] = {
        {"b:view(8, 3)\n", "view(8, 3) of a buffer of 10 elements"},
        {"b:view(-1, 1)\n", "view(-1, 1) of a buffer of 10 elements"},
        {"b:view(0, 0)\n", "view(0, 0)"},
        {"b:view(1, 2):free()\n", "is a view of another one"},
        {"b:free()\n", "belongs to cudalab"},
        {"b:view(0, 2):upload({1, 2, 3})\n", "upload of 3 values into a buffer of 2"},
        {"gpu.host_alloc(4)\n", "no CUDA device found"},
        {"gpu.copy(b, b)\n", "no CUDA device found"},
        {"gpu.wait(nil)\n", "no CUDA device found"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char name[32];
        snprintf(name, sizeof name, "bad%zu", i);
        err_clear(&e);
        assert_false(ts_lua_run(s, g_tmp, name, bad[i].code, 0, &e));
        assert_true(ts_contains(e.msg, bad[i].msg));
    }

    /* a view kept past the size reads as freed with its base */
    if (!ts_lua_run(s, g_tmp, "keep", "kept = b:view(1, 1)\nreturn kept\n", 1, &e))
        fail_msg("%s", e.msg);
    lua_setglobal(L, "kept_view");
    luagpu_release_borrowed(L);
    err_clear(&e);
    assert_false(ts_lua_run(s, g_tmp, "after", "return b:download()\n", 0, &e));
    assert_true(ts_contains(e.msg, "the buffer was freed"));
    lua_getglobal(L, "kept_view");
    assert_true(lua_isuserdata(L, -1));
    lua_pop(L, 1);
    sandbox_free(s);
}

/* ---- the report command --------------------------------------------------------- */

static void report(ts_output *c, const char *const *words)
{
    static cli_ctx ctx;
    ts_cli_ctx(&ctx, g_home, 120);
    ts_capture_cmd(c, cmd_report, &ctx, "report", words);
}

static void test_report_without_device(void **state)
{
    (void)state;
    ts_output c = {0};
    char ws[CL_PATH_MAX], md[CL_PATH_MAX];
    snprintf(ws, sizeof ws, "%s/ws", g_tmp);
    paths_set_workspace(ws);
    const char *w[] = {"profiling", "--size", "512x4", NULL};
    report(&c, w);
    if (c.status != 3)
        fail_msg("rc %d\nstdout:\n%s\nstderr:\n%s", c.status, c.out, c.err);
    assert_true(ts_contains(c.err, "no CUDA device found"));
    assert_true(ts_contains(c.err, "nothing was written"));
    snprintf(md, sizeof md, "%s/profiling/report.md", ws);
    assert_false(paths_is_file(md));
    /* the learner's files were prepared all the same */
    snprintf(md, sizeof md, "%s/profiling/starter.lua", ws);
    assert_true(paths_is_file(md));

    static const struct {
        const char *w[4];
        const char *msg;
    } usage[] = {
        {{NULL}, "report: which lab?"},
        {{"reduction", NULL}, "lab 'reduction' has no profiling report"},
        {{"nope", NULL}, "no lab called 'nope'"},
        {{"profiling", "--bogus", NULL}, "unknown option '--bogus'"},
        {{"profiling", "--size", NULL}, "--size needs a size"},
        {{"profiling", "--budget", "-1", NULL}, "--budget needs a positive number"},
    };
    for (size_t i = 0; i < sizeof usage / sizeof usage[0]; i++) {
        report(&c, usage[i].w);
        assert_int_equal(c.status, 2);
        assert_true(ts_contains(c.err, usage[i].msg));
    }
    ts_output_free(&c);
    paths_set_workspace(NULL);
}

/* ---- the lab -------------------------------------------------------------------- */

static void exercise_row(run_result *r, result_status st, double x_starter, double x_cpu,
                         bool report_written)
{
    run_result_init(r);
    snprintf(r->variant, sizeof r->variant, "exercise");
    snprintf(r->size, sizeof r->size, "1048576x16");
    r->kind = RK_EXERCISE;
    r->status = st;
    r->median_ms = 5.0;
    r->samples = 10;
    r->speedup_starter = x_starter;
    r->speedup_cpu = x_cpu;
    r->has_report = report_written;
}

static void expect_ms(lab *l, size_t i, const run_result *rows, size_t n, ms_state want,
                      const char *shown)
{
    ms_eval ev;
    lab_milestone_eval(l, i, rows, n, &ev);
    if (ev.state != want || (shown && strcmp(ev.shown, shown) != 0))
        fail_msg("milestone %s: %s \"%s\" (%s), expected %s \"%s\"", l->milestones[i].id,
                 ms_state_name(ev.state), ev.shown, ev.error, ms_state_name(want),
                 shown ? shown : "");
}

static void test_milestones(void **state)
{
    (void)state;
    char path[CL_PATH_MAX];
    paths_join(path, sizeof path, g_home, "labs/profiling/lab.lua");
    lab *l = ts_lab_load(path, g_home, NULL);
    assert_non_null(l);
    assert_string_equal(l->milestones[0].id, "optimised");
    assert_string_equal(l->milestones[1].id, "pipeline10x");

    run_result r[2];
    expect_ms(l, 0, NULL, 0, MS_PENDING, ">= 3x");
    expect_ms(l, 1, NULL, 0, MS_PENDING, ">= 10x");
    exercise_row(&r[0], RS_CORRECT, 3.5, 12.0, true);
    expect_ms(l, 0, r, 1, MS_REACHED, "3.50x >= 3x");
    expect_ms(l, 1, r, 1, MS_REACHED, "12x >= 10x");
    exercise_row(&r[0], RS_CORRECT, 3.5, 2.5, false);
    expect_ms(l, 0, r, 1, MS_MISSED, "3.50x >= 3x");
    expect_ms(l, 1, r, 1, MS_MISSED, "2.50x >= 10x");
    exercise_row(&r[0], RS_CORRECT, 2.9, 2.5, true);
    expect_ms(l, 0, r, 1, MS_MISSED, "2.90x >= 3x");
    exercise_row(&r[0], RS_WRONG, 30.0, 30.0, true);
    expect_ms(l, 0, r, 1, MS_MISSED, NULL);
    expect_ms(l, 1, r, 1, MS_MISSED, NULL);
    /* the starter's own row does not count as the learner's */
    exercise_row(&r[0], RS_CORRECT, 1.0, 0.2, false);
    r[0].kind = RK_KERNEL;
    snprintf(r[0].variant, sizeof r[0].variant, "starter");
    expect_ms(l, 0, r, 1, MS_PENDING, NULL);
    lab_free(l);
}

static void test_check_command(void **state)
{
    (void)state;
    const char *exe = getenv("CUDALAB_EXE");
    if (!exe || !*exe) {
        print_message("CUDALAB_EXE is not set: the check command is not run\n");
        return;
    }
    ts_output o = {0};
    if (ts_shell(&o, true, "'%s' check '%s/labs/profiling'", exe, g_home) != 0)
        fail_msg("cudalab check failed:\n%s", o.out);
    assert_true(ts_contains(o.out, "1 lab ok"));
    ts_output_free(&o);
}

int main(int argc, char **argv)
{
    setenv("CUDA_VISIBLE_DEVICES", "", 1);
    if (argc >= 2 && strcmp(argv[1], "worker") == 0) {
        /* the worker side for cmd_report: the real loop with the real engine */
        const workerloop_engine real = {engine_probe, dispatch_run, engine_shutdown};
        return ts_serve_worker(&real);
    }
    const char *home = getenv("CUDALAB_HOME");
    if (!home) {
        fprintf(stderr, "CUDALAB_HOME is not set\n");
        return 1;
    }
    snprintf(g_home, sizeof g_home, "%s", home);
    if (!ts_tmpdir(g_tmp, sizeof g_tmp, "pipe-nodev"))
        return 1;
    setenv("XDG_DATA_HOME", g_tmp, 1);
    paths_join(g_kernel, sizeof g_kernel, g_home, "labs/profiling/starter.cu");
    paths_join(g_launcher, sizeof g_launcher, g_home, "labs/profiling/starter.lua");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pipeline_request),
        cmocka_unit_test(test_profiling_request),
        cmocka_unit_test(test_host_buffers),
        cmocka_unit_test(test_report_without_device),
        cmocka_unit_test(test_milestones),
        cmocka_unit_test(test_check_command),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    engine_shutdown();
    if (!ts_rm_rf(g_tmp))
        fprintf(stderr, "could not remove %s\n", g_tmp);
    return rc;
}
