/* The learner's kernel through the engine without a CUDA device: a broken
 * kernel gives one RS_ERROR row per size with the compiler's first
 * diagnostic (file:line:col) and the formatted diagnostics in the log; a
 * good starter compiles and its row says "no CUDA device found"; launcher
 * files that do not parse, never finish or return no function are named
 * with file:line; the problems' launcher arguments match lua/exercise.md.
 * CUDA_VISIBLE_DEVICES is emptied first, so this holds on GPU machines too. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/paths.h"
#include "engine/problem_decl.h"
#include "lab/labproblem.h"
#include "luagpu/luagpu.h"
#include "support.h"
#include "engine/engine.h"
#include "engine/exercise.h"
#include "engine/problem.h"

/* A request for problem with one shipped variant, the CPU off, and the
 * exercise files kernel and launcher. */
static void request(run_request *req, const char *problem, const char *variant,
                    const char *kernel, const char *launcher)
{
    memset(req, 0, sizeof *req);
    req->run = 11;
    snprintf(req->problem, sizeof req->problem, "%s", problem);
    if (variant) {
        snprintf(req->variants[0].id, RUN_ID_MAX, "%s", variant);
        snprintf(req->variants[0].kernel, RUN_ID_MAX, "%s", variant);
        req->nvariants = 1;
    }
    req->budget_s = 0.05;
    snprintf(req->exercise_kernel, sizeof req->exercise_kernel, "%s", kernel);
    snprintf(req->exercise_launcher, sizeof req->exercise_launcher, "%s", launcher);
}

static void run(const run_request *req, ts_rows *c)
{
    assert_true(ts_engine_run(req, c, NULL));
}

/* The exercise rows of c, in order. */
static int exercise_rows(const ts_rows *c, const run_result **out, int max)
{
    int n = 0;
    for (int i = 0; i < c->nrows && n < max; i++)
        if (c->rows[i].kind == RK_EXERCISE)
            out[n++] = &c->rows[i];
    return n;
}

static void assert_exercise_row(const run_result *r, const char *size, result_status status)
{
    assert_string_equal(r->variant, "exercise");
    assert_string_equal(r->label, "your kernel");
    assert_string_equal(r->size, size);
    assert_int_equal(r->run, 11);
    assert_int_equal(r->status, status);
}

/* ---- engine rows ----------------------------------------------------------- */

static void test_compile_error_rows(void **state)
{
    (void)state;
    char cu[CL_PATH_MAX], lua[CL_PATH_MAX];
    ts_data_path(cu, sizeof cu, "features/exercises/broken/compile_error/starter.cu");
    ts_data_path(lua, sizeof lua, "features/exercises/broken/compile_error/starter.lua");
    static run_request req;
    request(&req, "reduce_sum", "reduce_sequential", cu, lua);
    ts_add_size(&req, "2^20");
    ts_add_size(&req, "1000");
    static ts_rows c;
    run(&req, &c);

    const run_result *ex[4];
    assert_int_equal(exercise_rows(&c, ex, 4), 2);
    assert_exercise_row(ex[0], "2^20", RS_ERROR);
    assert_exercise_row(ex[1], "1000", RS_ERROR);
    for (int i = 0; i < 2; i++)
        assert_true(ts_starts_with(ex[i]->message,
                                "starter.cu:12:41: error: identifier \"blockDim_x\" is undefined"));
    /* The shipped rung still reports the missing device, and comes first. */
    assert_string_equal(c.rows[0].variant, "reduce_sequential");
    assert_true(ts_starts_with(c.rows[0].message, "no CUDA device found: "));

    bool caret = false;
    for (int i = 0; i < c.nlogs; i++)
        if (c.levels[i] == 2 && strstr(c.logs[i], "starter.cu:12:41: error:") &&
            strstr(c.logs[i], "blockDim_x + tid;\n") && strstr(c.logs[i], "^"))
            caret = true;
    if (!caret)
        for (int i = 0; i < c.nlogs; i++)
            print_error("log %d: %s\n", c.levels[i], c.logs[i]);
    assert_true(caret);
}

