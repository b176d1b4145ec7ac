/* The profiling lab's exercise on a device: host Buffers, views, copies
 * every way, stream waits and a kernel refusing host memory, in Lua; the
 * lab's starter and the reference solution (tests/pipeline/solution)
 * correct through engine_run at the lab's sizes and at awkward ones; the
 * solution at least 3x faster than the starter end to end; `cudalab report
 * profiling` with the solution in a temporary workspace writing the report
 * with both timelines, the traces beside it, the learner's notes kept on
 * a rewrite, and the exercise row's has_report set afterwards.  Every
 * failure prints the rows and the log.  Skips (exit 77) without a device. */
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
#include "cli/report_md.h"
#include "core/atomicfile.h"
#include "core/paths.h"
#include "prof/tlsummary.h"
#include "prof/trace.h"
#include "lab/sandbox.h"
#include "support.h"
#include "engine/engine.h"
#include "luagpu/luagpu.h"
#include "engine/pipeline.h"
#include "worker/dispatch.h"
#include "worker/workerloop.h"

static char g_tmp[CL_PATH_MAX], g_home[CL_PATH_MAX], g_data[CL_PATH_MAX];
static device_info g_dev;

/* Runs the pipeline problem with the learner's files kernel and launcher
 * (the starter row comes with them) at the sizes given. */
static void run_pipeline(const char *kernel, const char *launcher, const char *const *sizes,
                         int nsizes, bool cpu, ts_rows *c)
{
    static run_request req;
    memset(&req, 0, sizeof req);
    req.run = 21;
    snprintf(req.lab, sizeof req.lab, "profiling");
    snprintf(req.problem, sizeof req.problem, "pipeline");
    req.cpu = cpu;
    req.budget_s = 0.2;
    for (int i = 0; i < nsizes; i++)
        ts_add_size(&req, sizes[i]);
    snprintf(req.exercise_kernel, sizeof req.exercise_kernel, "%s", kernel);
    snprintf(req.exercise_launcher, sizeof req.exercise_launcher, "%s", launcher);
    run_fault f;
    if (!ts_engine_run(&req, c, &f)) {
        ts_rows_dump(c);
        fail_msg("the CUDA context broke in %s: %s: %s", f.variant, f.cause, f.message);
    }
}

static void solution_files(char *kernel, char *launcher)
{
    ts_data_path(kernel, CL_PATH_MAX, "pipeline/solution/pipeline.cu");
    ts_data_path(launcher, CL_PATH_MAX, "pipeline/solution/pipeline.lua");
}

/* ---- the Lua API ------------------------------------------------------------ */

