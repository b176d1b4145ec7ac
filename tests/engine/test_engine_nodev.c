/* The engine without a CUDA device: CPU rows are measured and checked,
 * every GPU row says "no CUDA device found", the CPU timings are cached,
 * and the Lua gpu table refuses every call with the same reason.
 * CUDA_VISIBLE_DEVICES is emptied first, so this holds on GPU machines too. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/devinfo.h"
#include "gpu/device.h"
#include "lab/sandbox.h"
#include "support.h"
#include "engine/engine.h"
#include "engine/engine_cpu.h"
#include "luagpu/luagpu.h"

static void request(run_request *req, const char *problem, const char *library)
{
    memset(req, 0, sizeof *req);
    req->run = 7;
    snprintf(req->problem, sizeof req->problem, "%s", problem);
    snprintf(req->library, sizeof req->library, "%s", library);
    req->cpu = true;
    req->budget_s = 0.05;
}

static void assert_no_device_row(const run_result *r)
{
    assert_int_equal(r->status, RS_NO_DEVICE);
    assert_true(strncmp(r->message, "no CUDA device found: ", 22) == 0);
    assert_true(strlen(r->message) > 22);
}

static void assert_cpu_row(const run_result *r, result_kind kind, const char *size)
{
    assert_int_equal(r->kind, kind);
    assert_string_equal(r->variant, kind == RK_CPU ? "cpu" : "cpu_mt");
    assert_string_equal(r->size, size);
    assert_int_equal(r->status, RS_CORRECT);
    assert_true(r->median_ms > 0.0);
    assert_true(r->min_ms <= r->median_ms && r->median_ms <= r->max_ms);
    assert_true(r->samples >= 1);
    assert_true(r->gbps > 0.0);
    assert_true(r->pct_peak_measured < 0.0);
    assert_int_equal(r->run, 7);
    if (kind == RK_CPU) {
        assert_int_equal(r->threads, 1);
        assert_true(r->speedup_cpu > 0.999 && r->speedup_cpu < 1.001);
    } else {
        assert_true(r->threads >= 1);
    }
    assert_non_null(strstr(r->message, "ok:"));
    assert_non_null(strstr(r->message, "thread"));
}

static void test_probe(void **state)
{
    (void)state;
    device_info d;
    engine_probe(&d);
    assert_false(d.present);
    assert_true(strncmp(d.reason, "no CUDA device found: ", 22) == 0);
    print_message("%s\n", d.reason);
}

static void test_reduce_rows(void **state)
{
    (void)state;
    run_request req;
    request(&req, "reduce_sum", "cub");
    ts_add_variant(&req, "naive", "reduce_interleaved_divergent");
    ts_add_variant(&req, "mine", "no_such_kernel");
    ts_add_size(&req, "1<<20");
    ts_add_size(&req, "31");
    static ts_rows c;
    assert_true(ts_engine_run(&req, &c, NULL));
    assert_int_equal(c.nrows, 2 * 5);
    const char *sizes[2] = {"1<<20", "31"};
    for (int s = 0; s < 2; s++) {
        const run_result *r = &c.rows[s * 5];
        assert_string_equal(r[0].variant, "naive");
        assert_int_equal(r[0].kind, RK_KERNEL);
        assert_string_equal(r[0].size, sizes[s]);
        assert_no_device_row(&r[0]);
        assert_string_equal(r[1].variant, "mine");
        assert_no_device_row(&r[1]);
        assert_string_equal(r[2].variant, "cub");
        assert_int_equal(r[2].kind, RK_LIBRARY);
        assert_no_device_row(&r[2]);
        assert_cpu_row(&r[3], RK_CPU, sizes[s]);
        assert_cpu_row(&r[4], RK_CPU_MT, sizes[s]);
        assert_true(r[3].tflops > 0.0);
    }
    assert_true(c.cpu_progress > 0);
    assert_true(c.rows[3].seed != c.rows[4].seed);
}

static void test_cache_round_trip(void **state)
{
    (void)state;
    run_request req;
    request(&req, "sgemm", "cublas");
    ts_add_variant(&req, "naive", "sgemm_naive");
    ts_add_size(&req, "31x17x9");
    req.seed = 1234;
    static ts_rows a, b;
    assert_true(ts_engine_run(&req, &a, NULL));
    assert_int_equal(a.nrows, 4);
    assert_cpu_row(&a.rows[2], RK_CPU, "31x17x9");
    assert_cpu_row(&a.rows[3], RK_CPU_MT, "31x17x9");
    assert_null(strstr(a.rows[2].message, "cached"));
    assert_true(a.cpu_progress > 0);

    char path[512];
    assert_true(engine_cpu_cache_path(path, sizeof path, NULL));
    assert_true(strncmp(path, ts_tmp, strlen(ts_tmp)) == 0);
    assert_int_equal(access(path, R_OK), 0);

    assert_true(ts_engine_run(&req, &b, NULL));
    assert_int_equal(b.nrows, 4);
    for (int i = 2; i < 4; i++) {
        assert_non_null(strstr(b.rows[i].message, "cached"));
        /* cJSON prints 15 significant digits when they read back within
         * one ulp, so the cached figure may differ in the last bit. */
        assert_true(fabs(b.rows[i].median_ms - a.rows[i].median_ms) <=
                    1e-12 * a.rows[i].median_ms);
        assert_true(b.rows[i].samples == a.rows[i].samples);
        assert_true(b.rows[i].seed == a.rows[i].seed);
        assert_int_equal(b.rows[i].status, RS_CORRECT);
    }
    assert_int_equal(b.cpu_progress, 0);
    assert_no_device_row(&b.rows[0]);
    assert_no_device_row(&b.rows[1]);
}

