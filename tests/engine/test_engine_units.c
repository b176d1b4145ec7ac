/* Unit tests for the engine's pure parts: size labels, byte and FLOP
 * counts, derived figures, the timing stop rule, the peak and CPU caches,
 * device arithmetic and the free-memory message. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "gpu/buffer.h"
#include "result/cuda_codes.h"
#include "gpu/cudacheck.h"
#include "gpu/device.h"
#include "gpu/peak.h"
#include "gpu/timing.h"
#include "engine/engine_cpu.h"
#include "engine/problem.h"
#include "engine/problem_decl.h"
#include "lab/labmodel.h"
#include "lab/labproblem.h"
#include "support.h"

static bool near(double a, double b, double rel)
{
    return fabs(a - b) <= rel * fabs(b);
}

static void test_parse_count(void **state)
{
    (void)state;
    int64_t v = 0;
    cl_err e = {{0}};
    assert_true(problem_parse_count("268435456", 1LL << 30, &v, &e));
    assert_int_equal(v, 268435456);
    assert_true(problem_parse_count("2^28", 1LL << 30, &v, &e));
    assert_int_equal(v, 1 << 28);
    assert_true(problem_parse_count("1<<28", 1LL << 30, &v, &e));
    assert_int_equal(v, 1 << 28);
    assert_true(problem_parse_count(" 3 << 4 ", 1LL << 30, &v, &e));
    assert_int_equal(v, 48);
    assert_true(problem_parse_count("10^3", 1LL << 30, &v, &e));
    assert_int_equal(v, 1000);
    assert_true(problem_parse_count("1", 10, &v, &e));
    assert_int_equal(v, 1);
    assert_true(problem_parse_count("2^20+3", 1LL << 30, &v, &e));
    assert_int_equal(v, (1 << 20) + 3);
    assert_true(problem_parse_count("1 << 20 - 1", 1LL << 30, &v, &e));
    assert_int_equal(v, (1 << 20) - 1);
    assert_true(problem_parse_count("2^31-1", 0x7fffffff, &v, &e));
    assert_int_equal(v, 0x7fffffff);
    assert_true(problem_parse_count("7^0", 10, &v, &e));
    assert_int_equal(v, 1);

    assert_false(problem_parse_count("", 100, &v, &e));
    assert_false(problem_parse_count("abc", 100, &v, &e));
    assert_non_null(strstr(e.msg, "not a count"));
    assert_false(problem_parse_count("0", 100, &v, &e));
    assert_non_null(strstr(e.msg, "at least 1"));
    assert_false(problem_parse_count("-5", 100, &v, &e));
    assert_false(problem_parse_count("2^31", 1LL << 30, &v, &e));
    assert_non_null(strstr(e.msg, "larger than"));
    assert_false(problem_parse_count("1<<63", 1LL << 30, &v, &e));
    assert_false(problem_parse_count("2^", 100, &v, &e));
    assert_false(problem_parse_count("12abc", 100, &v, &e));
    assert_false(problem_parse_count("99999999999999999999999", 100, &v, &e));
    assert_false(problem_parse_count("2^10-1024", 1LL << 30, &v, &e));
    assert_non_null(strstr(e.msg, "at least 1"));
    assert_false(problem_parse_count("2^20+", 1LL << 30, &v, &e));
    assert_false(problem_parse_count("2^20+3+4", 1LL << 30, &v, &e));
    assert_false(problem_parse_count("2^100-1", 1LL << 30, &v, &e));
    assert_non_null(strstr(e.msg, "larger than"));
    assert_false(problem_parse_count("0^5", 100, &v, &e));
}

static void test_parse_sizes(void **state)
{
    (void)state;
    problem_dims d;
    cl_err e = {{0}};
    const problem_spec *red = ts_shipped_spec("reduce_sum");
    const problem_spec *mm = problem_spec_find("sgemm");
    const problem_spec *emb = ts_shipped_spec("embedding");
    assert_non_null(mm);
    assert_null(problem_spec_find("transpose"));
    assert_null(problem_spec_find(NULL));
    assert_null(problem_spec_find("reduce_sum"));   /* declared in Lua, not in C */

    assert_true(problem_parse_size(red, "2^28", &d, &e));
    assert_int_equal(d.n, 1 << 28);
    assert_true(problem_parse_size(red, "1025", &d, &e));
    assert_int_equal(d.n, 1025);
    assert_false(problem_parse_size(red, "4096x4096", &d, &e));
    assert_non_null(strstr(e.msg, "reduce_sum size '4096x4096'"));
    assert_false(problem_parse_size(red, "", &d, &e));
    assert_non_null(strstr(e.msg, "empty size"));
    assert_false(problem_parse_size(red, "2^30+1", &d, &e));
    assert_non_null(strstr(e.msg, "2^30+1 is larger than the limit 1073741824 (2^30)"));

    assert_true(problem_parse_size(mm, "4096", &d, &e));
    assert_true(d.M == 4096 && d.N == 4096 && d.K == 4096);
    assert_true(problem_parse_size(mm, "31x17x9", &d, &e));
    assert_true(d.M == 31 && d.N == 17 && d.K == 9);
    assert_true(problem_parse_size(mm, "2^10X512x1<<8", &d, &e));
    assert_true(d.M == 1024 && d.N == 512 && d.K == 256);
    assert_false(problem_parse_size(mm, "31x17", &d, &e));
    assert_non_null(strstr(e.msg, "MxNxK"));
    assert_false(problem_parse_size(mm, "1x2x3x4", &d, &e));
    assert_false(problem_parse_size(mm, "65536x65536x1", &d, &e));
    assert_non_null(strstr(e.msg, "2^30"));
    assert_false(problem_parse_size(mm, "31x0x9", &d, &e));

    assert_true(problem_parse_size(emb, "16384x4096x32000", &d, &e));
    assert_true(d.ndims == 3 && d.dim[0] == 16384 && d.dim[1] == 4096 && d.dim[2] == 32000);
    assert_false(problem_parse_size(emb, "16384x4096", &d, &e));
    assert_non_null(strstr(e.msg, "TxDxV"));
    assert_false(problem_parse_size(emb, "x1x2", &d, &e));
    assert_false(problem_parse_size(emb, "65536x65536x1", &d, &e));   /* its valid function */
    assert_non_null(strstr(e.msg, "more than 2^30 elements"));

    const problem_spec *sx = ts_shipped_spec("saxpy"), *hist = ts_shipped_spec("histogram"),
                       *man = problem_spec_find("managed");
    assert_true(sx && hist && man);
    assert_true(problem_parse_size(sx, "2^20+3", &d, &e));
    assert_int_equal(d.n, (1 << 20) + 3);
    assert_true(problem_parse_size(hist, "2^26", &d, &e));
    assert_int_equal(d.n, 1 << 26);
    assert_false(problem_parse_size(hist, "2^31", &d, &e));
    assert_true(problem_parse_size(man, "2^24", &d, &e));
    assert_false(problem_parse_size(man, "2^29", &d, &e));
    assert_non_null(strstr(e.msg, "managed size '2^29'"));
    assert_true(man->managed && !sx->managed && !hist->managed);
}

