/* A problem a lab declares (lua/problems.md), run by the engine without a
 * GPU: its inputs made from the declared fills, its Lua reference, the
 * judging of outputs (right, wrong, unwritten, by a Lua judge), a builtin's
 * CPU baselines through the engine, and every way a lab's functions can
 * misbehave becoming an error with the lab file's line.  CUDA_VISIBLE_DEVICES
 * is emptied first, so this holds on GPU machines too. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/problem_decl.h"
#include "lab/labmodel.h"
#include "lab/probdecl.h"
#include "support.h"

static lab *load(const char *name)
{
    char path[4096], home[4096];
    ts_data_path(path, sizeof path, "lab/fixtures/declared/%s/lab.lua", name);
    ts_home_path(home, sizeof home, "%s", "");
    lab *l = ts_lab_load(path, home, NULL);
    assert_non_null(l);
    return l;
}

/* problem_data over the lab's problem at label, made and referenced. */
static void make(lab *l, decl_problem *dp, const char *label, problem_data *p, cl_err *e,
                 bool want_ok)
{
    assert_true(l->ndecls >= 1);
    problem_decl_init(dp, &l->decls[0]);
    problem_dims d;
    assert_true(problem_parse_size(&l->decls[0].spec, label, &d, e));
    assert_true(problem_new(p, &dp->ops, &d, e));
    bool ok = problem_prepare(p, 42, e);
    if (ok != want_ok)
        fail_msg("prepare at %s: %s (%s)", label, ok ? "ok" : "failed", e->msg);
}

static void test_square_end_to_end(void **state)
{
    (void)state;
    lab *l = load("square");
    decl_problem dp;
    problem_data p;
    cl_err e = {{0}};
    make(l, &dp, "2^10+1", &p, &e, true);
    const decl_buf *x = &p.decl->b[0], *y = &p.decl->b[1];
    assert_int_equal(x->count, 1025);
    assert_int_equal(y->count, 1025);
    assert_true(p.decl->value[2] == 1025.0);
    const float *xs = x->host;
    for (size_t i = 0; i < x->count; i++) {
        assert_true(xs[i] >= -2.0f && xs[i] < 2.0f);
        assert_true(y->ref[i] == (double)xs[i] * (double)xs[i]);
    }
    /* a kernel that squares right, one that is off by one element, one that
     * skips the last element */
    float *ys = y->host;
    for (size_t i = 0; i < y->count; i++)
        ys[i] = xs[i] * xs[i];
    check_report r = problem_check(&p);
    assert_int_equal(r.status, CHECK_OK);
    ys[17] += 1.0f;
    r = problem_check(&p);
    assert_int_equal(r.status, CHECK_WRONG);
    assert_int_equal(r.mismatch[0].index, 17);
    ys[17] = xs[17] * xs[17];
    problem_poison_host(&p);
    for (size_t i = 0; i + 1 < y->count; i++)
        ys[i] = xs[i] * xs[i];
    r = problem_check(&p);
    assert_int_equal(r.status, CHECK_UNWRITTEN);
    assert_int_equal(r.unwritten, 1);
    /* the copy baseline moves the output twice; the spec counts bytes */
    assert_true(problem_copy_bytes(&p) == 2.0 * 1025 * 4);
    assert_true(problem_spec_bytes(&l->decls[0].spec, &p.d) == 8.0 * 1025);
    /* fresh inputs for another seed */
    float first = xs[0];
    assert_true(problem_prepare(&p, 43, &e));
    assert_true(xs[0] != first);
    problem_free(&p);
    lab_free(l);
}

/* The check after timing's inputs (problem_data's narrow): drawn from the
 * low share of the declared uniform(-2, 2), still inside it, with the
 * reference following them; narrow 0 is the declared distribution again. */
static void test_narrowed_inputs(void **state)
{
    (void)state;
    lab *l = load("square");
    decl_problem dp;
    problem_data p;
    cl_err e = {{0}};
    make(l, &dp, "2^16", &p, &e, true);
    const decl_buf *x = &p.decl->b[0], *y = &p.decl->b[1];
    const float *xs = x->host;
    p.narrow = 0.75;
    assert_true(problem_prepare(&p, 44, &e));
    float lo = 2.0f, hi = -2.0f;
    for (size_t i = 0; i < x->count; i++) {
        lo = xs[i] < lo ? xs[i] : lo;
        hi = xs[i] > hi ? xs[i] : hi;
        assert_true(y->ref[i] == (double)xs[i] * (double)xs[i]);
    }
    assert_true(lo >= -2.0f && hi < 1.0f && hi > 0.9f);
    p.narrow = 0.0;
    assert_true(problem_prepare(&p, 44, &e));
    hi = -2.0f;
    for (size_t i = 0; i < x->count; i++)
        hi = xs[i] > hi ? xs[i] : hi;
    assert_true(hi > 1.9f && hi < 2.0f);
    problem_free(&p);
    lab_free(l);
}

