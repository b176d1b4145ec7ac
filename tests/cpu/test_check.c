/* Output checks: poison, correct, wrong, unwritten, non-finite, sampled, text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "cpu/check.h"

#define N 1024

typedef struct fixture {
    float got[N];
    double ref[N];
} fixture;

static bool starts_with(const char *s, const char *prefix)
{
    if (strncmp(s, prefix, strlen(prefix)) == 0)
        return true;
    print_error("\"%s\" does not start with \"%s\"\n", s, prefix);
    return false;
}

static int setup(void **state)
{
    fixture *f = malloc(sizeof *f);
    if (!f)
        return -1;
    rng_fill_uniform(f->got, N, 9, -2.0f, 2.0f);
    for (int i = 0; i < N; i++)
        f->ref[i] = (double)f->got[i];
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    free(*state);
    return 0;
}

static void test_poison(void **state)
{
    (void)state;
    float x[5];
    check_poison(x, 5);
    uint32_t bits;
    memcpy(&bits, &x[4], sizeof bits);
    assert_int_equal(bits, CHECK_POISON_BITS);
    for (int i = 0; i < 5; i++) {
        assert_true(check_is_poison(x[i]));
        assert_true(isnan(x[i]));
    }
    assert_false(check_is_poison(nanf("")));
    assert_false(check_is_poison(0.0f));
    assert_false(check_is_poison(INFINITY));
}

static void test_correct(void **state)
{
    fixture *f = *state;
    f->got[3] = nextafterf(f->got[3], 10.0f);
    check_report r = check_compare(f->got, N, f->ref, NULL, N, 1e-5);
    assert_int_equal(r.status, CHECK_OK);
    assert_int_equal(r.compared, N);
    assert_int_equal(r.unwritten, 0);
    assert_int_equal(r.nonfinite, 0);
    assert_int_equal(r.nmismatch, 0);
    assert_int_equal(r.differing, 0);
    assert_true(r.rel_err > 0.0 && r.rel_err < 1e-7);
    char buf[256];
    check_describe(&r, buf, sizeof buf);
    assert_true(starts_with(buf, "ok: 1024 checked, rel err "));
}

static void test_wrong(void **state)
{
    fixture *f = *state;
    f->ref[17] = 2.0;
    f->got[17] = 1.5f;
    check_report r = check_compare(f->got, N, f->ref, NULL, N, 1e-5);
    assert_int_equal(r.status, CHECK_WRONG);
    assert_int_equal(r.differing, 1);
    assert_int_equal(r.nmismatch, 1);
    assert_int_equal(r.mismatch[0].index, 17);
    assert_true(r.mismatch[0].got == 1.5 && r.mismatch[0].expected == 2.0);
    char buf[256];
    check_describe(&r, buf, sizeof buf);
    assert_true(starts_with(buf, "wrong: 1 of 1024 checked differ; first at [17]: got 1.5, expected 2 (rel err "));

    for (int i = 100; i < 110; i++)
        f->got[i] = -f->got[i] + 1.0f;
    r = check_compare(f->got, N, f->ref, NULL, N, 1e-5);
    assert_int_equal(r.status, CHECK_WRONG);
    assert_int_equal(r.differing, 11);
    assert_int_equal(r.nmismatch, 4);
    assert_int_equal(r.mismatch[0].index, 17);
    assert_int_equal(r.mismatch[1].index, 100);
    assert_int_equal(r.mismatch[3].index, 102);
    assert_true(r.rel_err > 1e-3);

    /* A loose tolerance forgives them. */
    r = check_compare(f->got, N, f->ref, NULL, N, 10.0);
    assert_int_equal(r.status, CHECK_OK);
}

static void test_tolerance_scales_with_rms(void **state)
{
    fixture *f = *state;
    f->ref[5] = 0.0;
    f->got[5] = 1e-7f;
    check_report r = check_compare(f->got, N, f->ref, NULL, N, 1e-5);
    assert_int_equal(r.status, CHECK_OK);
    f->got[5] = 1e-3f;
    r = check_compare(f->got, N, f->ref, NULL, N, 1e-5);
    assert_int_equal(r.status, CHECK_WRONG);
    assert_int_equal(r.mismatch[0].index, 5);

    double zeros[4] = {0, 0, 0, 0};
    float fz[4] = {0, 0, 0, 0};
    r = check_compare(fz, 4, zeros, NULL, 4, 1e-5);
    assert_int_equal(r.status, CHECK_OK);
    assert_true(r.rel_err == 0.0);
    fz[2] = 1e-20f;
    r = check_compare(fz, 4, zeros, NULL, 4, 1e-5);
    assert_int_equal(r.status, CHECK_WRONG);
}

