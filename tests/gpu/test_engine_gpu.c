/* The engine on a real device: every shipped launcher of each problem runs
 * correct at awkward sizes through engine_run, the derived figures make
 * sense, a repeated timing reproduces, and a raw kernel launched from Lua
 * gives the right answer.  Skips (exit 77) without a device. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lua.h>

#include "core/devinfo.h"
#include "kernels.h"
#include "lab/sandbox.h"
#include "support.h"
#include "engine/engine.h"
#include "luagpu/luagpu.h"

static char g_tmp[CL_PATH_MAX];
static device_info g_dev;

/* Runs req into c, printing each log message as it comes. */
static void run_ok(const run_request *req, ts_rows *c)
{
    c->echo = true;
    run_fault f;
    bool ok = ts_engine_run(req, c, &f);
    if (!ok)
        print_message("fault: %s: %s\n", f.cause, f.message);
    assert_true(ok);
}

/* A request for every non-library launcher of problem, with its library. */
static void all_rungs(run_request *req, const char *problem, const char *library)
{
    memset(req, 0, sizeof *req);
    req->run = 1;
    snprintf(req->problem, sizeof req->problem, "%s", problem);
    snprintf(req->library, sizeof req->library, "%s", library);
    req->budget_s = 0.02;
    req->cpu = false;
    size_t n = 0;
    const shipped_kernel *k = kernels_shipped(&n);
    for (size_t i = 0; i < n && req->nvariants < RUN_MAX_VARIANTS; i++) {
        if (k[i].library || strcmp(k[i].problem, problem) != 0)
            continue;
        ts_add_variant(req, k[i].name, k[i].name);
    }
}

static void assert_all_correct(const ts_rows *c, int expect_rows)
{
    assert_int_equal(c->nrows, expect_rows);
    for (int i = 0; i < c->nrows; i++) {
        const run_result *r = &c->rows[i];
        if (r->status != RS_CORRECT)
            print_message("%s at %s: %s: %s\n", r->variant, r->size,
                          result_status_name(r->status), r->message);
        assert_int_equal(r->status, RS_CORRECT);
        assert_true(r->median_ms > 0.0);
        assert_true(r->samples >= 1);
        assert_true(r->gbps > 0.0);
    }
}

static void test_reduce_all(void **state)
{
    (void)state;
    run_request req;
    all_rungs(&req, "reduce_sum", "cub");
    assert_true(req.nvariants >= 1);
    ts_add_size(&req, "1");
    ts_add_size(&req, "31");
    ts_add_size(&req, "1025");
    ts_add_size(&req, "2^20+3");
    static ts_rows c;
    run_ok(&req, &c);
    assert_all_correct(&c, 4 * (req.nvariants + 1));
    for (int i = 0; i < c.nrows; i++) {
        assert_true(c.rows[i].tflops > 0.0);
        assert_true(c.rows[i].pct_peak_measured > 0.0);
        if (c.rows[i].kind == RK_KERNEL)
            assert_true(c.rows[i].speedup_lib > 0.0);
    }
    assert_int_equal(c.rows[req.nvariants].kind, RK_LIBRARY);
    assert_string_equal(c.rows[req.nvariants].variant, "cub");
}

static void test_sgemm_all(void **state)
{
    (void)state;
    run_request req;
    all_rungs(&req, "sgemm", "cublas");
    assert_true(req.nvariants >= 1);
    ts_add_size(&req, "31x17x9");
    ts_add_size(&req, "1025x513x257");
    static ts_rows c;
    run_ok(&req, &c);
    assert_all_correct(&c, 2 * (req.nvariants + 1));
    for (int i = 0; i < c.nrows; i++) {
        assert_true(c.rows[i].tflops > 0.0);
        assert_true(c.rows[i].pct_peak_measured > 0.0 && c.rows[i].pct_peak_measured < 100.0);
    }
}

static void test_embedding_all(void **state)
{
    (void)state;
    run_request req;
    all_rungs(&req, "embedding", "copy");
    assert_true(req.nvariants >= 1);
    ts_add_size(&req, "31x33x7");
    ts_add_size(&req, "1025x4100x1000");
    static ts_rows c;
    run_ok(&req, &c);
    assert_all_correct(&c, 2 * (req.nvariants + 1));
    for (int i = 0; i < c.nrows; i++) {
        assert_true(c.rows[i].tflops < 0.0);
        assert_true(c.rows[i].rel_err == 0.0);
        assert_true(c.rows[i].pct_peak_measured > 0.0);
    }
}

static void test_cpu_rows_with_device(void **state)
{
    (void)state;
    run_request req;
    all_rungs(&req, "reduce_sum", "cub");
    req.nvariants = 1;
    req.cpu = true;
    ts_add_size(&req, "1<<20");
    static ts_rows c;
    run_ok(&req, &c);
    assert_int_equal(c.nrows, 4);
    assert_int_equal(c.rows[2].kind, RK_CPU);
    assert_int_equal(c.rows[3].kind, RK_CPU_MT);
    assert_int_equal(c.rows[2].status, RS_CORRECT);
    assert_true(c.rows[0].speedup_cpu > 0.0 && c.rows[0].speedup_cpu_mt > 0.0);
    assert_true(fabs(c.rows[0].speedup_cpu - c.rows[2].median_ms / c.rows[0].median_ms) <
                1e-9 * c.rows[0].speedup_cpu);
}