static void test_embedding_and_errors(void **state)
{
    (void)state;
    run_request req;
    request(&req, "embedding", "copy");
    ts_add_variant(&req, "naive", "embed_naive");
    ts_add_size(&req, "31x33x7");
    ts_add_size(&req, "31x33");
    static ts_rows c;
    assert_true(ts_engine_run(&req, &c, NULL));
    assert_int_equal(c.nrows, 8);
    assert_no_device_row(&c.rows[0]);
    assert_string_equal(c.rows[1].variant, "copy");
    assert_no_device_row(&c.rows[1]);
    assert_cpu_row(&c.rows[2], RK_CPU, "31x33x7");
    assert_true(c.rows[2].tflops < 0.0);
    assert_true(c.rows[2].rel_err == 0.0);
    assert_cpu_row(&c.rows[3], RK_CPU_MT, "31x33x7");
    for (int i = 4; i < 8; i++) {
        assert_int_equal(c.rows[i].status, RS_ERROR);
        assert_string_equal(c.rows[i].size, "31x33");
        assert_non_null(strstr(c.rows[i].message, "embedding size '31x33'"));
    }

    request(&req, "transpose", "");
    ts_add_variant(&req, "naive", "x");
    ts_add_size(&req, "1024");
    assert_true(ts_engine_run(&req, &c, NULL));
    assert_int_equal(c.nrows, 3);
    assert_non_null(strstr(c.rows[0].message, "unknown problem 'transpose'"));
}

/* The basics lab's problems: CPU rows correct at odd sizes (the
 * histogram's bytes past n must not count), every GPU row says why not,
 * every row carries the request's exercise id. */
static void test_basics_rows(void **state)
{
    (void)state;
    static const struct {
        const char *problem, *library, *variant, *kernel, *size;
    } cases[] = {
        {"saxpy", "copy", "grid", "saxpy_grid_stride", "2^20+3"},
        {"histogram", "", "global", "hist_global", "1000003"},
        {"managed", "", "prefetch", "um_prefetch", "4099"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        run_request req;
        request(&req, cases[k].problem, cases[k].library);
        ts_add_variant(&req, cases[k].variant, cases[k].kernel);
        ts_add_size(&req, cases[k].size);
        snprintf(req.exercise, sizeof req.exercise, "ex_%s", cases[k].problem);
        static ts_rows c;
        assert_true(ts_engine_run(&req, &c, NULL));
        int lib = cases[k].library[0] ? 1 : 0;
        assert_int_equal(c.nrows, 3 + lib);
        assert_no_device_row(&c.rows[0]);
        if (lib)
            assert_no_device_row(&c.rows[1]);
        assert_cpu_row(&c.rows[1 + lib], RK_CPU, cases[k].size);
        assert_cpu_row(&c.rows[2 + lib], RK_CPU_MT, cases[k].size);
        for (int i = 0; i < (int)c.nrows; i++)
            assert_string_equal(c.rows[i].exercise, req.exercise);
    }
}

static void test_lua_no_device(void **state)
{
    (void)state;
    device_info d;
    assert_false(device_probe(0, &d, NULL, 0));
    cl_err e = {{0}};
    lab_state *s = sandbox_new(0, 0, &e);
    assert_non_null(s);
    assert_true(luagpu_install(s, &e));

    const char *scripts[] = {
        "local b = gpu.alloc(16)\n",
        "gpu.synchronize()\n",
        "gpu.launch('reduce_sequential', {grid = 1, block = 32})\n",
        "local k = gpu.kernel('reduce_sequential')\n",
        "local ev = gpu.event()\n",
    };
    for (size_t i = 0; i < sizeof scripts / sizeof scripts[0]; i++) {
        char name[32];
        snprintf(name, sizeof name, "nodev%zu", i);
        assert_false(ts_lua_run(s, ts_tmp, name, scripts[i], 0, &e));
        const char *at = strstr(e.msg, "no CUDA device found: ");
        assert_non_null(at);
        assert_string_equal(at, d.reason);
        assert_non_null(strstr(e.msg, "nodev"));
    }
    sandbox_free(s);
}

int main(void)
{
    setenv("CUDA_VISIBLE_DEVICES", "", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_probe),
        cmocka_unit_test(test_reduce_rows),
        cmocka_unit_test(test_cache_round_trip),
        cmocka_unit_test(test_embedding_and_errors),
        cmocka_unit_test(test_basics_rows),
        cmocka_unit_test(test_lua_no_device),
    };
    int rc = cmocka_run_group_tests(tests, ts_tmp_setup, ts_tmp_teardown);
    engine_shutdown();
    return rc;
}
