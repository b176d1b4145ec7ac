/* Seeded random inputs: determinism, thread independence, ranges. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "core/rng.h"

#define BIG (((size_t)1 << 20) + 12345)

static void test_generator_is_deterministic(void **state)
{
    (void)state;
    rng a, b, z;
    rng_seed(&a, 42);
    rng_seed(&b, 42);
    rng_seed(&z, 0);
    assert_true(z.s[0] | z.s[1] | z.s[2] | z.s[3]);
    int same_as_zero = 0;
    for (int i = 0; i < 1000; i++) {
        uint64_t x = rng_next(&a);
        assert_true(x == rng_next(&b));
        same_as_zero += x == rng_next(&z);
        double u = rng_uniform(&a);
        assert_true(u >= 0.0 && u < 1.0);
        (void)rng_uniform(&b);
    }
    assert_true(same_as_zero < 2);
}

static void test_fill_same_seed_same_data(void **state)
{
    (void)state;
    float *x = malloc(BIG * sizeof *x), *y = malloc(BIG * sizeof *y);
    assert_non_null(x);
    assert_non_null(y);
    rng_fill_uniform(x, BIG, 7, -1.0f, 1.0f);
    rng_fill_uniform(y, BIG, 7, -1.0f, 1.0f);
    assert_memory_equal(x, y, BIG * sizeof *x);
    rng_fill_uniform(y, BIG, 8, -1.0f, 1.0f);
    size_t same = 0;
    for (size_t i = 0; i < BIG; i++)
        same += x[i] == y[i];
    assert_true(same < BIG / 1000);
    free(x);
    free(y);
}

static void test_fill_independent_of_threads(void **state)
{
    (void)state;
    float *ref = malloc(BIG * sizeof *ref), *x = malloc(BIG * sizeof *x);
    int32_t *iref = malloc(BIG * sizeof *iref), *ix = malloc(BIG * sizeof *ix);
    assert_true(ref && x && iref && ix);
    rng_fill_uniform_mt(ref, BIG, 1234, 0.0f, 10.0f, 1);
    rng_fill_indices_mt(iref, BIG, 1234, 50000, 1);
    const int threads[] = {0, 2, 3, 7, 64};
    for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
        memset(x, 0, BIG * sizeof *x);
        rng_fill_uniform_mt(x, BIG, 1234, 0.0f, 10.0f, threads[t]);
        assert_memory_equal(ref, x, BIG * sizeof *x);
        memset(ix, 0, BIG * sizeof *ix);
        rng_fill_indices_mt(ix, BIG, 1234, 50000, threads[t]);
        assert_memory_equal(iref, ix, BIG * sizeof *ix);
    }
    /* A shorter fill with the same seed is a prefix of the longer one. */
    rng_fill_uniform(x, 1000, 1234, 0.0f, 10.0f);
    assert_memory_equal(ref, x, 1000 * sizeof *x);
    free(ref);
    free(x);
    free(iref);
    free(ix);
}

static void test_neighbouring_seeds_share_nothing(void **state)
{
    (void)state;
    size_t n = (size_t)1 << 18;
    float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    assert_true(a && b);
    rng_fill_uniform(a, n, 100, 0.0f, 1.0f);
    rng_fill_uniform(b, n, 101, 0.0f, 1.0f);
    size_t chunk = (size_t)1 << 16;
    assert_memory_not_equal(a + chunk, b, chunk * sizeof *a);
    assert_memory_not_equal(a, b + chunk, chunk * sizeof *a);
    free(a);
    free(b);
}

static void test_fill_uniform_range(void **state)
{
    (void)state;
    size_t n = 200000;
    float *x = malloc(n * sizeof *x);
    assert_non_null(x);
    rng_fill_uniform(x, n, 99, -3.0f, 5.0f);
    double sum = 0.0;
    float lo = x[0], hi = x[0];
    for (size_t i = 0; i < n; i++) {
        assert_true(x[i] >= -3.0f && x[i] < 5.0f);
        sum += (double)x[i];
        lo = x[i] < lo ? x[i] : lo;
        hi = x[i] > hi ? x[i] : hi;
    }
    double mean = sum / (double)n;
    assert_true(mean > 0.98 && mean < 1.02);
    assert_true(lo < -2.99f && hi > 4.99f);

    /* A range one float wide still stays inside [lo, hi). */
    rng_fill_uniform(x, 1000, 5, 1.0f, 1.0000001f);
    for (size_t i = 0; i < 1000; i++)
        assert_true(x[i] == 1.0f);
    rng_fill_uniform(x, 10, 5, 2.0f, 2.0f);
    for (size_t i = 0; i < 10; i++)
        assert_true(x[i] == 2.0f);
    rng_fill_uniform(NULL, 0, 5, 0.0f, 1.0f);
    free(x);
}

static void test_fill_indices_range(void **state)
{
    (void)state;
    size_t n = 70000;
    int32_t *x = malloc(n * sizeof *x);
    assert_non_null(x);
    rng_fill_indices(x, n, 3, 7);
    int seen[7] = {0};
    for (size_t i = 0; i < n; i++) {
        assert_true(x[i] >= 0 && x[i] < 7);
        seen[x[i]]++;
    }
    for (int v = 0; v < 7; v++)
        assert_true(seen[v] > 9000 && seen[v] < 11000);
    rng_fill_indices(x, n, 3, 1);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(x[i], 0);
    rng_fill_indices(x, 100, 3, 0);
    for (size_t i = 0; i < 100; i++)
        assert_int_equal(x[i], 0);
    rng_fill_indices(x, n, 4, INT32_MAX);
    int64_t high = 0;
    for (size_t i = 0; i < n; i++) {
        assert_true(x[i] >= 0);
        high += x[i] > INT32_MAX / 2;
    }
    assert_true(high > (int64_t)n / 3 && high < (int64_t)n * 2 / 3);
    free(x);
}

static void test_fresh_seeds_differ(void **state)
{
    (void)state;
    uint64_t a = rng_fresh_seed(), b = rng_fresh_seed(), c = rng_fresh_seed();
    assert_true(a != b && b != c && a != c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_generator_is_deterministic),
        cmocka_unit_test(test_fill_same_seed_same_data),
        cmocka_unit_test(test_fill_independent_of_threads),
        cmocka_unit_test(test_neighbouring_seeds_share_nothing),
        cmocka_unit_test(test_fill_uniform_range),
        cmocka_unit_test(test_fill_indices_range),
        cmocka_unit_test(test_fresh_seeds_differ),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