static void test_bytes_flops(void **state)
{
    (void)state;
    problem_dims d;
    cl_err e = {{0}};
    const problem_spec *red = ts_shipped_spec("reduce_sum");
    assert_true(problem_parse_size(red, "2^28", &d, &e));
    assert_true(problem_spec_bytes(red, &d) == 4.0 * 268435456.0);
    assert_true(problem_spec_flops(red, &d) == 268435456.0);
    assert_true(red->bandwidth_bound && red->reads_only);

    const problem_spec *mm = problem_spec_find("sgemm");
    memset(&d, 0, sizeof d);
    d.M = 31;
    d.N = 17;
    d.K = 9;
    assert_true(mm->bytes(&d) == 4.0 * (31 * 9 + 9 * 17 + 31 * 17));
    assert_true(mm->flops(&d) == 2.0 * 31 * 17 * 9);
    d.M = d.N = d.K = 4096;
    assert_true(mm->flops(&d) == 2.0 * 4096.0 * 4096.0 * 4096.0);
    assert_false(mm->bandwidth_bound);
    assert_true(mm->tolerance == 1e-4);

    const problem_spec *emb = ts_shipped_spec("embedding");
    assert_true(problem_parse_size(emb, "16384x4096x32000", &d, &e));
    double TD = 16384.0 * 4096.0;
    assert_true(problem_spec_bytes(emb, &d) == 4.0 * TD + 4.0 * 16384.0 + 4.0 * TD);
    assert_true(problem_spec_flops(emb, &d) < 0.0);

    assert_true(problem_parse_size(ts_shipped_spec("saxpy"), "2^20+3", &d, &e));
    assert_true(problem_spec_bytes(ts_shipped_spec("saxpy"), &d) == 12.0 * d.n);
    assert_true(problem_spec_flops(ts_shipped_spec("saxpy"), &d) == 2.0 * d.n);
    assert_true(problem_spec_bytes(ts_shipped_spec("histogram"), &d) == (double)d.n);
    assert_true(problem_spec_flops(ts_shipped_spec("histogram"), &d) < 0.0);
    problem_shape s;
    problem_find("managed")->shape(&d, &s);
    assert_true(s.na == (size_t)d.n && s.nb == (size_t)d.n && s.scratch == 8u * (size_t)d.n);
    assert_true(problem_saxpy_a(0) == 0.5f && problem_saxpy_a(6) == 2.0f);
}