static void test_unwritten(void **state)
{
    fixture *f = *state;
    float *out = malloc(N * sizeof *out);
    assert_non_null(out);
    check_poison(out, N);
    for (int i = 0; i < N; i++)
        if (i != 700)
            out[i] = (float)f->ref[i];
    check_report r = check_compare(out, N, f->ref, NULL, N, 1e-5);
    assert_int_equal(r.status, CHECK_UNWRITTEN);
    assert_int_equal(r.unwritten, 1);
    assert_int_equal(r.nonfinite, 0);
    assert_int_equal(r.nmismatch, 1);
    assert_int_equal(r.mismatch[0].index, 700);
    assert_int_equal(r.compared, N - 1);
    assert_true(r.rel_err < 1e-7);
    char buf[256];
    check_describe(&r, buf, sizeof buf);
    assert_string_equal(buf, "unwritten: 1 output element was never written; first at [700]");

    /* Unwritten wins over NaN, which is still counted. */
    out[3] = nanf("");
    r = check_compare(out, N, f->ref, NULL, N, 1e-5);
    assert_int_equal(r.status, CHECK_UNWRITTEN);
    assert_int_equal(r.nonfinite, 1);
    assert_int_equal(r.mismatch[0].index, 700);

    check_poison(out, N);
    r = check_compare(out, N, f->ref, NULL, N, 1e-5);
    assert_int_equal(r.unwritten, N);
    assert_int_equal(r.nmismatch, 4);
    assert_int_equal(r.compared, 0);
    check_describe(&r, buf, sizeof buf);
    assert_string_equal(buf, "unwritten: 1024 output elements were never written; first at [0]");
    free(out);
}

static void test_nonfinite(void **state)
{
    fixture *f = *state;
    f->got[40] = nanf("");
    check_report r = check_compare(f->got, N, f->ref, NULL, N, 1e-5);
    assert_int_equal(r.status, CHECK_NONFINITE);
    assert_int_equal(r.nonfinite, 1);
    assert_int_equal(r.mismatch[0].index, 40);
    assert_true(isnan(r.mismatch[0].got));
    assert_true(r.mismatch[0].expected == f->ref[40]);

    f->got[40] = (float)f->ref[40];
    f->got[41] = -INFINITY;
    f->got[900] = INFINITY;
    r = check_compare(f->got, N, f->ref, NULL, N, 1e-5);
    assert_int_equal(r.status, CHECK_NONFINITE);
    assert_int_equal(r.nonfinite, 2);
    assert_int_equal(r.mismatch[0].index, 41);
    assert_int_equal(r.mismatch[1].index, 900);
    char buf[256];
    check_describe(&r, buf, sizeof buf);
    assert_string_equal(buf, "nonfinite: 2 output elements are NaN or Inf; first at [41]: got -inf");
}

static void test_sampled(void **state)
{
    fixture *f = *state;
    int64_t idx[50];
    double ref[50];
    for (int k = 0; k < 50; k++) {
        idx[k] = (int64_t)k * 20 + 3;
        ref[k] = f->ref[idx[k]];
    }
    check_report r = check_compare(f->got, N, ref, idx, 50, 1e-5);
    assert_int_equal(r.status, CHECK_OK);
    assert_int_equal(r.compared, 50);

    f->got[4] = 1e6f;    /* not sampled: not seen */
    r = check_compare(f->got, N, ref, idx, 50, 1e-5);
    assert_int_equal(r.status, CHECK_OK);

    f->got[203] += 1.0f;
    r = check_compare(f->got, N, ref, idx, 50, 1e-5);
    assert_int_equal(r.status, CHECK_WRONG);
    assert_int_equal(r.mismatch[0].index, 203);
    assert_true(r.mismatch[0].expected == f->ref[203]);

    f->got[203] = (float)f->ref[203];
    check_poison(&f->got[5], 1);   /* not sampled, but the whole output is scanned */
    r = check_compare(f->got, N, ref, idx, 50, 1e-5);
    assert_int_equal(r.status, CHECK_UNWRITTEN);
    assert_int_equal(r.mismatch[0].index, 5);
    f->got[5] = 0.0f;

    idx[10] = N;    /* outside the output */
    r = check_compare(f->got, N, ref, idx, 50, 1e-5);
    assert_int_equal(r.status, CHECK_WRONG);
    assert_int_equal(r.mismatch[0].index, N);
}

static void test_describe_truncates(void **state)
{
    fixture *f = *state;
    check_report r = check_compare(f->got, N, f->ref, NULL, N, 1e-5);
    char small[8];
    check_describe(&r, small, sizeof small);
    assert_string_equal(small, "ok: 102");
    assert_string_equal(check_status_name(CHECK_UNWRITTEN), "unwritten");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_poison),
        cmocka_unit_test_setup_teardown(test_correct, setup, teardown),
        cmocka_unit_test_setup_teardown(test_wrong, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tolerance_scales_with_rms, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unwritten, setup, teardown),
        cmocka_unit_test_setup_teardown(test_nonfinite, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sampled, setup, teardown),
        cmocka_unit_test_setup_teardown(test_describe_truncates, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