/* A launcher that takes one of cudalab's shipped kernels is refused when it
 * loads, device or not: the row is never the learner's. */
static void test_shipped_kernel_refused(void **state)
{
    (void)state;
    char cu[CL_PATH_MAX], lua[CL_PATH_MAX];
    ts_data_path(cu, sizeof cu, "features/exercises/broken/cheat_shipped_toplevel/starter.cu");
    ts_data_path(lua, sizeof lua, "features/exercises/broken/cheat_shipped_toplevel/starter.lua");
    static run_request req;
    request(&req, "reduce_sum", NULL, cu, lua);
    ts_add_size(&req, "2^20");
    static ts_rows c;
    run(&req, &c);
    const run_result *ex[2];
    assert_int_equal(exercise_rows(&c, ex, 2), 1);
    assert_exercise_row(ex[0], "2^20", RS_ERROR);
    assert_true(ts_contains(ex[0]->message, "starter.lua:4:"));
    assert_true(ts_contains(ex[0]->message, "'reduce_sequential' is one of cudalab's shipped kernels"));
}

static void test_starters_compile_and_say_no_device(void **state)
{
    (void)state;
    static const struct {
        const char *lab, *problem, *size;
    } labs[] = {
        {"reduction", "reduce_sum", "2^20+3"},
        {"matmul", "sgemm", "100x70x33"},
        {"embedding", "embedding", "3x50x10"},
    };
    for (size_t i = 0; i < sizeof labs / sizeof labs[0]; i++) {
        char cu[CL_PATH_MAX], lua[CL_PATH_MAX];
        ts_home_path(cu, sizeof cu, "labs/%s/starter.cu", labs[i].lab);
        ts_home_path(lua, sizeof lua, "labs/%s/starter.lua", labs[i].lab);
        static run_request req;
        request(&req, labs[i].problem, NULL, cu, lua);
        ts_add_size(&req, labs[i].size);
        static ts_rows c;
        run(&req, &c);
        const run_result *ex[2];
        assert_int_equal(exercise_rows(&c, ex, 2), 1);
        assert_exercise_row(ex[0], labs[i].size, RS_NO_DEVICE);
        if (!ts_contains(ex[0]->message, "no CUDA device found: "))
            fail_msg("lab %s", labs[i].lab);
        bool usage = false;
        for (int l = 0; l < c.nlogs; l++)
            if (strstr(c.logs[l], "your kernel ") && strstr(c.logs[l], "registers a thread"))
                usage = true;
        if (!usage)
            fail_msg("lab %s: no resource usage in the log", labs[i].lab);
    }
}

static void test_unknown_size_and_problem(void **state)
{
    (void)state;
    char cu[CL_PATH_MAX], lua[CL_PATH_MAX];
    ts_home_path(cu, sizeof cu, "labs/reduction/starter.cu");
    ts_home_path(lua, sizeof lua, "labs/reduction/starter.lua");
    static run_request req;
    request(&req, "reduce_sum", NULL, cu, lua);
    ts_add_size(&req, "lots");
    static ts_rows c;
    run(&req, &c);
    const run_result *ex[2];
    assert_int_equal(exercise_rows(&c, ex, 2), 1);
    assert_true(ts_contains(ex[0]->message, "'lots' is not a count"));

    request(&req, "scan", NULL, cu, lua);
    ts_add_size(&req, "2^20");
    run(&req, &c);
    assert_int_equal(exercise_rows(&c, ex, 2), 1);
    assert_true(ts_contains(ex[0]->message, "unknown problem 'scan'"));
}

/* A launcher file of text under ts_tmp; path into out. */
static void launcher_file(char *out, size_t n, const char *name, const char *text)
{
    snprintf(out, n, "%s/%s", ts_tmp, name);
    assert_true(ts_write(out, text));
}