/* A fill function gets the check's seed: two checks, two sets of values
 * (a launcher replaying a kept answer would fail the second). */
static void test_fill_function_seeded(void **state)
{
    (void)state;
    lab *l = load("seeded");
    decl_problem dp;
    problem_data p;
    cl_err e = {{0}};
    make(l, &dp, "2^10", &p, &e, true);
    const float *xs = p.decl->b[0].host;
    float first[4];
    memcpy(first, xs, sizeof first);
    assert_true(xs[0] >= 0.0f && xs[0] < 1.0f);
    assert_true(problem_prepare(&p, 43, &e));
    assert_true(memcmp(first, xs, sizeof first) != 0);
    assert_true(p.decl->b[1].ref[0] == (double)xs[0] * (double)xs[0]);
    assert_true(problem_prepare(&p, 42, &e));
    assert_memory_equal(first, xs, sizeof first);
    problem_free(&p);
    lab_free(l);
}

/* A float scalar reaches the Lua reference as the kernel gets it (0.1
 * rounded to a float), so a kernel's exact answer is judged right. */
static void test_float_scalars_as_the_kernel_gets_them(void **state)
{
    (void)state;
    lab *l = load("clamp");
    decl_problem dp;
    problem_data p;
    cl_err e = {{0}};
    make(l, &dp, "2^10", &p, &e, true);
    const float *xs = p.decl->b[0].host;
    float *ys = p.decl->b[1].host;
    const float lo = (float)p.decl->value[2], hi = (float)p.decl->value[3];
    assert_true(hi == 0.1f);
    size_t clamped = 0;
    for (size_t i = 0; i < p.decl->b[1].count; i++) {
        ys[i] = fminf(fmaxf(xs[i], lo), hi);
        clamped += xs[i] > hi;
    }
    assert_true(clamped > 0);   /* the rounded bound is compared, not a lucky miss */
    check_report r = problem_check(&p);
    assert_int_equal(r.status, CHECK_OK);
    problem_free(&p);
    lab_free(l);
}

static void test_sizes_and_limits(void **state)
{
    (void)state;
    lab *l = load("square");
    const problem_spec *spec = &l->decls[0].spec;
    problem_dims d;
    cl_err e = {{0}};
    assert_true(problem_parse_size(spec, "2^28", &d, &e));
    assert_false(problem_parse_size(spec, "2^28+1", &d, &e));
    assert_true(ts_contains(e.msg, "2^28+1 is larger than the limit 268435456 (2^28)"));
    assert_false(problem_parse_size(spec, "4x4", &d, &e));
    assert_false(problem_parse_size(spec, "lots", &d, &e));
    lab_free(l);
}

static void test_builtin_cpu_rows(void **state)
{
    (void)state;
    char path[4096];
    ts_data_path(path, sizeof path, "lab/fixtures/declared/psum/lab.lua");
    run_request req;
    memset(&req, 0, sizeof req);
    req.run = 3;
    snprintf(req.problem, sizeof req.problem, "psum");
    snprintf(req.library, sizeof req.library, "builtin");
    snprintf(req.lab_file, sizeof req.lab_file, "%s", path);
    ts_add_variant(&req, "naive", NULL);
    ts_add_size(&req, "1000");
    ts_add_size(&req, "2^23+3");   /* a float running sum would drift past 1e-5 here */
    req.cpu = true;
    req.budget_s = 0.05;
    static ts_rows c;
    assert_true(ts_engine_run(&req, &c, NULL));
    for (int k = RK_CPU; k <= RK_CPU_MT; k++) {
        const run_result *big = ts_row_of_kind(&c, (result_kind)k, "2^23+3");
        assert_non_null(big);
        if (big->status != RS_CORRECT)
            fail_msg("the CPU scan at 2^23+3: %s", big->message);
    }
    const run_result *cpu = ts_row_of_kind(&c, RK_CPU, "1000");
    const run_result *mt = ts_row_of_kind(&c, RK_CPU_MT, "1000");
    const run_result *lib = ts_row_of_kind(&c, RK_LIBRARY, "1000");
    const run_result *rung = ts_row(&c, "naive", "1000");
    if (!cpu || !mt || !lib || !rung)
        ts_rows_dump(&c);
    assert_non_null(cpu);
    assert_non_null(mt);
    assert_int_equal(cpu->status, RS_CORRECT);
    assert_int_equal(mt->status, RS_CORRECT);
    assert_true(cpu->median_ms > 0.0 && cpu->gbps > 0.0);
    assert_string_equal(lib->variant, "cub_scan");
    assert_string_equal(lib->label, "CUB scan");
    assert_int_equal(lib->status, RS_NO_DEVICE);
    assert_int_equal(rung->status, RS_NO_DEVICE);
}

