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
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cmd_report.h"
#include "core/paths.h"
#include "lab/labmodel.h"
#include "lab/milestone.h"
#include "lab/sandbox.h"
#include "worker/engine.h"
#include "worker/luagpu.h"
#include "worker/pipeline.h"
#include "worker/workerloop.h"

#define MAX_ROWS 64

typedef struct collected {
    run_result rows[MAX_ROWS];
    int nrows;
} collected;

static char g_tmp[CL_PATH_MAX], g_home[CL_PATH_MAX];
static char g_kernel[CL_PATH_MAX], g_launcher[CL_PATH_MAX];

static bool contains(const char *hay, const char *needle)
{
    if (hay && strstr(hay, needle))
        return true;
    print_error("\"%s\"\n  does not contain \"%s\"\n", hay ? hay : "(null)", needle);
    return false;
}

static void on_progress(void *ud, const run_progress *p)
{
    (void)ud;
    (void)p;
}

static void on_result(void *ud, const run_result *r)
{
    collected *c = ud;
    if (c->nrows < MAX_ROWS)
        c->rows[c->nrows++] = *r;
}

static void on_log(void *ud, int level, const char *msg)
{
    (void)ud;
    (void)level;
    (void)msg;
}

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

static void add_variant(run_request *req, const char *id)
{
    snprintf(req->variants[req->nvariants++].id, PROTO_ID_MAX, "%s", id);
}

static void add_size(run_request *req, const char *s)
{
    snprintf(req->sizes[req->nsizes++], PROTO_SIZE_MAX, "%s", s);
}

static void run(const run_request *req, collected *c)
{
    memset(c, 0, sizeof *c);
    engine_sink sink = {on_progress, on_result, on_log, c};
    run_fault f;
    memset(&f, 0, sizeof f);
    assert_true(engine_run(req, &sink, &f));
}

static void describe(const collected *c)
{
    for (int i = 0; i < c->nrows; i++)
        print_message("  row %d: %s (%s) at %s: %s: %s\n", i, c->rows[i].variant,
                      result_kind_name(c->rows[i].kind), c->rows[i].size,
                      result_status_name(c->rows[i].status), c->rows[i].message);
}

/* Row i is variant at size with status; its message starts with text. */
static void expect_row(const collected *c, int i, const char *variant, result_kind kind,
                       const char *size, result_status status, const char *text)
{
    if (i >= c->nrows) {
        describe(c);
        fail_msg("row %d (%s at %s) missing: only %d rows", i, variant, size, c->nrows);
    }
    const run_result *r = &c->rows[i];
    if (strcmp(r->variant, variant) != 0 || r->kind != kind || strcmp(r->size, size) != 0 ||
        r->status != status || strncmp(r->message, text, strlen(text)) != 0) {
        describe(c);
        fail_msg("row %d: expected %s (%s) at %s: %s: \"%s...\"", i, variant,
                 result_kind_name(kind), size, result_status_name(status), text);
    }
}

static void expect_pipeline_rows(const collected *c, int first, const char *size, bool starter)
{
    int i = first;
    if (starter)
        expect_row(c, i++, "starter", RK_KERNEL, size, RS_ERROR, "no CUDA device found");
    expect_row(c, i++, "exercise", RK_EXERCISE, size, RS_ERROR, "no CUDA device found");
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
    static collected c;
    request(&req, "pipeline", true);
    add_size(&req, "4099x7");
    add_size(&req, "1x1");
    run(&req, &c);
    assert_int_equal(c.nrows, 8);
    expect_pipeline_rows(&c, 0, "4099x7", true);
    expect_pipeline_rows(&c, 4, "1x1", true);

    /* a variant that is neither "starter" nor "timeline" is a row of its own */
    request(&req, "pipeline", true);
    add_variant(&req, "timeline");
    add_variant(&req, "bogus");
    add_size(&req, "64x3");
    run(&req, &c);
    assert_int_equal(c.nrows, 5);
    expect_row(&c, 0, "bogus", RK_KERNEL, "64x3", RS_ERROR, "no CUDA device found");
    expect_pipeline_rows(&c, 1, "64x3", true);

    /* the starter alone, without the learner's kernel */
    request(&req, "pipeline", false);
    add_variant(&req, "starter");
    add_size(&req, "64x3");
    req.cpu = false;
    run(&req, &c);
    assert_int_equal(c.nrows, 1);
    expect_row(&c, 0, "starter", RK_KERNEL, "64x3", RS_ERROR, "no CUDA device found");

    /* check-only (compute-sanitizer) runs leave the starter out */
    request(&req, "pipeline", true);
    req.check_only = true;
    add_size(&req, "64x3");
    run(&req, &c);
    assert_int_equal(c.nrows, 3);
    expect_row(&c, 0, "exercise", RK_EXERCISE, "64x3", RS_ERROR, "no CUDA device found");

    /* the reference solution compiles and its launcher loads: its row gets
     * as far as the missing device */
    const char *data = getenv("CUDALAB_TEST_DATA");
    assert_non_null(data);
    request(&req, "pipeline", true);
    snprintf(req.exercise_kernel, sizeof req.exercise_kernel, "%s/pipeline/solution/pipeline.cu",
             data);
    snprintf(req.exercise_launcher, sizeof req.exercise_launcher,
             "%s/pipeline/solution/pipeline.lua", data);
    req.cpu = false;
    add_size(&req, "64x3");
    run(&req, &c);
    assert_int_equal(c.nrows, 2);
    expect_row(&c, 0, "starter", RK_KERNEL, "64x3", RS_ERROR, "no CUDA device found");
    expect_row(&c, 1, "exercise", RK_EXERCISE, "64x3", RS_ERROR, "no CUDA device found");

    /* a size the problem cannot read: every row says why */
    request(&req, "pipeline", true);
    add_size(&req, "1048576");
    run(&req, &c);
    assert_int_equal(c.nrows, 4);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(c.rows[i].status, RS_ERROR);
        assert_true(contains(c.rows[i].message, "pipeline size '1048576': give ROWSxFEATURES"));
    }
    assert_string_equal(c.rows[0].variant, "starter");
}