/* The codes the parent decides on are the CUDA runtime's own numbers. */
static void test_cuda_codes(void **state)
{
    (void)state;
    assert_int_equal(CUDA_CODE_MEMORY_ALLOCATION, cudaErrorMemoryAllocation);
    assert_int_equal(CUDA_CODE_INVALID_CONFIGURATION, cudaErrorInvalidConfiguration);
    assert_int_equal(CUDA_CODE_INSUFFICIENT_DRIVER, cudaErrorInsufficientDriver);
    assert_int_equal(CUDA_CODE_NO_DEVICE, cudaErrorNoDevice);
    assert_int_equal(CUDA_CODE_ILLEGAL_ADDRESS, cudaErrorIllegalAddress);
    assert_int_equal(CUDA_CODE_LAUNCH_OUT_OF_RESOURCES, cudaErrorLaunchOutOfResources);
    assert_int_equal(CUDA_CODE_LAUNCH_TIMEOUT, cudaErrorLaunchTimeout);
    assert_int_equal(CUDA_CODE_ASSERT, cudaErrorAssert);
    assert_int_equal(CUDA_CODE_HARDWARE_STACK_ERROR, cudaErrorHardwareStackError);
    assert_int_equal(CUDA_CODE_ILLEGAL_INSTRUCTION, cudaErrorIllegalInstruction);
    assert_int_equal(CUDA_CODE_MISALIGNED_ADDRESS, cudaErrorMisalignedAddress);
    assert_int_equal(CUDA_CODE_INVALID_ADDRESS_SPACE, cudaErrorInvalidAddressSpace);
    assert_int_equal(CUDA_CODE_INVALID_PC, cudaErrorInvalidPc);
    assert_int_equal(CUDA_CODE_LAUNCH_FAILURE, cudaErrorLaunchFailure);
}

