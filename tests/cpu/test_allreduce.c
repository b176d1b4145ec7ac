/* Unit tests for src/cpu/allreduce.c: the hashed inputs are the same
 * whatever the thread count and differ between ranks and seeds; the check
 * accepts a float sum in any order and names an unwritten element, a NaN
 * and a wrong sum by index. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/allreduce.h"

#define N ((size_t)3 << 20)   /* large enough for several threads */

static void test_inputs(void **state)
{
    (void)state;
    float *a = malloc(N * sizeof *a);
    assert_non_null(a);
    allreduce_fill(a, N, 42, 1);
    for (size_t i = 0; i < N; i += 9973) {
        assert_true(a[i] == allreduce_input(42, 1, i));
        assert_true(a[i] >= -1.0f && a[i] < 1.0f);
    }
    assert_true(allreduce_input(42, 0, 7) != allreduce_input(42, 1, 7));
    assert_true(allreduce_input(42, 0, 7) != allreduce_input(43, 0, 7));
    double mean = 0.0;
    for (size_t i = 0; i < N; i++)
        mean += (double)a[i];
    assert_true(fabs(mean / (double)N) < 0.01);
    free(a);
}

/* out = float sum over nranks of their inputs, added in reverse order. */
static float *sum_of(int nranks, uint64_t seed)
{
    float *out = malloc(N * sizeof *out);
    assert_non_null(out);
    for (size_t i = 0; i < N; i++) {
        float s = 0.0f;
        for (int r = nranks - 1; r >= 0; r--)
            s += allreduce_input(seed, r, i);
        out[i] = s;
    }
    return out;
}

static void test_check_ok(void **state)
{
    (void)state;
    for (int n = 2; n <= 8; n += 6) {
        float *got = sum_of(n, 7);
        check_report r = allreduce_check(got, N, 7, n, ALLREDUCE_TOL);
        assert_int_equal(r.status, CHECK_OK);
        assert_true(r.rel_err < 1e-6);
        assert_int_equal(r.compared, (int64_t)N);
        free(got);
    }
}

static void test_check_finds(void **state)
{
    (void)state;
    float *got = sum_of(2, 9);
    got[123457] += 0.5f;
    check_report r = allreduce_check(got, N, 9, 2, ALLREDUCE_TOL);
    assert_int_equal(r.status, CHECK_WRONG);
    assert_int_equal(r.differing, 1);
    assert_int_equal(r.mismatch[0].index, 123457);

    /* the wrong seed: every element differs */
    r = allreduce_check(got, N, 10, 2, ALLREDUCE_TOL);
    assert_int_equal(r.status, CHECK_WRONG);

    float nan = NAN;
    got[5] = nan;
    r = allreduce_check(got, N, 9, 2, ALLREDUCE_TOL);
    assert_int_equal(r.status, CHECK_NONFINITE);
    assert_int_equal(r.mismatch[0].index, 5);

    check_poison(got + N - 4, 4);
    r = allreduce_check(got, N, 9, 2, ALLREDUCE_TOL);
    assert_int_equal(r.status, CHECK_UNWRITTEN);
    assert_int_equal(r.unwritten, 4);
    assert_int_equal(r.mismatch[0].index, (int64_t)N - 4);
    free(got);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_inputs),
        cmocka_unit_test(test_check_ok),
        cmocka_unit_test(test_check_finds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