static void test_launcher_syntax_error_row(void **state)
{
    (void)state;
    char cu[CL_PATH_MAX], lua[CL_PATH_MAX];
    ts_home_path(cu, sizeof cu, "labs/reduction/starter.cu");
    launcher_file(lua, sizeof lua, "syntax.lua",
                  "-- a launcher with a missing 'end'\n"
                  "return function(gpu, k, args)\n"
                  "  if args.n > 0 then\n"
                  "    gpu.launch(k.reduce_sum, {grid = 1, block = 32}, args.input, args.output, args.n)\n"
                  "end\n");
    static run_request req;
    request(&req, "reduce_sum", NULL, cu, lua);
    ts_add_size(&req, "2^20");
    static ts_rows c;
    run(&req, &c);
    const run_result *ex[2];
    assert_int_equal(exercise_rows(&c, ex, 2), 1);
    assert_exercise_row(ex[0], "2^20", RS_ERROR);
    assert_true(ts_starts_with(ex[0]->message, "syntax.lua:6: 'end' expected (to close 'function' at line 2)"));
    assert_null(strstr(ex[0]->message, ts_tmp));
}

/* ---- exercise_open directly ---------------------------------------------------- */

static exercise *open_with(const char *kernel, const char *launcher, int budget_ms)
{
    exercise_opts o = {
        .kernel = kernel,
        .launcher = launcher,
        .device = false,
        .no_device = "no CUDA device found: none in this test",
        .budget_ms = budget_ms,
    };
    cl_err e = {{0}};
    exercise *x = exercise_open(&o, &e);
    assert_non_null(x);
    return x;
}

static void test_launcher_stages(void **state)
{
    (void)state;
    char cu[CL_PATH_MAX], lua[CL_PATH_MAX];
    ts_home_path(cu, sizeof cu, "labs/reduction/starter.cu");
    const char *msg = NULL;

    launcher_file(lua, sizeof lua, "forever.lua",
                  "local x = 0\n"
                  "while true do\n"
                  "  x = x + 1\n"
                  "end\n");
    exercise *x = open_with(cu, lua, 200);
    assert_int_equal(exercise_status(x, &msg), EXERCISE_LAUNCHER);
    assert_true(ts_starts_with(msg, "forever.lua:"));
    assert_true(ts_contains(msg, "script ran longer than 200 ms"));
    exercise_close(x);

    launcher_file(lua, sizeof lua, "table.lua", "return {}\n");
    x = open_with(cu, lua, 0);
    assert_int_equal(exercise_status(x, &msg), EXERCISE_LAUNCHER);
    assert_true(ts_contains(msg, "table.lua: the file must end with 'return function(gpu, k, args)"));
    assert_true(ts_contains(msg, "returned table"));
    exercise_close(x);

    launcher_file(lua, sizeof lua, "raise.lua", "\nerror('not ready yet')\n");
    x = open_with(cu, lua, 0);
    assert_int_equal(exercise_status(x, &msg), EXERCISE_LAUNCHER);
    assert_true(ts_starts_with(msg, "raise.lua:2: not ready yet"));
    assert_true(ts_contains(exercise_traceback(x), "raise.lua:2"));
    exercise_close(x);

    launcher_file(lua, sizeof lua, "io.lua", "return function() io.write('x') end\n");
    x = open_with(cu, lua, 0);
    assert_int_equal(exercise_status(x, &msg), EXERCISE_NO_DEVICE);
    assert_string_equal(msg, "no CUDA device found: none in this test");
    exercise_close(x);

    x = open_with(cu, "", 0);
    assert_int_equal(exercise_status(x, &msg), EXERCISE_LAUNCHER);
    exercise_close(x);

    char missing[CL_PATH_MAX];
    snprintf(missing, sizeof missing, "%s/nothing.cu", ts_tmp);
    x = open_with(missing, lua, 0);
    assert_int_equal(exercise_status(x, &msg), EXERCISE_COMPILE);
    assert_true(ts_contains(msg, "nothing.cu"));
    exercise_close(x);
}