static void test_derive(void **state)
{
    (void)state;
    run_result r;
    memset(&r, 0, sizeof r);
    r.median_ms = 2.0;
    problem_rates in = {
        .bytes = 4e9, .flops = 1e9, .bandwidth_bound = true,
        .peak_bw_measured_gbs = 2500.0, .peak_bw_theory_gbs = 3350.0,
        .peak_fp32_tflops = 60.0, .cpu_ms = 200.0, .cpu_mt_ms = 20.0, .lib_ms = 1.0,
    };
    problem_derive(&in, &r);
    assert_true(near(r.gbps, 2000.0, 1e-12));
    assert_true(near(r.tflops, 0.5, 1e-12));
    assert_true(near(r.pct_peak_measured, 80.0, 1e-12));
    assert_true(near(r.pct_peak_theory, 100.0 * 2000.0 / 3350.0, 1e-12));
    assert_true(near(r.speedup_cpu, 100.0, 1e-12));
    assert_true(near(r.speedup_cpu_mt, 10.0, 1e-12));
    assert_true(near(r.speedup_lib, 0.5, 1e-12));

    /* A kernel that only reads is measured against the read-only stream,
     * the copy when that is unknown. */
    in.reads_only = true;
    in.peak_bw_read_gbs = 3200.0;
    problem_derive(&in, &r);
    assert_true(near(r.pct_peak_measured, 62.5, 1e-12));
    in.peak_bw_read_gbs = 0.0;
    problem_derive(&in, &r);
    assert_true(near(r.pct_peak_measured, 80.0, 1e-12));
    in.reads_only = false;

    in.bandwidth_bound = false;
    in.flops = 60e9;
    problem_derive(&in, &r);
    assert_true(near(r.tflops, 30.0, 1e-12));
    assert_true(near(r.pct_peak_measured, 50.0, 1e-12));
    assert_true(near(r.pct_peak_theory, 50.0, 1e-12));

    in.flops = -1.0;
    in.bandwidth_bound = true;
    in.peak_bw_measured_gbs = 0.0;
    in.peak_bw_theory_gbs = 0.0;
    in.cpu_ms = 0.0;
    in.lib_ms = 0.0;
    problem_derive(&in, &r);
    assert_true(r.tflops < 0.0);
    assert_true(r.pct_peak_measured < 0.0 && r.pct_peak_theory < 0.0);
    assert_true(r.speedup_cpu == 0.0 && r.speedup_lib == 0.0);

    r.median_ms = 0.0;
    problem_derive(&in, &r);
    assert_true(r.gbps < 0.0 && r.speedup_cpu_mt == 0.0);
}

static void test_timing_rule(void **state)
{
    (void)state;
    timing_opts o;
    memset(&o, 0, sizeof o);
    bool conv = false;
    double flat[TIMING_MAX_SAMPLES];
    for (int i = 0; i < TIMING_MAX_SAMPLES; i++)
        flat[i] = 1.0;
    assert_false(timing_should_stop(flat, 9, 9.0, 0.0, &o, &conv));
    assert_true(timing_should_stop(flat, 10, 10.0, 0.0, &o, &conv));
    assert_true(conv);

    double noisy[TIMING_MAX_SAMPLES];
    for (int i = 0; i < TIMING_MAX_SAMPLES; i++)
        noisy[i] = (i % 2) ? 1.0 : 1.2;
    assert_false(timing_should_stop(noisy, 50, 55.0, 0.0, &o, &conv));
    assert_true(timing_should_stop(noisy, 50, 500.0, 0.0, &o, &conv));
    assert_false(conv);
    assert_true(timing_should_stop(noisy, TIMING_MAX_SAMPLES, 1.0, 0.0, &o, &conv));
    /* Repetitions that cost the host far more than the GPU stop on the
     * clock, once there are min_samples of them. */
    assert_false(timing_should_stop(noisy, 9, 9.0, 1e4, &o, &conv));
    assert_false(timing_should_stop(noisy, 10, 10.0, TIMING_WALL_FACTOR * 500.0 - 1.0, &o, &conv));
    assert_true(timing_should_stop(noisy, 10, 10.0, TIMING_WALL_FACTOR * 500.0, &o, &conv));
    assert_false(conv);
    /* A run much longer than the budget: two samples are over 5x the budget. */
    assert_false(timing_should_stop(noisy, 1, 400.0, 0.0, &o, &conv));
    assert_true(timing_should_stop(noisy, 2, 2600.0, 0.0, &o, &conv));
    o.budget_s = 0.01;
    assert_true(timing_should_stop(noisy, 3, 10.0, 0.0, &o, &conv));
    o.max_samples = 20;
    assert_true(timing_should_stop(noisy, 20, 1.0, 0.0, &o, &conv));

    o.l2_bytes = 50u << 20;
    o.flush = &o;
    o.flush_bytes = 100u << 20;
    o.working_set = 4u << 20;
    assert_true(timing_needs_flush(&o));
    o.working_set = 1u << 30;
    assert_false(timing_needs_flush(&o));
    o.working_set = 4u << 20;
    o.flush = NULL;
    assert_false(timing_needs_flush(&o));
}