static void test_profiling_request(void **state)
{
    (void)state;
    static run_request req;
    static collected c;
    /* experiments named, and the exercise at the lab's sizes */
    request(&req, "profiling", true);
    add_variant(&req, "transfers");
    add_size(&req, "300x16");
    run(&req, &c);
    assert_int_equal(c.nrows, 5);
    expect_row(&c, 0, "transfers", RK_KERNEL, "", RS_ERROR, "no CUDA device found");
    expect_pipeline_rows(&c, 1, "300x16", true);

    /* the exercise alone: no experiment runs */
    request(&req, "profiling", true);
    add_size(&req, "300x16");
    run(&req, &c);
    assert_int_equal(c.nrows, 4);
    expect_pipeline_rows(&c, 0, "300x16", true);

    /* no exercise: the experiments only, whatever the sizes */
    request(&req, "profiling", false);
    add_variant(&req, "stride");
    add_size(&req, "300x16");
    run(&req, &c);
    assert_int_equal(c.nrows, 1);
    expect_row(&c, 0, "stride", RK_KERNEL, "", RS_ERROR, "no CUDA device found");

    /* no sizes: the pipeline's default size */
    request(&req, "profiling", true);
    req.cpu = false;
    run(&req, &c);
    assert_int_equal(c.nrows, 2);
    expect_row(&c, 0, "starter", RK_KERNEL, PIPELINE_DEFAULT_SIZE, RS_ERROR,
               "no CUDA device found");
    expect_row(&c, 1, "exercise", RK_EXERCISE, PIPELINE_DEFAULT_SIZE, RS_ERROR,
               "no CUDA device found");
}

/* ---- host Buffers in Lua ------------------------------------------------------ */

static bool lua_run(lab_state *s, const char *name, const char *code, int nres, cl_err *e)
{
    char path[CL_PATH_MAX];
    snprintf(path, sizeof path, "%s/%s.lua", g_tmp, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(code, f);
    fclose(f);
    bool ok = sandbox_dofile(s, path, nres, e);
    unlink(path);
    return ok;
}

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
    if (!lua_run(s, "views", views, 7, &e))
        fail_msg("%s", e.msg);
    assert_string_equal(lua_tostring(L, -7), "pageable");
    assert_int_equal(lua_tointeger(L, -6), 10);
    assert_int_equal(lua_tointeger(L, -5), 40);
    assert_int_equal(lua_tointeger(L, -4), 5);
    assert_string_equal(lua_tostring(L, -3), "pageable");
    assert_true(lua_tonumber(L, -2) == 3.0 + 40.0 + 500.0);
    assert_true(contains(lua_tostring(L, -1), "3 x f32, 12 B, pageable; a view from element 3"));
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
        assert_false(lua_run(s, name, bad[i].code, 0, &e));
        assert_true(contains(e.msg, bad[i].msg));
    }

    /* a view kept past the size reads as freed with its base */
    if (!lua_run(s, "keep", "kept = b:view(1, 1)\nreturn kept\n", 1, &e))
        fail_msg("%s", e.msg);
    lua_setglobal(L, "kept_view");
    luagpu_release_borrowed(L);
    err_clear(&e);
    assert_false(lua_run(s, "after", "return b:download()\n", 0, &e));
    assert_true(contains(e.msg, "the buffer was freed"));
    lua_getglobal(L, "kept_view");
    assert_true(lua_isuserdata(L, -1));
    lua_pop(L, 1);
    sandbox_free(s);
}

/* ---- the report command --------------------------------------------------------- */