static void test_diagnostics_text(void **state)
{
    (void)state;
    char cu[CL_PATH_MAX], lua[CL_PATH_MAX];
    ts_data_path(cu, sizeof cu, "features/exercises/broken/compile_error/starter.cu");
    ts_data_path(lua, sizeof lua, "features/exercises/broken/compile_error/starter.lua");
    exercise *x = open_with(cu, lua, 0);
    const char *msg = NULL;
    assert_int_equal(exercise_status(x, &msg), EXERCISE_COMPILE);
    assert_true(ts_starts_with(msg, "starter.cu:12:41: error:"));
    char text[4096];
    size_t len = exercise_diagnostics(x, 10, text, sizeof text);
    assert_true(len > 0 && len == strlen(text));
    assert_true(ts_contains(text, "starter.cu:12:41: error: identifier \"blockDim_x\" is undefined\n"));
    assert_true(ts_contains(text, "                                        ^\n"));
    assert_true(exercise_program(x)->compile_error);
    exercise_close(x);
}

/* ---- the problems' launcher arguments --------------------------------------------- */

static void expect_args(const char *problem, const char *size, const char *names,
                        const char *buffers)
{
    const problem_ops *ops = problem_find(problem);
    lab *shipped = NULL;
    static decl_problem dp;
    if (!ops) {
        /* a problem declared in lua/problems/, as the worker loads it */
        char home[4096];
        lab_diags ds = {0};
        ts_home_path(home, sizeof home, "%s", "");
        shipped = lab_load_problem(problem, home, &ds);
        lab_diags_free(&ds);
        assert_non_null(shipped);
        problem_decl_init(&dp, &shipped->decls[0]);
        ops = &dp.ops;
    }
    problem_dims d;
    cl_err e = {{0}};
    assert_true(problem_parse_size(ops->spec, size, &d, &e));
    problem_data p;
    assert_true(problem_new(&p, ops, &d, &e));
    problem_arg a[PROBLEM_MAX_ARGS];
    int n = problem_args(&p, a);
    char got[256] = "", kinds[64] = "";
    for (int i = 0; i < n; i++) {
        snprintf(got + strlen(got), sizeof got - strlen(got), "%s%s", i ? " " : "", a[i].name);
        bool ints = a[i].i32 || (a[i].typed && a[i].dtype == LUAGPU_I32);
        snprintf(kinds + strlen(kinds), sizeof kinds - strlen(kinds), "%c",
                 !a[i].buf ? 'n' : a[i].output ? 'o' : ints ? 'i' : 'f');
    }
    assert_string_equal(got, names);
    assert_string_equal(kinds, buffers);
    for (int i = 0; i < n; i++)
        if (a[i].buf)
            assert_true(a[i].count > 0);
    problem_free(&p);
    lab_free(shipped);
}

static void test_problem_args(void **state)
{
    (void)state;
    expect_args("reduce_sum", "1000", "input output n", "fon");
    expect_args("sgemm", "30x20x10", "A B C M N K", "ffonnn");
    expect_args("embedding", "3x50x10", "W idx out T D V", "fionnn");

    const problem_ops *ops = problem_find("sgemm");
    problem_dims d;
    cl_err e = {{0}};
    assert_true(problem_parse_size(ops->spec, "30x20x10", &d, &e));
    problem_data p;
    assert_true(problem_new(&p, ops, &d, &e));
    problem_arg a[PROBLEM_MAX_ARGS];
    assert_int_equal(problem_args(&p, a), 6);
    assert_int_equal(a[0].count, 300);
    assert_int_equal(a[1].count, 200);
    assert_int_equal(a[2].count, 600);
    assert_int_equal(a[3].value, 30);
    assert_int_equal(a[4].value, 20);
    assert_int_equal(a[5].value, 10);
    assert_ptr_equal(a[2].buf, &p.dout);
    problem_free(&p);
}

int main(void)
{
    setenv("CUDA_VISIBLE_DEVICES", "", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compile_error_rows),
        cmocka_unit_test(test_starters_compile_and_say_no_device),
        cmocka_unit_test(test_shipped_kernel_refused),
        cmocka_unit_test(test_unknown_size_and_problem),
        cmocka_unit_test(test_launcher_syntax_error_row),
        cmocka_unit_test(test_launcher_stages),
        cmocka_unit_test(test_diagnostics_text),
        cmocka_unit_test(test_problem_args),
    };
    int rc = cmocka_run_group_tests(tests, ts_tmp_setup, ts_tmp_teardown);
    engine_shutdown();
    return rc;
}