static void test_peak_cache(void **state)
{
    (void)state;
    peak_key a = {"NVIDIA H100 80GB HBM3", "00000000:19:00.0", 13000};
    peak_key b = {"NVIDIA H100 80GB HBM3", "00000000:3B:00.0", 13000};
    peak_figures g = {0.0, 0.0};
    const peak_figures fa = {2950.5, 3210.25}, fb = {2900.0, 3150.0}, fa2 = {3000.0, 3300.0};
    assert_false(peak_cache_lookup(NULL, &a, &g));
    assert_false(peak_cache_lookup("not json", &a, &g));
    char *doc = peak_cache_update(NULL, &a, &fa, 1700000000);
    assert_non_null(doc);
    assert_true(peak_cache_lookup(doc, &a, &g));
    assert_true(g.copy_gbs == 2950.5 && g.read_gbs == 3210.25);
    assert_false(peak_cache_lookup(doc, &b, &g));

    char *doc2 = peak_cache_update(doc, &b, &fb, 1700000001);
    assert_true(peak_cache_lookup(doc2, &a, &g) && g.copy_gbs == 2950.5);
    assert_true(peak_cache_lookup(doc2, &b, &g) && g.copy_gbs == 2900.0 && g.read_gbs == 3150.0);

    /* New driver in slot a: the old entry no longer matches and is replaced. */
    peak_key a2 = a;
    a2.driver = 13010;
    assert_false(peak_cache_lookup(doc2, &a2, &g));
    char *doc3 = peak_cache_update(doc2, &a2, &fa2, 1700000002);
    assert_false(peak_cache_lookup(doc3, &a, &g));
    assert_true(peak_cache_lookup(doc3, &a2, &g) && g.copy_gbs == 3000.0);
    assert_true(peak_cache_lookup(doc3, &b, &g) && g.copy_gbs == 2900.0);
    /* Another card in slot a. */
    peak_key a3 = a2;
    snprintf(a3.name, sizeof a3.name, "NVIDIA H200");
    assert_false(peak_cache_lookup(doc3, &a3, &g));
    free(doc);
    free(doc2);
    free(doc3);

    /* An entry from before the read-only stream was measured: measure again. */
    const char *old = "{\"devices\":[{\"name\":\"NVIDIA H100 80GB HBM3\",\"pci\":"
                      "\"00000000:19:00.0\",\"driver\":13000,\"copy_gbs\":2950.5}]}";
    assert_false(peak_cache_lookup(old, &a, &g));

    assert_true(peak_copy_bytes(80ull << 30, 50u << 20) == 512u << 20);
    assert_true(peak_copy_bytes(1ull << 30, 50u << 20) == 256u << 20);
    assert_true(peak_copy_bytes(4ull << 30, 100u << 20) == 800u << 20);
}