/* Each size of the hostile lab goes wrong in its own way. */
static void expect_error(lab *l, const char *label, bool at_prepare, const char *part)
{
    decl_problem dp;
    problem_data p;
    cl_err e = {{0}};
    make(l, &dp, label, &p, &e, !at_prepare);
    if (at_prepare) {
        if (!strstr(e.msg, part) || !strstr(e.msg, "hostile/lab.lua:"))
            fail_msg("size %s: expected \"%s\" with the lab's line in \"%s\"", label, part, e.msg);
    } else {
        /* the judge itself fails: the check says so, blaming the lab */
        float *ys = p.decl->b[1].host;
        for (size_t i = 0; i < p.decl->b[1].count; i++)
            ys[i] = (float)p.decl->b[1].ref[i];
        check_report r = problem_check(&p);
        assert_int_equal(r.status, CHECK_ERROR);
        if (!strstr(r.note, part) || !strstr(r.note, "hostile/lab.lua:"))
            fail_msg("size %s: expected \"%s\" in \"%s\"", label, part, r.note);
    }
    problem_free(&p);
}

static void test_hostile_functions(void **state)
{
    (void)state;
    lab *l = load("hostile");
    /* size 4 is well behaved: the Lua judge passes and names a wrong element */
    decl_problem dp;
    problem_data p;
    cl_err e = {{0}};
    make(l, &dp, "4", &p, &e, true);
    float *ys = p.decl->b[1].host;
    for (size_t i = 0; i < 4; i++)
        ys[i] = (float)p.decl->b[1].ref[i];
    assert_int_equal(problem_check(&p).status, CHECK_OK);
    ys[2] = -1.0f;
    check_report r = problem_check(&p);
    assert_int_equal(r.status, CHECK_WRONG);
    char msg[512];
    check_describe(&r, msg, sizeof msg);
    assert_true(ts_contains(msg, "y[2] is off"));
    problem_free(&p);
    expect_error(l, "5", false, "the judge fell over");
    expect_error(l, "6", true, "left y[0] unwritten");
    expect_error(l, "7", true, "script ran longer than");
    expect_error(l, "8", true, "no values for you");
    expect_error(l, "9", true, "must return a list of 9 values");
    lab_free(l);
}

/* Without a device, the lab's kernels are still compiled: a rung that
 * does not compile is an error row naming its file from the lab folder,
 * and a reference kernel that does not compile makes every GPU row an
 * error that says so. */
static void test_compile_without_device(void **state)
{
    (void)state;
    char src[4096], dir[4096], path[4096 + 32];
    ts_data_path(src, sizeof src, "lab/fixtures/declared/rowsum");
    snprintf(dir, sizeof dir, "%s/rowsum", ts_tmp);
    ts_output o = {0};
    assert_int_equal(ts_shell(&o, true, "cp -r '%s' '%s' && echo 'garbage here' >> "
                                        "'%s/ref/rowsum.cu'", src, dir, dir), 0);
    ts_output_free(&o);
    run_request req;
    memset(&req, 0, sizeof req);
    req.run = 4;
    snprintf(req.problem, sizeof req.problem, "rowsum");
    snprintf(path, sizeof path, "%s/lab.lua", dir);
    snprintf(req.lab_file, sizeof req.lab_file, "%s", path);
    ts_add_variant(&req, "thread_row", NULL);
    ts_add_variant(&req, "broken", NULL);
    ts_add_size(&req, "64x100");
    static ts_rows c;
    assert_true(ts_engine_run(&req, &c, NULL));
    const run_result *ok = ts_row(&c, "thread_row", "64x100");
    const run_result *broken = ts_row(&c, "broken", "64x100");
    assert_non_null(ok);
    assert_non_null(broken);
    assert_int_equal(broken->status, RS_ERROR);
    if (!ts_contains(broken->message, "rung 'broken': rungs/broken.cu:5:5: error:"))
        fail_msg("the broken rung says: %s", broken->message);
    /* the rows that would be judged against the reference say why they cannot be */
    assert_int_equal(ok->status, RS_ERROR);
    if (!ts_contains(ok->message, "the lab's reference kernel: ref/rowsum.cu:13:1: error:"))
        fail_msg("the rung's row says: %s", ok->message);
}

int main(void)
{
    setenv("CUDA_VISIBLE_DEVICES", "", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_square_end_to_end),
        cmocka_unit_test(test_narrowed_inputs),
        cmocka_unit_test(test_fill_function_seeded),
        cmocka_unit_test(test_float_scalars_as_the_kernel_gets_them),
        cmocka_unit_test(test_sizes_and_limits),
        cmocka_unit_test(test_builtin_cpu_rows),
        cmocka_unit_test(test_hostile_functions),
        cmocka_unit_test(test_compile_without_device),
    };
    return cmocka_run_group_tests(tests, ts_tmp_setup, ts_tmp_teardown);
}