static void test_timing_reproducible(void **state)
{
    (void)state;
    run_request req;
    all_rungs(&req, "reduce_sum", "cub");
    req.variants[0] = req.variants[req.nvariants - 1];
    req.nvariants = 1;
    req.budget_s = 0.5;
    ts_add_size(&req, "1<<24");
    static ts_rows a, b;
    run_ok(&req, &a);
    run_ok(&req, &b);
    for (int i = 0; i < 2; i++) {
        double m1 = a.rows[i].median_ms, m2 = b.rows[i].median_ms;
        print_message("%s: %.4f ms then %.4f ms (spread %.4f, %d samples)\n", a.rows[i].variant,
                      m1, m2, a.rows[i].spread, a.rows[i].samples);
        assert_true(m1 > 0.0 && m2 > 0.0);
        assert_true(fabs(m1 - m2) <= 0.05 * m1);
    }
}

static void test_lua_launch(void **state)
{
    (void)state;
    cl_err e = {{0}};
    lab_state *s = sandbox_new(0, 0, &e);
    assert_non_null(s);
    assert_true(luagpu_install(s, &e));
    struct lua_State *L = sandbox_lua(s);

    const char *sum =
        "local n = 1000\n"
        "local x <close> = gpu.alloc(n)\n"
        "x:fill(1.5)\n"
        "local block = 256\n"
        "local grid = (n + block - 1) // block\n"
        "local part <close> = gpu.alloc(grid, 'f32')\n"
        "local k = gpu.kernel('reduce_sequential')\n"
        "local e1, e2 = gpu.event(), gpu.event()\n"
        "e1:record()\n"
        "gpu.launch(k, {grid = grid, block = {block, 1, 1}, shared = block * 4}, x, part, n)\n"
        "e2:record()\n"
        "local ms = gpu.elapsed(e1, e2)\n"
        "gpu.synchronize()\n"
        "local t = part:download()\n"
        "local total = 0\n"
        "for i = 1, #t do total = total + t[i] end\n"
        "local ints <close> = gpu.alloc(3, 'i32')\n"
        "ints:upload({7, -8, 2147483647})\n"
        "local back = ints:download()\n"
        "return total, #x, x.dtype, x.size, ms, back[1] + back[2], back[3]\n";
    if (!ts_lua_run(s, g_tmp, "sum", sum, 7, &e))
        print_message("%s\n", e.msg);
    assert_true(lua_tonumber(L, -7) == 1500.0);
    assert_int_equal(lua_tointeger(L, -6), 1000);
    assert_string_equal(lua_tostring(L, -5), "f32");
    assert_int_equal(lua_tointeger(L, -4), 4000);
    assert_true(lua_tonumber(L, -3) >= 0.0);
    assert_int_equal(lua_tointeger(L, -2), -1);
    assert_int_equal(lua_tointeger(L, -1), 2147483647);
    lua_pop(L, 7);

    const char *big =
        "local x = gpu.alloc(64)\n"
        "gpu.launch('reduce_sequential', {grid = 1, block = 2048}, x, x, 64)\n";
    assert_false(ts_lua_run(s, g_tmp, "big", big, 0, &e));
    assert_non_null(strstr(e.msg, "block of 2048 threads: the limit is 1024 per block"));

    const char *args =
        "local x = gpu.alloc(64)\n"
        "gpu.launch('reduce_sequential', {grid = 1, block = 64}, x, x)\n";
    assert_false(ts_lua_run(s, g_tmp, "args", args, 0, &e));
    assert_non_null(strstr(e.msg, "takes 3 arguments"));

    const char *range =
        "local x = gpu.alloc(64)\n"
        "gpu.launch('embed_naive', {grid = 1, block = 64}, x, x, x, 1, 1, 1 << 40)\n";
    assert_false(ts_lua_run(s, g_tmp, "range", range, 0, &e));
    assert_non_null(strstr(e.msg, "does not fit in int32"));

    const char *huge = "local x = gpu.alloc(1 << 40)\n";
    assert_false(ts_lua_run(s, g_tmp, "huge", huge, 0, &e));
    assert_non_null(strstr(e.msg, "device has"));
    sandbox_free(s);
}

static int setup(void **state)
{
    (void)state;
    if (!ts_tmpdir(g_tmp, sizeof g_tmp, "engine-gpu"))
        return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return ts_rm_rf(g_tmp) ? 0 : -1;
}

int main(void)
{
    char data[CL_PATH_MAX];
    if (ts_tmpdir(data, sizeof data, "engine-data"))
        setenv("XDG_DATA_HOME", data, 1);
    engine_probe(&g_dev);
    if (!g_dev.present) {
        printf("SKIP: %s\n", g_dev.reason);
        ts_rm_rf(data);
        return 77;
    }
    printf("%s, cc %d.%d, %d SMs, copy %.0f GB/s (theory %.0f GB/s), FP32 %.1f TFLOP/s\n",
           g_dev.name, g_dev.cc_major, g_dev.cc_minor, g_dev.sm_count, g_dev.peak_bw_measured_gbs,
           g_dev.peak_bw_theory_gbs, g_dev.peak_fp32_tflops);
    if (!(g_dev.peak_bw_measured_gbs > 0.0)) {
        printf("the copy bandwidth was not measured\n");
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reduce_all),
        cmocka_unit_test(test_sgemm_all),
        cmocka_unit_test(test_embedding_all),
        cmocka_unit_test(test_cpu_rows_with_device),
        cmocka_unit_test(test_timing_reproducible),
        cmocka_unit_test(test_lua_launch),
    };
    int rc = cmocka_run_group_tests(tests, setup, teardown);
    engine_shutdown();
    if (!ts_rm_rf(data))
        rc = rc ? rc : 1;
    return rc;
}