static void test_cpu_cache(void **state)
{
    (void)state;
    engine_cpu_key k;
    memset(&k, 0, sizeof k);
    snprintf(k.problem, sizeof k.problem, "sgemm");
    snprintf(k.size, sizeof k.size, "4096x4096x4096");
    snprintf(k.cpu, sizeof k.cpu, "AMD EPYC 9654");
    snprintf(k.simd, sizeof k.simd, "avx512f");
    k.threads = 1;
    k.multi = false;
    engine_cpu_timing t;
    memset(&t, 0, sizeof t);
    t.median_ms = 1234.5;
    t.min_ms = 1200.0;
    t.max_ms = 1300.0;
    t.spread = 0.01;
    t.samples = 3;
    t.status = RS_CORRECT;
    t.rel_err = 1e-7;
    t.seed = 0xfedcba9876543210ull;
    t.measured_at = 1700000000;
    snprintf(t.check, sizeof t.check, "ok: 4096 checked");

    engine_cpu_timing got;
    assert_false(engine_cpu_cache_lookup(NULL, &k, &got));
    char *doc = engine_cpu_cache_update(NULL, &k, &t);
    assert_non_null(doc);
    assert_true(engine_cpu_cache_lookup(doc, &k, &got));
    assert_true(got.cached);
    assert_true(got.median_ms == 1234.5 && got.min_ms == 1200.0 && got.max_ms == 1300.0);
    assert_true(got.samples == 3 && got.status == RS_CORRECT && got.rel_err == 1e-7);
    assert_true(got.seed == 0xfedcba9876543210ull);
    assert_true(got.measured_at == 1700000000);
    assert_string_equal(got.check, "ok: 4096 checked");

    engine_cpu_key mt = k;
    mt.threads = 64;
    mt.multi = true;
    assert_false(engine_cpu_cache_lookup(doc, &mt, &got));
    engine_cpu_key other = k;
    snprintf(other.simd, sizeof other.simd, "avx2+fma");
    assert_false(engine_cpu_cache_lookup(doc, &other, &got));

    t.median_ms = 40.0;
    char *doc2 = engine_cpu_cache_update(doc, &mt, &t);
    t.median_ms = 1000.0;
    char *doc3 = engine_cpu_cache_update(doc2, &k, &t);
    assert_true(engine_cpu_cache_lookup(doc3, &k, &got) && got.median_ms == 1000.0);
    assert_true(engine_cpu_cache_lookup(doc3, &mt, &got) && got.median_ms == 40.0);
    free(doc);
    free(doc2);
    free(doc3);

    /* a figure of fewer samples than its measurement takes, or of a wide
     * spread (a busy machine), is not taken: it is measured again */
    static const struct {
        int samples;
        double median, max, spread;
        bool taken;
    } kept[] = {
        {1, 10.0, 10.0, 0.0, false},     /* one fast sample: stopped early */
        {2, 300.0, 320.0, 0.05, false},  /* 0.6 s: three are taken under 3 s */
        {3, 400.0, 420.0, 0.05, true},
        {1, 5000.0, 5000.0, 0.0, true},  /* one long sample is all it takes */
        {50, 20.0, 90.0, 1.5, false},    /* interquartile range 1.5x the median */
        {50, 20.0, 40.0, 0.8, true},
    };
    for (size_t i = 0; i < sizeof kept / sizeof kept[0]; i++) {
        t.samples = kept[i].samples;
        t.median_ms = t.min_ms = kept[i].median;
        t.max_ms = kept[i].max;
        t.spread = kept[i].spread;
        char *d = engine_cpu_cache_update(NULL, &k, &t);
        assert_non_null(d);
        if (engine_cpu_cache_lookup(d, &k, &got) != kept[i].taken)
            fail_msg("cached figure %zu: taken %d, expected %d", i, !kept[i].taken,
                     kept[i].taken);
        free(d);
    }

    assert_false(engine_cpu_should_stop(0, 5.0));
    assert_false(engine_cpu_should_stop(1, 0.5));
    assert_false(engine_cpu_should_stop(2, 1.2));
    assert_true(engine_cpu_should_stop(3, 1.0));
    assert_true(engine_cpu_should_stop(1, 10.0));
    assert_false(engine_cpu_should_stop(50, 0.2));
    assert_true(engine_cpu_should_stop(200, 0.2));
}

