/* The pipeline problem without a CUDA device: the engine's rows for the
 * pipeline lab (every CPU row checks correct, every GPU row, the learner's
 * seven steps and end to end, says "no CUDA device found"), unknown steps,
 * the starter beside a profiling request with an exercise, check-only
 * requests, bad sizes; the lab's starter and the reference solution
 * compiled by NVRTC with every kernel their launchers use; host Buffers
 * and their views in Lua; `cudalab report profiling` (this binary serves
 * as its worker) saying there is no device, exiting 3 and writing
 * nothing, and its usage errors; the profiling lab's milestone on
 * hand-made rows; `cudalab check` on both labs.  CUDA_VISIBLE_DEVICES is
 * emptied first, so this holds on GPU machines too. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <lua.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/pipeline_files.h"
#include "cli/cmd_report.h"
#include "core/paths.h"
#include "gpu/nvrtc.h"
#include "lab/labmodel.h"
#include "lab/milestone.h"
#include "lab/sandbox.h"
#include "support.h"
#include "engine/engine.h"
#include "luagpu/luagpu.h"
#include "worker/dispatch.h"
#include "worker/workerloop.h"

static char g_tmp[CL_PATH_MAX], g_home[CL_PATH_MAX];
static char g_kernel[CL_PATH_MAX], g_launcher[CL_PATH_MAX];

static const char *const own_steps[] = {"fill",    "filter", "transform", "standardize",
                                        "binning", "encode", "groupby"};

static void request(run_request *req, const char *lab_id, const char *problem, bool exercise)
{
    memset(req, 0, sizeof *req);
    req->run = 3;
    snprintf(req->lab, sizeof req->lab, "%s", lab_id);
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

/* The row variant at size has status and kind, and its message holds text. */
static void expect(const ts_rows *c, const char *variant, const char *size, result_kind kind,
                   result_status status, const char *text)
{
    const run_result *r = ts_row(c, variant, size);
    if (!r || r->kind != kind || r->status != status || !strstr(r->message, text)) {
        ts_rows_dump(c);
        fail_msg("%s at %s: expected %s (%s) with \"%s\", got %s", variant, size,
                 result_status_name(status), result_kind_name(kind), text,
                 r ? result_status_name(r->status) : "no row");
    }
}

/* Every CPU row at size correct and measured. */
static void expect_cpu(const ts_rows *c, const char *size)
{
    for (int k = 0; pipeline_step_name(k); k++)
        for (int mt = 0; mt < 2; mt++) {
            char id[64];
            snprintf(id, sizeof id, "%s.%s", mt ? "cpu_mt" : "cpu", pipeline_step_name(k));
            expect(c, id, size, mt ? RK_CPU_MT : RK_CPU, RS_CORRECT, "");
            const run_result *r = ts_row(c, id, size);
            assert_true(r->median_ms > 0.0 && r->samples >= 1 && r->gbps > 0.0);
        }
    expect(c, "cpu", size, RK_CPU, RS_CORRECT, "every step checked");
    expect(c, "cpu_mt", size, RK_CPU_MT, RS_CORRECT, "every step checked");
}

/* The learner's rows at size, each an error saying why. */
static void expect_mine(const ts_rows *c, const char *size, const char *why)
{
    result_status status = strstr(why, "no CUDA device") ? RS_NO_DEVICE : RS_ERROR;
    for (size_t k = 0; k < sizeof own_steps / sizeof own_steps[0]; k++) {
        char id[64];
        snprintf(id, sizeof id, "exercise.%s", own_steps[k]);
        expect(c, id, size, RK_EXERCISE, status, why);
    }
    expect(c, "exercise", size, RK_EXERCISE, status, why);
}

/* ---- the engine ------------------------------------------------------------ */

