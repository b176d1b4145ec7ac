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

/* A request for every non-library launcher of problem this device runs,
 * with its library; *precisions (when not NULL) gets how many precisions
 * other than the problem's own those launchers compute in. */
static void all_rungs_n(run_request *req, const char *problem, const char *library,
                        int *precisions)
{
    memset(req, 0, sizeof *req);
    req->run = 1;
    snprintf(req->problem, sizeof req->problem, "%s", problem);
    snprintf(req->library, sizeof req->library, "%s", library);
    req->budget_s = 0.02;
    req->cpu = false;
    size_t n = 0;
    const shipped_kernel *k = kernels_shipped(&n);
    const char *seen[8];
    int nseen = 0;
    for (size_t i = 0; i < n && req->nvariants < RUN_MAX_VARIANTS; i++) {
        if (k[i].library || strcmp(k[i].problem, problem) != 0 ||
            !kernels_runs_on(&k[i], g_dev.cc_major * 10 + g_dev.cc_minor))
            continue;
        ts_add_variant(req, k[i].name, k[i].name);
        bool known = !k[i].precision;
        for (int j = 0; j < nseen; j++)
            known |= strcmp(seen[j], k[i].precision) == 0;
        if (!known && nseen < 8)
            seen[nseen++] = k[i].precision;
    }
    if (precisions)
        *precisions = nseen;
}

static void all_rungs(run_request *req, const char *problem, const char *library)
{
    all_rungs_n(req, problem, library, NULL);
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
    int precisions = 0;
    all_rungs_n(&req, "sgemm", "cublas", &precisions);
    assert_true(req.nvariants >= 1);
    ts_add_size(&req, "31x17x9");
    ts_add_size(&req, "1025x513x257");
    static ts_rows c;
    run_ok(&req, &c);
    /* Each size: the library at each other precision, the rungs, then cuBLAS FP32. */
    assert_all_correct(&c, 2 * (req.nvariants + 1 + precisions));
    for (int i = 0; i < c.nrows; i++) {
        const run_result *r = &c.rows[i];
        assert_true(r->tflops > 0.0);
        const shipped_kernel *k = kernels_find(r->variant);
        if (k && k->precision)   /* tensor cores: no share of the FP32 peak */
            assert_true(r->pct_peak_measured < 0.0);
        else
            assert_true(r->pct_peak_measured > 0.0 && r->pct_peak_measured < 100.0);
    }
}

/* Rungs in TF32 and BF16 beside FP32 at the lab's smallest size: each is
 * checked within its precision's tolerance and shows its error; cuBLAS at
 * each precision comes first and is what x lib compares with; cuBLAS FP32
 * stays the last library row. */
static void test_sgemm_precisions(void **state)
{
    (void)state;
    if (g_dev.cc_major < 8) {
        print_message("compute capability %d.%d: no TF32 or BF16 tensor cores\n", g_dev.cc_major,
                      g_dev.cc_minor);
        skip();
    }
    run_request req;
    all_rungs(&req, "sgemm", "cublas");
    req.nvariants = 0;
    ts_add_variant(&req, "warptile", "sgemm_warptile");
    ts_add_variant(&req, "wmma_tf32", "gemm_wmma_tf32");
    ts_add_variant(&req, "wmma_bf16", "gemm_wmma_bf16");
    ts_add_variant(&req, "wmma_async", "gemm_wmma_async");
    req.budget_s = 0.1;
    ts_add_size(&req, "1024");
    static ts_rows c;
    run_ok(&req, &c);
    static const char *const order[] = {"cublas_tf32", "cublas_bf16", "warptile", "wmma_tf32",
                                        "wmma_bf16", "wmma_async", "cublas"};
    assert_int_equal(c.nrows, 7);
    for (int i = 0; i < 7; i++) {
        const run_result *r = &c.rows[i];
        print_message("%-12s %-10s %.4f ms  rel err %.2e  x lib %.3f\n", r->variant,
                      result_status_name(r->status), r->median_ms, r->rel_err, r->speedup_lib);
        assert_string_equal(r->variant, order[i]);
        assert_int_equal(r->status, RS_CORRECT);
        assert_int_equal(r->kind, i < 2 || i == 6 ? RK_LIBRARY : RK_KERNEL);
    }
    assert_string_equal(c.rows[0].label, "cuBLAS TF32");
    /* What each precision costs: FP32 ~1e-7, TF32 ~3e-4, BF16 ~2e-3. */
    assert_true(c.rows[2].rel_err < 1e-5 && c.rows[6].rel_err < 1e-5);
    static const int tf32[] = {0, 3}, bf16[] = {1, 4, 5};
    for (size_t i = 0; i < 2; i++)
        assert_true(c.rows[tf32[i]].rel_err > 1e-5 && c.rows[tf32[i]].rel_err < 5e-3);
    for (size_t i = 0; i < 3; i++)
        assert_true(c.rows[bf16[i]].rel_err > 1e-4 && c.rows[bf16[i]].rel_err < 3e-2);
    /* x lib against cuBLAS at the same precision. */
    assert_true(fabs(c.rows[3].speedup_lib - c.rows[0].median_ms / c.rows[3].median_ms) <
                1e-9 * c.rows[3].speedup_lib);
    assert_true(fabs(c.rows[4].speedup_lib - c.rows[1].median_ms / c.rows[4].median_ms) <
                1e-9 * c.rows[4].speedup_lib);
    assert_true(fabs(c.rows[2].speedup_lib - c.rows[6].median_ms / c.rows[2].median_ms) <
                1e-9 * c.rows[2].speedup_lib);
}