static void test_device_math(void **state)
{
    (void)state;
    bool known = false;
    assert_int_equal(device_fp32_lanes(7, 0, &known), 64);
    assert_true(known);
    assert_int_equal(device_fp32_lanes(7, 5, &known), 64);
    assert_int_equal(device_fp32_lanes(8, 0, &known), 64);
    assert_int_equal(device_fp32_lanes(8, 6, &known), 128);
    assert_int_equal(device_fp32_lanes(8, 9, &known), 128);
    assert_int_equal(device_fp32_lanes(9, 0, &known), 128);
    assert_int_equal(device_fp32_lanes(10, 0, &known), 128);
    assert_int_equal(device_fp32_lanes(12, 0, &known), 128);
    assert_true(known);
    assert_int_equal(device_fp32_lanes(42, 1, &known), 128);
    assert_false(known);

    /* H100 SXM: 2619 MHz HBM3 on a 5120-bit bus, 132 SMs at 1980 MHz. */
    assert_true(near(device_bw_theory_gbs(2619000.0, 5120), 3352.32, 1e-9));
    assert_true(near(device_fp32_peak_tflops(132, 128, 1980000.0), 66.90816, 1e-9));
    assert_true(device_bw_theory_gbs(0.0, 5120) == 0.0);
    assert_true(device_fp32_peak_tflops(0, 128, 1.0) == 0.0);
}

static void test_buffer_message(void **state)
{
    (void)state;
    cl_err e = {{0}};
    assert_true(buffer_fits(100, 100, &e));
    assert_false(buffer_fits(12ull << 30, (size_t)(9.1 * 1073741824.0), &e));
    assert_string_equal(e.msg, "needs 12 GiB, device has 9.1 GiB free");
    char b[32];
    buffer_format_bytes(512, b, sizeof b);
    assert_string_equal(b, "512 B");
    buffer_format_bytes(3 << 10, b, sizeof b);
    assert_string_equal(b, "3 KiB");
    buffer_format_bytes(256u << 20, b, sizeof b);
    assert_string_equal(b, "256 MiB");
}

static void test_cudacheck(void **state)
{
    (void)state;
    assert_true(cudacheck_is_sticky(cudaErrorIllegalAddress));
    assert_true(cudacheck_is_sticky(cudaErrorLaunchFailure));
    assert_true(cudacheck_is_sticky(cudaErrorMisalignedAddress));
    assert_true(cudacheck_is_sticky(cudaErrorAssert));
    assert_false(cudacheck_is_sticky(cudaErrorInvalidConfiguration));
    assert_false(cudacheck_is_sticky(cudaErrorMemoryAllocation));
    assert_string_equal(cudacheck_plain(cudaErrorIllegalAddress),
                        "the kernel read or wrote memory outside its buffers (illegal address)");
    cl_err e = {{0}};
    cudacheck_reset();
    assert_false(cudacheck_fail(&e, cudaErrorInvalidConfiguration, "launch(x)", "/a/b/c.c", 7));
    assert_true(cudacheck_last() == cudaErrorInvalidConfiguration);
    assert_non_null(strstr(e.msg, "launch(x) failed at c.c:7"));
    cudacheck_reset();
    assert_true(cudacheck_last() == cudaSuccess);
}

/* The checker through the problems: sampled SGEMM positions cover the
 * corners, and the embedding reference is the gathered rows. */