static void test_pipeline_request(void **state)
{
    (void)state;
    static run_request req;
    static ts_rows c;
    request(&req, "pipeline", "pipeline", true);
    ts_add_size(&req, "4099");
    ts_add_size(&req, "1");
    run(&req, &c);
    assert_int_equal(c.nrows, 2 * 28);
    for (int s = 0; s < 2; s++) {
        const char *size = s ? "1" : "4099";
        expect_cpu(&c, size);
        expect_mine(&c, size, "no CUDA device found");
    }
    assert_int_equal(c.rows[0].kind, RK_CPU);
    assert_string_equal(c.rows[27].variant, "exercise");

    /* the lab's steps, an unknown one and the starter; "timeline" is no row */
    request(&req, "pipeline", "pipeline", true);
    ts_add_variant(&req, "fill", NULL);
    ts_add_variant(&req, "pipeline", NULL);
    ts_add_variant(&req, "bogus", NULL);
    ts_add_variant(&req, "timeline", NULL);
    ts_add_variant(&req, "starter", NULL);
    ts_add_size(&req, "64");
    req.cpu = false;
    run(&req, &c);
    assert_int_equal(c.nrows, 3 + 1 + 8);
    expect(&c, "fill", "64", RK_KERNEL, RS_NO_DEVICE, "no CUDA device found");
    expect(&c, "pipeline", "64", RK_KERNEL, RS_NO_DEVICE, "no CUDA device found");
    expect(&c, "bogus", "64", RK_KERNEL, RS_NO_DEVICE, "no CUDA device found");
    expect(&c, "starter", "64", RK_KERNEL, RS_NO_DEVICE, "no CUDA device found");
    expect_mine(&c, "64", "no CUDA device found");

    /* check-only (compute-sanitizer) runs */
    request(&req, "pipeline", "pipeline", true);
    req.check_only = true;
    req.cpu = false;
    ts_add_size(&req, "64");
    run(&req, &c);
    assert_int_equal(c.nrows, 8);
    expect_mine(&c, "64", "no CUDA device found");

    /* the reference solution compiles and its launcher loads: its rows get
     * as far as the missing device */
    request(&req, "pipeline", "pipeline", true);
    ts_data_path(req.exercise_kernel, sizeof req.exercise_kernel, "features/pipeline/solution/pipeline.cu");
    ts_data_path(req.exercise_launcher, sizeof req.exercise_launcher,
                 "features/pipeline/solution/pipeline.lua");
    req.cpu = false;
    ts_add_size(&req, "64");
    run(&req, &c);
    assert_int_equal(c.nrows, 8);
    expect_mine(&c, "64", "no CUDA device found");

    /* sizes the problem cannot read: every row says why */
    static const struct {
        const char *size, *msg;
    } bad[] = {
        {"1048576x16", "pipeline size '1048576x16': give ROWS, a number of table rows"},
        {"0", "pipeline size '0': 0 must be at least 1"},
        {"2^27+1", "2^27+1 is larger than the limit 134217728"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        request(&req, "pipeline", "pipeline", true);
        ts_add_variant(&req, "fill", NULL);
        ts_add_size(&req, bad[i].size);
        run(&req, &c);
        assert_int_equal(c.nrows, 1 + 8 + 2);
        for (int r = 0; r < c.nrows; r++) {
            assert_int_equal(c.rows[r].status, RS_ERROR);
            assert_true(ts_contains(c.rows[r].message, bad[i].msg));
        }
    }
}

static void test_profiling_request(void **state)
{
    (void)state;
    static run_request req;
    static ts_rows c;
    /* experiments named, then the exercise with the starter beside it */
    request(&req, "profiling", "profiling", true);
    ts_add_variant(&req, "transfers", NULL);
    ts_add_size(&req, "300");
    run(&req, &c);
    assert_int_equal(c.nrows, 1 + 20 + 1 + 8);
    expect(&c, "transfers", "", RK_KERNEL, RS_NO_DEVICE, "no CUDA device found");
    expect(&c, "starter", "300", RK_KERNEL, RS_NO_DEVICE, "no CUDA device found");
    expect_cpu(&c, "300");
    expect_mine(&c, "300", "no CUDA device found");

    /* no exercise: the experiments only, whatever the sizes */
    request(&req, "profiling", "profiling", false);
    ts_add_variant(&req, "stride", NULL);
    ts_add_size(&req, "300");
    run(&req, &c);
    assert_int_equal(c.nrows, 1);
    expect(&c, "stride", "", RK_KERNEL, RS_NO_DEVICE, "no CUDA device found");

    /* no sizes: the pipeline's default size */
    request(&req, "profiling", "profiling", true);
    req.cpu = false;
    run(&req, &c);
    assert_int_equal(c.nrows, 9);
    expect(&c, "starter", PIPELINE_DEFAULT_SIZE, RK_KERNEL, RS_NO_DEVICE, "no CUDA device found");
    expect_mine(&c, PIPELINE_DEFAULT_SIZE, "no CUDA device found");
}

/* ---- the kernel files --------------------------------------------------------- */

static void expect_kernels(const char *path, const char *const *names, size_t n)
{
    nvrtc_output out;
    cl_err e = {{0}};
    nvrtc_opts o = {.arch = "sm_90", .no_cache = true};
    if (!nvrtc_compile_opts(path, &o, &out, &e))
        fail_msg("%s: %s", path, e.msg);
    if (out.compile_error) {
        char buf[4096] = "";
        for (size_t i = 0; i < out.ndiags; i++)
            nvrtc_diag_format(&out.diags[i], buf + strlen(buf), sizeof buf - strlen(buf));
        fail_msg("%s does not compile:\n%s", path, buf);
    }
    for (size_t i = 0; i < n; i++) {
        bool found = false;
        for (size_t k = 0; k < out.nkernels; k++)
            found |= strcmp(out.kernels[k].name, names[i]) == 0;
        if (!found)
            fail_msg("%s: no kernel %s", path, names[i]);
    }
    for (size_t i = 0; i < out.ndiags; i++)
        assert_true(out.diags[i].severity != NVRTC_SEV_WARNING);
    nvrtc_output_free(&out);
}

static void test_kernel_files(void **state)
{
    (void)state;
    static const char *const starter[] = {
        "sel_hist",    "sel_pick",      "fill_gaps",   "keep_flags", "scan_one_block",
        "scatter_rows", "transform_rows", "column_stats", "zscores",   "store_edge",
        "bins",        "zone_counts",   "encode_cols", "zone_sums",  "zone_means",
        "target_encode",
    };
    expect_kernels(g_kernel, starter, sizeof starter / sizeof starter[0]);
    static const char *const solution[] = {
        "sel_ranks", "sel_hist",    "sel_pick",  "fill_gaps", "store_edges",   "keep_count",
        "scan_counts", "keep_scatter", "transform_rows", "col_sums", "zscores", "bins",
        "zone_hist", "encode_cols", "zone_sums", "zone_means", "target_encode",
    };
    char path[CL_PATH_MAX];
    ts_data_path(path, sizeof path, "features/pipeline/solution/pipeline.cu");
    expect_kernels(path, solution, sizeof solution / sizeof solution[0]);
    /* the profiling lab runs the same starter */
    char prof[CL_PATH_MAX];
    paths_join(prof, sizeof prof, g_home, "labs/profiling/starter.cu");
    assert_true(ts_same_file(prof, g_kernel));
    paths_join(prof, sizeof prof, g_home, "labs/profiling/starter.lua");
    assert_true(ts_same_file(prof, g_launcher));
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
    luagpu_push_borrowed_host(L, table, 10, LUAGPU_F32);
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
    const char *w[] = {"profiling", "--size", "512", NULL};
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
        {{"profiling", "--size", NULL}, "--size needs a number of rows"},
        {{"profiling", "--budget", "-1", NULL}, "--budget needs a number of seconds from 0.000001"},
    };
    for (size_t i = 0; i < sizeof usage / sizeof usage[0]; i++) {
        report(&c, usage[i].w);
        assert_int_equal(c.status, 2);
        assert_true(ts_contains(c.err, usage[i].msg));
    }
    ts_output_free(&c);
    paths_set_workspace(NULL);
}