typedef struct captured {
    int rc;
    char out[16384];
    char err[16384];
} captured;

static void slurp(FILE *f, char *buf, size_t n)
{
    rewind(f);
    size_t len = fread(buf, 1, n - 1, f);
    buf[len] = '\0';
    fclose(f);
}

static void report(captured *c, const char *const *words)
{
    char *argv[16];
    int argc = 0;
    argv[argc++] = (char *)"report";
    for (; words && words[argc - 1] && argc < 15; argc++)
        argv[argc] = (char *)words[argc - 1];
    argv[argc] = NULL;
    static cli_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.prog = "cudalab";
    snprintf(ctx.home, sizeof ctx.home, "%s", g_home);
    paths_join(ctx.shipped_labs, sizeof ctx.shipped_labs, g_home, "labs");
    ctx.lab_dirs[0] = ctx.shipped_labs;
    ctx.nlab_dirs = 1;
    ctx.time_limit_s = 120;

    fflush(stdout);
    fflush(stderr);
    FILE *fo = tmpfile(), *fe = tmpfile();
    assert_non_null(fo);
    assert_non_null(fe);
    int so = dup(STDOUT_FILENO), se = dup(STDERR_FILENO);
    dup2(fileno(fo), STDOUT_FILENO);
    dup2(fileno(fe), STDERR_FILENO);
    c->rc = cmd_report(&ctx, argc, argv);
    fflush(stdout);
    fflush(stderr);
    dup2(so, STDOUT_FILENO);
    dup2(se, STDERR_FILENO);
    close(so);
    close(se);
    slurp(fo, c->out, sizeof c->out);
    slurp(fe, c->err, sizeof c->err);
}

static void test_report_without_device(void **state)
{
    (void)state;
    static captured c;
    char ws[CL_PATH_MAX], md[CL_PATH_MAX];
    snprintf(ws, sizeof ws, "%s/ws", g_tmp);
    paths_set_workspace(ws);
    const char *w[] = {"profiling", "--size", "512x4", NULL};
    report(&c, w);
    if (c.rc != 3)
        fail_msg("rc %d\nstdout:\n%s\nstderr:\n%s", c.rc, c.out, c.err);
    assert_true(contains(c.err, "no CUDA device found"));
    assert_true(contains(c.err, "nothing was written"));
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
        {{"profiling", "--bogus", NULL}, "unknown argument '--bogus'"},
        {{"profiling", "--size", NULL}, "--size needs a size"},
        {{"profiling", "--budget", "-1", NULL}, "--budget needs a positive number"},
    };
    for (size_t i = 0; i < sizeof usage / sizeof usage[0]; i++) {
        report(&c, usage[i].w);
        assert_int_equal(c.rc, 2);
        assert_true(contains(c.err, usage[i].msg));
    }
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
    lab_diags d = {0};
    lab *l = lab_load(path, g_home, &d);
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
    lab_diags_free(&d);
}

static void test_check_command(void **state)
{
    (void)state;
    const char *exe = getenv("CUDALAB_EXE");
    if (!exe || !*exe) {
        print_message("CUDALAB_EXE is not set: the check command is not run\n");
        return;
    }
    char cmd[3 * CL_PATH_MAX];
    snprintf(cmd, sizeof cmd, "'%s' check '%s/labs/profiling' 2>&1", exe, g_home);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char out[4096];
    size_t len = fread(out, 1, sizeof out - 1, p);
    out[len] = '\0';
    int st = pclose(p);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        fail_msg("cudalab check failed:\n%s", out);
    assert_true(contains(out, "1 lab ok"));
}

/* main.c's, which this test does not link. */
int cli_usage_error(const cli_ctx *c, const char *fmt, ...)
{
    (void)c;
    va_list ap;
    fputs("cudalab: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs("\n", stderr);
    return EXIT_USAGE;
}

/* The worker side for cmd_report: the real loop with the real engine. */
static int serve_worker(void)
{
    struct stat st;
    int out = STDOUT_FILENO;
    if (fstat(3, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
        out = 3;
    const workerloop_engine real = {engine_probe, engine_run, engine_shutdown};
    return workerloop_serve(&real, STDIN_FILENO, out);
}

int main(int argc, char **argv)
{
    setenv("CUDA_VISIBLE_DEVICES", "", 1);
    if (argc >= 2 && strcmp(argv[1], "worker") == 0)
        return serve_worker();
    const char *home = getenv("CUDALAB_HOME");
    if (!home) {
        fprintf(stderr, "CUDALAB_HOME is not set\n");
        return 1;
    }
    snprintf(g_home, sizeof g_home, "%s", home);
    snprintf(g_tmp, sizeof g_tmp, "/tmp/cudalab-pipe-nodev-XXXXXX");
    if (!mkdtemp(g_tmp))
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
    char cmd[CL_PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_tmp);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", g_tmp);
    return rc;
}
