/* Sum baselines on every vector path this CPU has, against the double reference. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/rng.h"
#include "cpu/cpuinfo.h"
#include "cpu/reduce.h"
#include "support.h"

static const size_t sizes[] = {0, 1, 7, 31, 1025, ((size_t)1 << 20) + 3};
static const cpu_simd paths[] = {CPU_SIMD_SCALAR, CPU_SIMD_SSE2, CPU_SIMD_AVX2, CPU_SIMD_AVX512};

static double abs_sum(const float *x, size_t n)
{
    double s = 0.0;
    for (size_t i = 0; i < n; i++)
        s += fabs((double)x[i]);
    return s;
}

/* Float result within a few float roundings of the exact sum, scaled by sum |x|. */
static void assert_close(float got, double ref, double scale)
{
    double err = fabs((double)got - ref);
    if (!(err <= 1e-6 * scale + 1e-30)) {
        print_error("got %.9g, reference %.17g, |err| %.3g > %.3g\n", (double)got, ref, err,
                    1e-6 * scale);
        fail();
    }
}

static void test_reference_is_accurate(void **state)
{
    (void)state;
    float exact[1000];
    for (int i = 0; i < 1000; i++)
        exact[i] = (float)((i % 17) - 8) * 0.25f;
    double want = 0.0;
    for (int i = 0; i < 1000; i++)
        want += (double)exact[i];
    assert_true(ref_reduce_sum(exact, 1000) == want);
    assert_true(ref_reduce_sum(exact, 0) == 0.0);

    size_t n = (size_t)1 << 20;
    float *x = malloc(n * sizeof *x);
    assert_non_null(x);
    rng_fill_uniform(x, n, 11, -1.0f, 1.0f);
    long double ld = 0.0L;
    for (size_t i = 0; i < n; i++)
        ld += (long double)x[i];
    double r = ref_reduce_sum(x, n);
    assert_true(fabs(r - (double)ld) <= 1e-12 * abs_sum(x, n));

    /* Large terms that cancel across leaves leave the small ones intact. */
    for (size_t i = 0; i < n; i++)
        x[i] = (i % 512 == 0) ? 3.0e7f : (i % 512 == 300 ? -3.0e7f : 0.001f);
    double small = 0.0;
    for (size_t i = 0; i < n; i++)
        if (i % 512 != 0 && i % 512 != 300)
            small += (double)0.001f;
    assert_true(fabs(ref_reduce_sum(x, n) - small) <= 1e-12 * fabs(small));
    free(x);
}

static void test_single_thread_paths(void **state)
{
    (void)state;
    size_t nmax = sizes[sizeof sizes / sizeof sizes[0] - 1];
    float *x = malloc(nmax * sizeof *x);
    assert_non_null(x);
    for (size_t p = 0; p < sizeof paths / sizeof paths[0]; p++) {
        if (!cpu_simd_force(paths[p]))
            continue;
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            size_t n = sizes[s];
            rng_fill_uniform(x, n, 5 + s, -1.0f, 1.0f);
            assert_close(cpu_reduce_sum(x, n), ref_reduce_sum(x, n), abs_sum(x, n));
            rng_fill_uniform(x, n, 50 + s, 0.0f, 1.0f);
            assert_close(cpu_reduce_sum(x, n), ref_reduce_sum(x, n), abs_sum(x, n));
        }
        assert_true(cpu_reduce_sum(x, 0) == 0.0f);
    }
    cpu_simd_force(cpu_simd_best());
    free(x);
}

static void test_threads_agree(void **state)
{
    (void)state;
    size_t nmax = sizes[sizeof sizes / sizeof sizes[0] - 1];
    float *x = malloc(nmax * sizeof *x);
    assert_non_null(x);
    const int threads[] = {0, 1, 2, 3, 8};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = sizes[s];
        rng_fill_uniform(x, n, 77 + s, 0.0f, 1.0f);
        double ref = ref_reduce_sum(x, n), scale = abs_sum(x, n);
        float st = cpu_reduce_sum(x, n);
        for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
            float mt = cpu_reduce_sum_mt(x, n, threads[t]);
            assert_close(mt, ref, scale);
            assert_true(fabs((double)mt - (double)st) <= 1e-6 * scale + 1e-30);
        }
    }
    free(x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference_is_accurate),
        cmocka_unit_test(test_single_thread_paths),
        cmocka_unit_test(test_threads_agree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
