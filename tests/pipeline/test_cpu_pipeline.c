/* The pipeline's CPU baselines on every vector path this CPU has, against
 * the double reference, at awkward sizes; the reference itself against
 * hand-computed statistics; the seeded inputs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/check.h"
#include "cpu/cpuinfo.h"
#include "cpu/pipeline.h"

static const cpu_simd paths[] = {CPU_SIMD_SCALAR, CPU_SIMD_SSE2, CPU_SIMD_AVX2, CPU_SIMD_AVX512};

typedef struct shape {
    size_t rows, feats;
} shape;

/* Awkward sizes: one row, one column, column counts that are not a
 * multiple of any vector width, a large table. */
static const shape shapes[] = {
    {1, 1}, {1, 16}, {2, 3}, {7, 5}, {33, 17}, {1000, 1}, {4099, 7}, {513, 31},
    {2048, 16}, {3001, 32}, {65537, 9}, {(1u << 18) + 3, 16},
};

static void check_against_ref(const float *in, size_t rows, size_t feats, const float *got,
                              const char *what)
{
    size_t n = rows * feats;
    double *ref = malloc(n * sizeof *ref);
    assert_non_null(ref);
    assert_true(ref_pipeline(in, ref, rows, feats));
    check_report c = check_compare(got, n, ref, NULL, n, 1e-4);
    if (c.status != CHECK_OK) {
        char msg[256];
        check_describe(&c, msg, sizeof msg);
        fail_msg("%s at %zux%zu: %s (rel_err %.3g)", what, rows, feats, msg, c.rel_err);
    }
    free(ref);
}

static void test_baselines_every_path(void **state)
{
    (void)state;
    cpu_simd best = cpu_simd_best();
    for (size_t p = 0; p < sizeof paths / sizeof paths[0]; p++) {
        if (!cpu_simd_force(paths[p]))
            continue;
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            size_t rows = shapes[s].rows, feats = shapes[s].feats, n = rows * feats;
            float *in = malloc(n * sizeof *in), *out = malloc(n * sizeof *out);
            assert_non_null(in);
            assert_non_null(out);
            pipeline_inputs(in, rows, feats, 1234 + s);
            char what[64];

            check_poison(out, n);
            assert_true(cpu_pipeline(in, out, rows, feats));
            snprintf(what, sizeof what, "one thread, %s", cpu_simd_name(paths[p]));
            check_against_ref(in, rows, feats, out, what);

            check_poison(out, n);
            assert_true(cpu_pipeline_mt(in, out, rows, feats, 3));
            snprintf(what, sizeof what, "three threads, %s", cpu_simd_name(paths[p]));
            check_against_ref(in, rows, feats, out, what);
            free(in);
            free(out);
        }
    }
    assert_true(cpu_simd_force(best));
}

/* A hand-made table: known means and deviations, a constant column, a
 * value far enough out to be clipped. */
static void test_reference_by_hand(void **state)
{
    (void)state;
    /* column 0: 1, 2, 3, 4, 100   column 1: 7 (constant)   column 2: -1, 1, -1, 1, 0 */
    const float in[] = {1, 7, -1, 2, 7, 1, 3, 7, -1, 4, 7, 1, 100, 7, 0};
    double mean[3], sd[3];
    assert_true(pipeline_column_stats(in, 5, 3, mean, sd));
    assert_true(fabs(mean[0] - 22.0) < 1e-12);
    assert_true(mean[1] == 7.0 && sd[1] == 0.0);
    assert_true(fabs(mean[2]) < 1e-15);
    double var0 = ((21.0 * 21.0) + (20.0 * 20.0) + (19.0 * 19.0) + (18.0 * 18.0) + (78.0 * 78.0)) / 5.0;
    assert_true(fabs(sd[0] - sqrt(var0)) < 1e-12);
    assert_true(fabs(sd[2] - sqrt(0.8)) < 1e-12);

    double out[15];
    assert_true(ref_pipeline(in, out, 5, 3));
    assert_true(fabs(out[0] - (1.0 - 22.0) / sqrt(var0)) < 1e-12);
    assert_true(out[12] == (78.0 / sqrt(var0) > 3.0 ? 3.0 : 78.0 / sqrt(var0)));
    for (int r = 0; r < 5; r++)
        assert_true(out[r * 3 + 1] == 0.0);
    assert_true(fabs(out[2] - (-1.0 / sqrt(0.8))) < 1e-12);

    float got[15];
    assert_true(cpu_pipeline(in, got, 5, 3));
    for (int i = 0; i < 15; i++)
        assert_true(fabs((double)got[i] - out[i]) < 1e-5);
    assert_true(cpu_pipeline_mt(in, got, 5, 3, 4));
    for (int i = 0; i < 15; i++)
        assert_true(fabs((double)got[i] - out[i]) < 1e-5);
}

static void test_inputs(void **state)
{
    (void)state;
    size_t rows = 100000, feats = 8, n = rows * feats;
    float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    double *ref = malloc(n * sizeof *ref);
    assert_non_null(a);
    assert_non_null(b);
    assert_non_null(ref);
    pipeline_inputs(a, rows, feats, 99);
    pipeline_inputs(b, rows, feats, 99);
    assert_memory_equal(a, b, n * sizeof *a);
    pipeline_inputs(b, rows, feats, 100);
    assert_true(memcmp(a, b, n * sizeof *a) != 0);

    double mean[8], sd[8];
    assert_true(pipeline_column_stats(a, rows, feats, mean, sd));
    for (size_t c = 0; c < feats; c++) {
        assert_true(mean[c] > -110.0 && mean[c] < 110.0);
        assert_true(sd[c] > 0.4 && sd[c] < 22.0);
    }
    /* the tails reach past 3 standard deviations: some values are clipped */
    assert_true(ref_pipeline(a, ref, rows, feats));
    size_t clipped = 0;
    for (size_t i = 0; i < n; i++)
        clipped += fabs(ref[i]) == PIPELINE_CLIP;
    assert_true(clipped > n / 400 && clipped < n / 25);
    free(a);
    free(b);
    free(ref);
}

static void test_limits(void **state)
{
    (void)state;
    float x[4] = {1, 2, 3, 4}, y[4];
    assert_false(cpu_pipeline(x, y, 1, PIPELINE_MAX_FEATURES + 1));
    assert_false(cpu_pipeline_mt(x, y, 1, PIPELINE_MAX_FEATURES + 1, 2));
    assert_true(cpu_pipeline(x, y, 0, 4));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference_by_hand),
        cmocka_unit_test(test_baselines_every_path),
        cmocka_unit_test(test_inputs),
        cmocka_unit_test(test_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