static void test_references(void **state)
{
    (void)state;
    cl_err e = {{0}};
    problem_dims d;
    problem_data p;
    const problem_ops *mm = problem_find("sgemm");
    assert_true(problem_parse_size(mm->spec, "2048x1024x8", &d, &e));
    assert_true(problem_new(&p, mm, &d, &e));
    assert_true(problem_prepare(&p, 42, &e));
    assert_int_equal(p.nref, 4096);
    assert_non_null(p.ref_idx);
    assert_int_equal(p.ref_idx[0], 0);
    assert_int_equal(p.ref_idx[1], 1023);
    assert_int_equal(p.ref_idx[2], 2047LL * 1024);
    assert_int_equal(p.ref_idx[3], 2047LL * 1024 + 1023);
    p.ops->cpu(&p, 1);
    check_report c = problem_check(&p);
    assert_int_equal(c.status, CHECK_OK);
    p.out[p.ref_idx[3]] += 1.0f;
    c = problem_check(&p);
    assert_int_equal(c.status, CHECK_WRONG);
    run_result r;
    memset(&r, 0, sizeof r);
    problem_report(&c, &r);
    assert_int_equal(r.status, RS_WRONG);
    assert_true(r.nmismatch >= 1 && r.mismatches[0].index == p.ref_idx[3]);
    assert_non_null(strstr(r.message, "wrong"));
    check_poison(p.out, 5);
    c = problem_check(&p);
    problem_report(&c, &r);
    assert_int_equal(r.status, RS_UNWRITTEN);
    problem_free(&p);

    /* the declared ones: embedding (its indices checked by the builtin's
     * reference) and reduce_sum */
    decl_problem dp;
    const problem_spec *es = ts_shipped_spec("embedding");
    problem_decl_init(&dp, es->ctx);
    assert_true(problem_parse_size(es, "31x33x7", &d, &e));
    assert_true(problem_new(&p, &dp.ops, &d, &e));
    assert_true(problem_prepare(&p, 7, &e));
    const int32_t *idx = p.decl->b[1].host;
    const float *W = p.decl->b[0].host;
    for (int t = 0; t < 31; t++) {
        assert_true(idx[t] >= 0 && idx[t] < 7);
        assert_true(p.decl->b[2].ref[t * 33 + 5] == (double)W[idx[t] * 33 + 5]);
    }
    p.ops->cpu(&p, 4);
    c = problem_check(&p);
    assert_int_equal(c.status, CHECK_OK);
    ((int32_t *)p.decl->b[1].host)[3] = 7;
    assert_false(p.ops->reference(&p, &e));
    assert_non_null(strstr(e.msg, "outside the table's rows [0,7)"));
    problem_free(&p);

    const problem_spec *rs = ts_shipped_spec("reduce_sum");
    problem_decl_init(&dp, rs->ctx);
    assert_true(problem_parse_size(rs, "1025", &d, &e));
    assert_true(problem_new(&p, &dp.ops, &d, &e));
    assert_true(problem_prepare(&p, 9, &e));
    assert_int_equal(p.decl->b[1].count, 1);
    assert_true(p.decl->b[1].ref[0] > 400.0 && p.decl->b[1].ref[0] < 625.0);
    p.ops->cpu(&p, 2);
    c = problem_check(&p);
    assert_int_equal(c.status, CHECK_OK);
    problem_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_count),   cmocka_unit_test(test_parse_sizes),
        cmocka_unit_test(test_bytes_flops),   cmocka_unit_test(test_derive),
        cmocka_unit_test(test_cuda_codes),
        cmocka_unit_test(test_timing_rule),   cmocka_unit_test(test_peak_cache),
        cmocka_unit_test(test_cpu_cache),     cmocka_unit_test(test_device_math),
        cmocka_unit_test(test_buffer_message), cmocka_unit_test(test_cudacheck),
        cmocka_unit_test(test_references),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
