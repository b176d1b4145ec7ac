/* The tolerances of catalog/precision.c against the errors they must
 * allow: a product of FP32 inputs in [-1, 1) computed with the inputs
 * rounded to TF32 (to nearest, and by truncation, the two ways hardware and
 * libraries round) or to BF16, summed in FP32, is compared with the
 * double-precision product of the unrounded inputs, as the engine's check
 * does.  Each tolerance must leave a wide margin over the error of a
 * correct result, and a result that lacks one k term in a hundred must
 * fail it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/precision.h"
#include "core/rng.h"

#define M 96
#define N 96
#define K 4096

typedef float (*round_fn)(float);

static float keep(float x)
{
    return x;
}

static uint32_t bits(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static float from_bits(uint32_t u)
{
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

static float tf32_nearest(float x)
{
    return from_bits((bits(x) + 0x1000u) & 0xffffe000u);
}

static float tf32_truncated(float x)
{
    return from_bits(bits(x) & 0xffffe000u);
}

static float bf16_nearest_even(float x)
{
    const uint32_t u = bits(x);
    return from_bits(((u + 0x7fffu + ((u >> 16) & 1u)) >> 16) << 16);
}

typedef struct errors {
    double norm;          /* ||got - ref|| / ||ref|| */
    double worst;         /* max |got - ref| / max(|ref|, rms(ref)) */
} errors;

static float *A, *B;
static double *ref;

/* The product with rounded inputs, summed in FP32, k terms with k % 100 ==
 * 99 left out when drop; its errors against ref. */
static errors measure(round_fn r, bool drop)
{
    double r2 = 0.0, d2 = 0.0, worst = 0.0;
    for (int e = 0; e < M * N; e++)
        r2 += ref[e] * ref[e];
    const double rms = sqrt(r2 / (M * N));
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            float s = 0.0f;
            for (int k = 0; k < K; k++)
                if (!drop || k % 100 != 99)
                    s += (float)((double)r(A[i * K + k]) * (double)r(B[(size_t)k * N + j]));
            const double d = (double)s - ref[i * N + j];
            d2 += d * d;
            const double scale = fabs(ref[i * N + j]) > rms ? fabs(ref[i * N + j]) : rms;
            if (fabs(d) / scale > worst)
                worst = fabs(d) / scale;
        }
    return (errors){sqrt(d2 / r2), worst};
}

static int setup(void **state)
{
    (void)state;
    A = malloc(sizeof(float) * M * K);
    B = malloc(sizeof(float) * K * N);
    ref = malloc(sizeof(double) * M * N);
    if (!A || !B || !ref)
        return -1;
    rng_fill_uniform(A, (size_t)M * K, 1234, -1.0f, 1.0f);
    rng_fill_uniform(B, (size_t)K * N, 5678, -1.0f, 1.0f);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double s = 0.0;
            for (int k = 0; k < K; k++)
                s += (double)A[i * K + k] * (double)B[(size_t)k * N + j];
            ref[i * N + j] = s;
        }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    free(A);
    free(B);
    free(ref);
    return 0;
}

static void expect(const char *prec, round_fn r, const char *how)
{
    const gemm_precision *p = gemm_precision_find(prec);
    assert_non_null(p);
    const errors ok = measure(r, false), bad = measure(r, true);
    printf("  %s, %s: error %.2e, worst output %.2e of the scale; tolerance %.0e; one k term in "
           "a hundred missing: %.2e\n",
           p->label, how, ok.norm, ok.worst, p->tolerance, bad.norm);
    /* Margin: the norm five times under, the worst output twice under. */
    assert_true(ok.norm * 5 < p->tolerance);
    assert_true(ok.worst * 2 < p->tolerance);
    assert_true(bad.norm > p->tolerance);
}

static void test_fp32(void **state)
{
    (void)state;
    expect("fp32", keep, "FP32 inputs");
    assert_ptr_equal(gemm_precision_find(NULL), gemm_precision_find("fp32"));
}

static void test_tf32(void **state)
{
    (void)state;
    expect("tf32", tf32_nearest, "rounded to nearest");
    expect("tf32", tf32_truncated, "truncated");
}

static void test_bf16(void **state)
{
    (void)state;
    expect("bf16", bf16_nearest_even, "rounded to nearest even");
}

static void test_table(void **state)
{
    (void)state;
    static const char *const names[] = {"fp32", "tf32", "bf16"};
    double last = 0.0;
    for (size_t i = 0; i < 3; i++) {
        const gemm_precision *p = gemm_precision_find(names[i]);
        assert_non_null(p);
        assert_string_equal(p->name, names[i]);
        assert_true(p->tolerance > last);
        assert_true(strlen(p->why) > 20);
        last = p->tolerance;
    }
    assert_null(gemm_precision_find("fp16"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_fp32),
        cmocka_unit_test(test_tf32),
        cmocka_unit_test(test_bf16),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