static void test_host_api(void **state)
{
    (void)state;
    cl_err e = {{0}};
    lab_state *s = sandbox_new(0, 0, &e);
    assert_non_null(s);
    assert_true(luagpu_install(s, &e));
    lua_State *L = sandbox_lua(s);

    /* host -> device -> device -> host through views and two streams, the
     * second waiting for the first with an event */
    const char *copies =
        "local n = 1 << 16\n"
        "local pin <close> = gpu.host_alloc(n)\n"
        "local page <close> = gpu.host_alloc(n, 'f32', { pinned = false })\n"
        "local back <close> = gpu.host_alloc(n, 'i32')\n"
        "local d1 <close> = gpu.alloc(n)\n"
        "local d2 <close> = gpu.alloc(n)\n"
        "page:fill(2.5)\n"
        "pin:fill(-1)\n"
        "gpu.copy(pin:view(0, 1000), page:view(10, 1000))\n"
        "local s1, s2 = gpu.stream(), gpu.stream()\n"
        "local done = gpu.event()\n"
        "gpu.copy(d1, pin, nil, s1)\n"
        "gpu.copy(d2:view(n // 2, n // 2), d1:view(0, n // 2), nil, s1)\n"
        "done:record(s1)\n"
        "s2:wait(done)\n"
        "gpu.copy(page, d2, 4 * n, s2)\n"
        "s2:synchronize()\n"
        "local t = page:download(n)\n"
        "local ints = back:view(5, 3)\n"
        "ints:fill(7)\n"
        "return pin.where, page.where, d1.where, t[n // 2 + 1], t[n // 2 + 1000], "
        "       t[n // 2 + 1001], ints:download()[3], back:download(6)[6]\n";
    if (!ts_lua_run(s, g_tmp, "copies", copies, 8, &e))
        fail_msg("%s", e.msg);
    assert_string_equal(lua_tostring(L, -8), "pinned");
    assert_string_equal(lua_tostring(L, -7), "pageable");
    assert_string_equal(lua_tostring(L, -6), "device");
    assert_true(lua_tonumber(L, -5) == 2.5);
    assert_true(lua_tonumber(L, -4) == 2.5);
    assert_true(lua_tonumber(L, -3) == -1.0);
    assert_int_equal(lua_tointeger(L, -2), 7);
    assert_int_equal(lua_tointeger(L, -1), 7);
    lua_pop(L, 8);

    static const struct {
        const char *code, *msg;
    } bad[] = {
        {"local h = gpu.host_alloc(64)\nlocal d = gpu.alloc(64)\n"
         "gpu.launch('reduce_sequential', {grid = 1, block = 64}, h, d, 64)\n",
         "argument 1 is a pinned host Buffer: kernels take device Buffers"},
        {"local a, b = gpu.alloc(64), gpu.alloc(32)\ngpu.copy(b, a)\n",
         "gpu.copy: 256 bytes into a Buffer of 128 bytes"},
        {"local a, b = gpu.alloc(64), gpu.alloc(64)\ngpu.copy(b, a, 512)\n",
         "gpu.copy: 512 bytes from a Buffer of 256 bytes"},
        {"local a = gpu.host_alloc(64)\ngpu.copy(a:view(8, 16), a:view(0, 16))\n",
         "the source and destination overlap"},
        {"local a = gpu.host_alloc(64)\nlocal v = a:view(0, 8)\na:free()\ngpu.copy(v, v)\n",
         "the buffer was freed"},
        {"gpu.host_alloc(64, 'f64')\n", "dtype must be 'f32' or 'i32'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char name[32];
        snprintf(name, sizeof name, "bad%zu", i);
        err_clear(&e);
        assert_false(ts_lua_run(s, g_tmp, name, bad[i].code, 0, &e));
        assert_true(ts_contains(e.msg, bad[i].msg));
    }
    sandbox_free(s);
}

/* ---- the starter and the solution ---------------------------------------------- */

static void expect_correct(const ts_rows *c, const char *variant, const char *size)
{
    const run_result *r = ts_row(c, variant, size);
    if (!r || r->status != RS_CORRECT || !(r->median_ms > 0.0)) {
        ts_rows_dump(c);
        fail_msg("%s at %s: %s", variant, size,
                 r ? result_status_name(r->status) : "no row came back");
    }
}

static void test_starter_and_solution(void **state)
{
    (void)state;
    char kernel[CL_PATH_MAX], launcher[CL_PATH_MAX];
    solution_files(kernel, launcher);
    static ts_rows c;
    static const char *const sizes[] = {"1048576x16", "4099x7", "1x1", "65537x33", "3x5000"};
    /* the last size is refused by the parser: more than 4096 features */
    run_pipeline(kernel, launcher, sizes, 5, true, &c);
    for (int i = 0; i < 4; i++) {
        expect_correct(&c, "starter", sizes[i]);
        expect_correct(&c, "exercise", sizes[i]);
        expect_correct(&c, "cpu", sizes[i]);
        const run_result *x = ts_row(&c, "exercise", sizes[i]);
        const run_result *st = ts_row(&c, "starter", sizes[i]);
        assert_true(st->speedup_starter == 1.0);
        assert_true(x->speedup_starter > 0.0);
        assert_true(x->pct_peak_measured < 0.0);
        assert_false(x->has_report);
        assert_true(ts_contains(x->message, "GB/s counts the table once into the GPU"));
    }
    const run_result *bad = ts_row(&c, "exercise", "3x5000");
    assert_non_null(bad);
    assert_true(ts_contains(bad->message, "5000 features: the limit is 4096"));

    const run_result *x = ts_row(&c, "exercise", "1048576x16");
    const run_result *st = ts_row(&c, "starter", "1048576x16");
    print_message("1048576x16: starter %.3f ms, solution %.3f ms (%.2fx the starter, %.2fx the "
                  "CPU, %.2f GB/s)\n",
                  st->median_ms, x->median_ms, x->speedup_starter, x->speedup_cpu, x->gbps);
    if (!(x->speedup_starter >= 3.0)) {
        ts_rows_dump(&c);
        fail_msg("the solution is only %.2fx faster than the starter (need 3x)",
                 x->speedup_starter);
    }

    /* the lab's starter as the learner's own file: about as fast as the starter row */
    char skernel[CL_PATH_MAX], slauncher[CL_PATH_MAX];
    paths_join(skernel, sizeof skernel, g_home, "labs/profiling/starter.cu");
    paths_join(slauncher, sizeof slauncher, g_home, "labs/profiling/starter.lua");
    static const char *const small[] = {"4099x7"};
    run_pipeline(skernel, slauncher, small, 1, false, &c);
    expect_correct(&c, "exercise", "4099x7");
    expect_correct(&c, "starter", "4099x7");
}

/* ---- the report command ---------------------------------------------------------- */

static void report(ts_output *c, const char *size)
{
    const char *words[] = {"profiling", "--size", size, "--budget", "0.2", NULL};
    static cli_ctx ctx;
    ts_cli_ctx(&ctx, g_home, 600);
    ts_capture_cmd(c, cmd_report, &ctx, "report", words);
}

static void copy_file(const char *from, const char *to)
{
    size_t len = 0;
    cl_err e = {{0}};
    char *txt = file_read_all(from, 1 << 20, &len, &e);
    if (!txt)
        fail_msg("%s", e.msg);
    assert_true(atomicfile_write(to, txt, len, &e));
    free(txt);
}

/* Reads a trace beside the report and summarises it. */
static void summary_of(const char *dir, const char *name, tl_summary *s)
{
    char path[CL_PATH_MAX];
    paths_join(path, sizeof path, dir, name);
    size_t len = 0;
    cl_err e = {{0}};
    char *txt = file_read_all(path, TRACE_MAX_BYTES, &len, &e);
    if (!txt)
        fail_msg("%s: %s", path, e.msg);
    if (!trace_validate(txt, &e))
        fail_msg("%s: %s", path, e.msg);
    free(txt);
    timeline t;
    assert_true(trace_load(path, &t, &e));
    assert_true(tlsummary_make(&t, REPORT_GAP_MIN_NS, s, &e));
    timeline_free(&t);
}

static void test_report_command(void **state)
{
    (void)state;
    char ws[CL_PATH_MAX], dir[CL_PATH_MAX], k[CL_PATH_MAX], l[CL_PATH_MAX];
    snprintf(ws, sizeof ws, "%s/ws", g_tmp);
    paths_join(dir, sizeof dir, ws, "profiling");
    cl_err e = {{0}};
    assert_true(paths_mkdir_p(dir, &e));
    char sk[CL_PATH_MAX], sl[CL_PATH_MAX];
    solution_files(sk, sl);
    paths_join(k, sizeof k, dir, "starter.cu");
    paths_join(l, sizeof l, dir, "starter.lua");
    copy_file(sk, k);
    copy_file(sl, l);
    paths_set_workspace(ws);

    static ts_output c;
    report(&c, "1048576x16");
    if (c.status != 0)
        fail_msg("rc %d\nstdout:\n%s\nstderr:\n%s", c.status, c.out, c.err);
    assert_true(ts_contains(c.out, "Report written to"));
    char md_path[CL_PATH_MAX];
    paths_join(md_path, sizeof md_path, dir, PIPELINE_REPORT_FILE);
    size_t len = 0;
    char *md = file_read_all(md_path, 1 << 22, &len, &e);
    assert_non_null(md);
    assert_true(ts_contains(md, PIPELINE_REPORT_MARK));
    assert_true(ts_contains(md, "| the starter | "));
    assert_true(ts_contains(md, "| your pipeline | "));
    assert_true(ts_contains(md, "### The starter, lane by lane\n\n| lane |"));
    assert_true(ts_contains(md, "### Your pipeline, lane by lane\n\n| lane |"));
    assert_true(ts_contains(md, "- **End to end**"));
    if (strstr(md, "No timeline"))
        fail_msg("a timeline is missing:\n%s\nstderr:\n%s", md, c.err);
    print_message("%s\n", md);

    /* the traces beside it, and what they say about the two versions */
    tl_summary before, after;
    summary_of(dir, REPORT_STARTER_TRACE, &before);
    summary_of(dir, REPORT_PIPELINE_TRACE, &after);
    assert_true(before.h2d > 0 && before.d2h > 0 && before.kernels >= 2);
    assert_true(before.pageable > 0 && before.pinned == 0);
    assert_true(after.pinned > 0 && after.pageable == 0);
    assert_true(after.copies < before.copies);
    assert_true(after.streams >= 2);
    assert_true(after.syncs < before.syncs);
    tlsummary_free(&before);
    tlsummary_free(&after);

    /* the learner's notes survive the next report */
    const char *notes = "Fewer copies first: 5x.  Then pinned staging and streams.\n";
    char *mark = strstr(md, REPORT_NOTES_MARK);
    assert_non_null(mark);
    size_t keep = (size_t)(mark - md) + strlen(REPORT_NOTES_MARK) + 1;
    char *edited = malloc(keep + strlen(notes) + 1);
    assert_non_null(edited);
    snprintf(edited, keep + strlen(notes) + 1, "%.*s%s", (int)keep, md, notes);
    assert_true(atomicfile_write(md_path, edited, strlen(edited), &e));
    free(edited);
    free(md);
    report(&c, "4099x7");
    if (c.status != 0)
        fail_msg("rc %d\nstdout:\n%s\nstderr:\n%s", c.status, c.out, c.err);
    md = file_read_all(md_path, 1 << 22, &len, &e);
    assert_non_null(md);
    char *kept = report_md_notes(md);
    assert_non_null(kept);
    assert_string_equal(kept, notes);
    assert_true(ts_contains(md, "Table: 4099x7 floats"));
    free(kept);
    free(md);

    /* the engine now sees the report */
    static ts_rows rows;
    static const char *const small[] = {"4099x7"};
    run_pipeline(k, l, small, 1, false, &rows);
    const run_result *x = ts_row(&rows, "exercise", "4099x7");
    assert_non_null(x);
    assert_true(x->has_report);
    ts_output_free(&c);
    paths_set_workspace(NULL);
}

int main(int argc, char **argv)
{
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
    if (!ts_tmpdir(g_tmp, sizeof g_tmp, "pipe-gpu"))
        return 1;
    snprintf(g_data, sizeof g_data, "%s/data", g_tmp);
    setenv("XDG_DATA_HOME", g_data, 1);
    engine_probe(&g_dev);
    int rc = 77;
    if (!g_dev.present) {
        printf("SKIP: %s\n", g_dev.reason[0] ? g_dev.reason : "no CUDA device found");
    } else {
        printf("%s, cc %d.%d, %d SMs\n", g_dev.name, g_dev.cc_major, g_dev.cc_minor,
               g_dev.sm_count);
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_host_api),
            cmocka_unit_test(test_starter_and_solution),
            cmocka_unit_test(test_report_command),
        };
        rc = cmocka_run_group_tests(tests, NULL, NULL);
        engine_shutdown();
    }
    if (!ts_rm_rf(g_tmp))
        fprintf(stderr, "could not remove %s\n", g_tmp);
    return rc;
}