/* The Hopper rung: on 9.0 it runs correct beside cuBLAS BF16, which x lib
 * compares it with; elsewhere its row says why it cannot run. */
static void test_sgemm_wgmma(void **state)
{
    (void)state;
    const shipped_kernel *k = kernels_find("gemm_wgmma");
    assert_non_null(k);
    const bool runs = kernels_runs_on(k, g_dev.cc_major * 10 + g_dev.cc_minor);
    run_request req;
    all_rungs(&req, "sgemm", "cublas");
    req.nvariants = 0;
    ts_add_variant(&req, "wgmma", "gemm_wgmma");
    req.budget_s = 0.1;
    ts_add_size(&req, "1024");
    ts_add_size(&req, "1000x999x1001");
    static ts_rows c;
    run_ok(&req, &c);
    int seen = 0;
    for (int i = 0; i < c.nrows; i++) {
        const run_result *r = &c.rows[i];
        print_message("%-12s %-14s %-10s %.4f ms  x lib %.3f  %s\n", r->variant, r->size,
                      result_status_name(r->status), r->median_ms, r->speedup_lib, r->message);
        if (strcmp(r->variant, "wgmma") != 0) continue;
        seen++;
        if (runs) {
            assert_int_equal(r->status, RS_CORRECT);
            assert_true(r->speedup_lib > 0.0);
        } else {
            assert_int_not_equal(r->status, RS_CORRECT);
            assert_non_null(strstr(r->message, "needs a Hopper GPU"));
        }
    }
    assert_int_equal(seen, 2);
}

/* A rung slower than a twentieth of the budget a run is timed by three
 * runs, its two checked ones among them. */
static void test_slow_row(void **state)
{
    (void)state;
    run_request req;
    all_rungs(&req, "sgemm", "");
    req.nvariants = 0;
    ts_add_variant(&req, "naive", "sgemm_naive");
    req.budget_s = 0.05;
    ts_add_size(&req, "1024");
    static ts_rows c;
    run_ok(&req, &c);
    assert_int_equal(c.nrows, 1);
    const run_result *r = &c.rows[0];
    print_message("%s: %.3f ms, %d samples: %s\n", r->variant, r->median_ms, r->samples, r->message);
    assert_int_equal(r->status, RS_CORRECT);
    assert_true(r->median_ms > 2.5);
    assert_int_equal(r->samples, 3);
    assert_non_null(strstr(r->message, "slow at this size"));
    assert_true(r->min_ms <= r->median_ms && r->median_ms <= r->max_ms);
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
        ts_data_home(data);
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
        cmocka_unit_test(test_sgemm_precisions),
        cmocka_unit_test(test_sgemm_wgmma),
        cmocka_unit_test(test_slow_row),
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
