/* Unit tests for the timing cheats' pure parts: the roofline floor
 * (engine/roofline.h) refuses a row faster than the device's memory or
 * arithmetic allows, or that takes no time, with its reason, and passes
 * honest rows near the peak, in the L2 and on tensor cores; the canary's
 * repetition is uniform over the ones expected and never past them; the
 * secret draws differ. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "core/rng.h"
#include "gpu/timing.h"
#include "engine/roofline.h"
#include "support.h"

/* An H200 as the worker sees it, running a sum of 2^24 floats. */
static roofline_in h200_sum(double ms)
{
    return (roofline_in){.median_ms = ms, .bytes = 4.0 * (1 << 24), .flops = 1 << 24,
                         .bw_theory_gbs = 4800.0, .bw_copy_gbs = 3900.0,
                         .bw_read_gbs = 4300.0, .fp32_tflops = 66.9, .cc_major = 9,
                         .l2_bytes = 60.0 * 1024 * 1024, .cold = true};
}

static void test_bandwidth(void **state)
{
    (void)state;
    char why[512];
    /* CUB's sum at about 90% of the read stream: 64 MiB in 17.3 us */
    roofline_in in = h200_sum(0.0173);
    in.bytes = 4.0 * (1 << 28);
    in.median_ms = 0.28;
    assert_false(roofline_refuse(&in, why, sizeof why));
    assert_string_equal(why, "");
    /* a replay of 2^24 floats: a 4-byte copy in 5 us */
    in = h200_sum(0.005);
    in.bytes = 4.0 * (1 << 28);
    assert_true(roofline_refuse(&in, why, sizeof why));
    assert_true(ts_contains(why, "faster than this GPU can move the data: 214748 GB/s against a "
                                 "peak of 4800 GB/s (refused above 6240 GB/s)"));
    /* 1.2x the best peak passes, 1.4x does not */
    in = h200_sum(0.0);
    in.bytes = 4.0 * (1 << 28);
    in.median_ms = in.bytes / (1.2 * 4800e9) * 1e3;
    assert_false(roofline_refuse(&in, why, sizeof why));
    in.median_ms = in.bytes / (1.4 * 4800e9) * 1e3;
    assert_true(roofline_refuse(&in, why, sizeof why));
}

static void test_l2_allowed(void **state)
{
    (void)state;
    char why[512];
    /* 100 MiB that may come from an L2 of 120 MiB: 3x the memory's peak passes */
    roofline_in in = h200_sum(0.0);
    in.l2_bytes = 120.0 * 1024 * 1024;
    in.bytes = 100.0 * 1024 * 1024;
    in.median_ms = in.bytes / (3.0 * 4800e9) * 1e3;
    assert_false(roofline_refuse(&in, why, sizeof why));
    in.median_ms = in.bytes / (6.0 * 4800e9) * 1e3;
    assert_true(roofline_refuse(&in, why, sizeof why));
    assert_true(ts_contains(why, "the L2 cache allowed for"));
    /* repetitions that were not flushed: the same allowance */
    in = h200_sum(0.0);
    in.bytes = 200.0 * 1024 * 1024;
    in.cold = false;
    in.median_ms = in.bytes / (3.0 * 4800e9) * 1e3;
    assert_false(roofline_refuse(&in, why, sizeof why));
    in.cold = true;
    assert_true(roofline_refuse(&in, why, sizeof why));
}

static void test_flops(void **state)
{
    (void)state;
    char why[512];
    /* a 4096^3 GEMM on tensor cores at 700 TFLOP/s: allowed */
    roofline_in in = h200_sum(0.0);
    in.bytes = 4.0 * 3 * 4096.0 * 4096.0;
    in.flops = 2.0 * 4096.0 * 4096.0 * 4096.0;
    in.median_ms = in.flops / 700e12 * 1e3;
    assert_false(roofline_refuse(&in, why, sizeof why));
    /* the same replayed in 5 us: 27 PFLOP/s (and 40 TB/s: the bytes say so first) */
    in.median_ms = 0.005;
    assert_true(roofline_refuse(&in, why, sizeof why));
    assert_true(ts_contains(why, "faster than this GPU can move the data"));
    in.bytes = 0.0;
    assert_true(roofline_refuse(&in, why, sizeof why));
    assert_true(ts_contains(why, "faster than this GPU can compute"));
    assert_true(ts_contains(why, "tensor cores allowed for"));
    /* a chip without tensor cores: the FP32 peak with the margin */
    in.cc_major = 6;
    in.median_ms = in.flops / (1.2 * 66.9e12) * 1e3;
    assert_false(roofline_refuse(&in, why, sizeof why));
    in.median_ms = in.flops / (1.5 * 66.9e12) * 1e3;
    assert_true(roofline_refuse(&in, why, sizeof why));
}

static void test_zero_time(void **state)
{
    (void)state;
    char why[512];
    roofline_in in = {.median_ms = 0.0018};
    assert_true(roofline_refuse(&in, why, sizeof why));
    assert_true(ts_contains(why, "ran in no measurable time: 1.80 us a run"));
    in.median_ms = 0.0;
    assert_true(roofline_refuse(&in, why, sizeof why));
    /* an empty kernel's 6 us, with nothing known of the device: allowed */
    in.median_ms = 0.006;
    assert_false(roofline_refuse(&in, why, sizeof why));
}

static void test_canary_pick(void **state)
{
    (void)state;
    int seen[40] = {0};
    for (uint64_t d = 1; d <= 40000; d++) {
        int k = timing_canary_pick(d * 0x9e3779b97f4a7c15ull, 40);
        assert_true(k >= 1 && k < 40);
        seen[k]++;
    }
    /* never the first: the repetition before the canary is its decoy */
    assert_int_equal(seen[0], 0);
    for (int k = 1; k < 40; k++)
        assert_true(seen[k] > 800 && seen[k] < 1250);
    assert_int_equal(timing_canary_pick(12345, 2), 1);
    assert_int_equal(timing_canary_pick(12345, 1), 0);
    assert_int_equal(timing_canary_pick(12345, 0), 0);
    uint64_t a = rng_secret(), b = rng_secret();
    assert_true(a != b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bandwidth), cmocka_unit_test(test_l2_allowed),
        cmocka_unit_test(test_flops),     cmocka_unit_test(test_zero_time),
        cmocka_unit_test(test_canary_pick),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
