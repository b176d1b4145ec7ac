/* Host CPU facts and the run-time choice of vector path. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "cpu/cpuinfo.h"

static void test_thread_count_and_model(void **state)
{
    (void)state;
    assert_true(cpu_thread_count() >= 1);
    const char *model = cpu_model_name();
    assert_non_null(model);
    assert_ptr_equal(model, cpu_model_name());
    printf("cpu: %s, %d threads, vector path %s\n", model, cpu_thread_count(), cpu_simd_path());
}

static void test_simd_choice(void **state)
{
    (void)state;
    cpu_simd best = cpu_simd_best();
    assert_true(cpu_simd_supported(best));
    assert_int_equal(cpu_simd_level(), best);
    assert_string_equal(cpu_simd_path(), cpu_simd_name(best));
#if defined(__x86_64__)
    assert_true(best >= CPU_SIMD_SSE2);
    assert_true(cpu_simd_supported(CPU_SIMD_SSE2));
#else
    assert_int_equal(best, CPU_SIMD_SCALAR);
    assert_false(cpu_simd_force(CPU_SIMD_AVX2));
#endif
    assert_string_equal(cpu_simd_name(CPU_SIMD_AVX2), "avx2+fma");
    assert_string_equal(cpu_simd_name(CPU_SIMD_AVX512), "avx512f");
    assert_true(cpu_simd_force(CPU_SIMD_SCALAR));
    assert_string_equal(cpu_simd_path(), "scalar");
    if (!cpu_simd_supported(CPU_SIMD_AVX512)) {
        assert_false(cpu_simd_force(CPU_SIMD_AVX512));
        assert_string_equal(cpu_simd_path(), "scalar");
    }
    assert_true(cpu_simd_force(best));
    assert_int_equal(cpu_simd_level(), best);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_thread_count_and_model),
        cmocka_unit_test(test_simd_choice),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
