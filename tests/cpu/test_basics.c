/* The basics lab's CPU side: SAXPY's baselines against the double
 * reference, the histogram's baselines against a plain count, at odd sizes
 * and on several threads; the byte fill is deterministic and uses every
 * value. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "cpu/basics.h"

static void test_saxpy(void **state)
{
    (void)state;
    const size_t sizes[] = {1, 7, 1000003, (1u << 20) + 3};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t n = sizes[k];
        float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
        float *z1 = malloc(n * sizeof *z1), *z4 = malloc(n * sizeof *z4);
        double *ref = malloc(n * sizeof *ref);
        assert_true(x && y && z1 && z4 && ref);
        rng_fill_uniform(x, n, 11 + k, -1.0f, 1.0f);
        rng_fill_uniform(y, n, 97 + k, -1.0f, 1.0f);
        cpu_saxpy(n, 1.75f, x, y, z1);
        cpu_saxpy_mt(n, 1.75f, x, y, z4, 4);
        ref_saxpy(n, 1.75f, x, y, ref);
        for (size_t i = 0; i < n; i++) {
            assert_true(fabs((double)z1[i] - ref[i]) <= 3e-7 * (fabs(ref[i]) + 2.0));
            assert_true(z4[i] == z1[i]);
        }
        assert_true(ref[0] == 1.75 * (double)x[0] + (double)y[0]);
        free(x);
        free(y);
        free(z1);
        free(z4);
        free(ref);
    }
}

static void test_histogram(void **state)
{
    (void)state;
    const size_t sizes[] = {0, 1, 3, 4099, 1000003, (1u << 22) + 1};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t n = sizes[k];
        uint8_t *data = malloc(n + 8);
        assert_non_null(data);
        basics_fill_bytes(data, n + 8, 5 + k);
        uint32_t want[BASICS_BINS] = {0}, one[BASICS_BINS], many[BASICS_BINS];
        for (size_t i = 0; i < n; i++)
            want[data[i]]++;
        cpu_histogram(data, n, one);
        cpu_histogram_mt(data, n, many, 6);
        uint64_t total = 0;
        for (int b = 0; b < BASICS_BINS; b++) {
            assert_int_equal(one[b], want[b]);
            assert_int_equal(many[b], want[b]);
            total += one[b];
        }
        assert_int_equal(total, n);   /* the 8 bytes past n are not counted */
        free(data);
    }
}

static void test_fill_bytes(void **state)
{
    (void)state;
    size_t n = 1 << 20;
    uint8_t *a = malloc(n), *b = malloc(n), *c = malloc(n);
    assert_true(a && b && c);
    basics_fill_bytes(a, n, 42);
    basics_fill_bytes(b, n, 42);
    basics_fill_bytes(c, n, 43);
    assert_memory_equal(a, b, n);
    assert_memory_not_equal(a, c, n);
    uint32_t bins[BASICS_BINS];
    cpu_histogram(a, n, bins);
    for (int v = 0; v < BASICS_BINS; v++)   /* expected 4096 each */
        assert_true(bins[v] > 3600 && bins[v] < 4600);
    free(a);
    free(b);
    free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_saxpy),
        cmocka_unit_test(test_histogram),
        cmocka_unit_test(test_fill_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