/* ---- the labs ------------------------------------------------------------------- */

static void exercise_row(run_result *r, result_status st, double x_starter, bool report_written)
{
    run_result_init(r);
    snprintf(r->variant, sizeof r->variant, "exercise");
    snprintf(r->size, sizeof r->size, "2^22");
    r->kind = RK_EXERCISE;
    r->status = st;
    r->median_ms = 5.0;
    r->samples = 10;
    r->speedup_starter = x_starter;
    r->speedup_cpu = 2.0;
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

/* The shipped lab called id, loaded (the test fails when it does not load). */
static lab *shipped_lab(const char *id)
{
    char rel[64], path[CL_PATH_MAX];
    snprintf(rel, sizeof rel, "labs/%s/lab.lua", id);
    paths_join(path, sizeof path, g_home, rel);
    lab *l = ts_lab_load(path, g_home, NULL);
    assert_non_null(l);
    return l;
}

static void test_milestones(void **state)
{
    (void)state;
    lab *l = shipped_lab("profiling");
    assert_int_equal(l->nmilestones, 1);
    assert_string_equal(l->milestones[0].id, "optimised");

    run_result r[2];
    expect_ms(l, 0, NULL, 0, MS_PENDING, "target: >= 3x");
    exercise_row(&r[0], RS_CORRECT, 3.5, true);
    expect_ms(l, 0, r, 1, MS_REACHED, "3.50x >= 3x");
    /* a miss says which condition failed, never a passing figure */
    exercise_row(&r[0], RS_CORRECT, 3.5, false);
    expect_ms(l, 0, r, 1, MS_MISSED,
              "no report.md beside your kernel: write it with 'cudalab report profiling'");
    exercise_row(&r[0], RS_CORRECT, 2.9, true);
    expect_ms(l, 0, r, 1, MS_MISSED, "speedup_starter 2.9x, needs >= 3x");
    exercise_row(&r[0], RS_WRONG, 30.0, true);
    expect_ms(l, 0, r, 1, MS_MISSED, NULL);
    /* a step row of the learner's does not stand for the whole pipeline */
    exercise_row(&r[0], RS_CORRECT, 3.5, true);
    exercise_row(&r[1], RS_CORRECT, 0.0, false);
    snprintf(r[1].variant, sizeof r[1].variant, "exercise.fill");
    expect_ms(l, 0, r, 2, MS_REACHED, "3.50x >= 3x");
    /* the starter's own row does not count as the learner's */
    exercise_row(&r[0], RS_CORRECT, 1.0, false);
    r[0].kind = RK_KERNEL;
    snprintf(r[0].variant, sizeof r[0].variant, "starter");
    expect_ms(l, 0, r, 1, MS_PENDING, NULL);
    lab_free(l);
}

/* The pipeline lab's "every step at least 5x": with the learner's step rows
 * measured it is judged; with them not run (no device) it is pending and
 * says why, never "missed at 0x". */
static void test_steps_not_run(void **state)
{
    (void)state;
    lab *l = shipped_lab("pipeline");
    size_t ms = l->nmilestones;
    for (size_t i = 0; i < l->nmilestones; i++)
        if (strcmp(l->milestones[i].id, "steps5x") == 0)
            ms = i;
    assert_true(ms < l->nmilestones);
    static const char *const steps[] = {"fill", "filter", "transform", "standardize",
                                        "binning", "encode", "groupby"};
    run_result r[7];
    for (int st = 0; st < 2; st++) {
        for (int i = 0; i < 7; i++) {
            exercise_row(&r[i], st ? RS_CORRECT : RS_NO_DEVICE, 0.0, false);
            snprintf(r[i].variant, sizeof r[i].variant, "exercise.%s", steps[i]);
            snprintf(r[i].label, sizeof r[i].label, "your %s", steps[i]);
            snprintf(r[i].size, sizeof r[i].size, "2^24");
            r[i].speedup_cpu = st ? 6.0 + i : 0.0;
            if (!st)
                r[i].median_ms = 0.0;
        }
        ms_eval ev;
        assert_true(lab_milestone_eval(l, ms, r, 7, &ev));
        if (st) {
            assert_int_equal(ev.state, MS_REACHED);
            continue;
        }
        assert_int_equal(ev.state, MS_PENDING);
        assert_false(ev.has_value);
        assert_true(ts_contains(ev.why, "not judged: your fill at 2^24 did not run (no CUDA device)"));
    }
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
    if (ts_shell(&o, true, "'%s' check '%s/labs/profiling' '%s/labs/pipeline'", exe, g_home,
                 g_home) != 0)
        fail_msg("cudalab check failed:\n%s", o.out);
    assert_true(ts_contains(o.out, "2 labs ok"));
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
    ts_data_home(g_tmp);
    char cache[CL_PATH_MAX];
    snprintf(cache, sizeof cache, "%s/cache", g_tmp);
    setenv("CUDALAB_CACHE", cache, 1);
    paths_join(g_kernel, sizeof g_kernel, g_home, "labs/pipeline/starter.cu");
    paths_join(g_launcher, sizeof g_launcher, g_home, "labs/pipeline/starter.lua");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pipeline_request),
        cmocka_unit_test(test_profiling_request),
        cmocka_unit_test(test_kernel_files),
        cmocka_unit_test(test_host_buffers),
        cmocka_unit_test(test_report_without_device),
        cmocka_unit_test(test_milestones),
        cmocka_unit_test(test_steps_not_run),
        cmocka_unit_test(test_check_command),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    engine_shutdown();
    if (!ts_rm_rf(g_tmp))
        fprintf(stderr, "could not remove %s\n", g_tmp);
    return rc;
}
