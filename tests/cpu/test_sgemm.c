/* SGEMM baselines on every vector path this CPU has, against the double reference. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "cpu/check.h"
#include "cpu/cpuinfo.h"
#include "cpu/sgemm.h"
#include "support.h"

typedef struct shape {
    int M, N, K;
} shape;

static const shape shapes[] = {
    {1, 1, 1}, {17, 31, 9}, {65, 129, 127}, {256, 256, 256}, {1, 300, 40}, {300, 1, 40}, {13, 7, 600},
};
static const cpu_simd paths[] = {CPU_SIMD_SCALAR, CPU_SIMD_SSE2, CPU_SIMD_AVX2, CPU_SIMD_AVX512};

typedef struct problem {
    int M, N, K;
    float *A, *B, *C;
} problem;

static problem make_problem(shape s, uint64_t seed)
{
    problem p = {s.M, s.N, s.K, NULL, NULL, NULL};
    size_t na = (size_t)s.M * (size_t)s.K, nb = (size_t)s.K * (size_t)s.N;
    p.A = malloc((na ? na : 1) * sizeof(float));
    p.B = malloc((nb ? nb : 1) * sizeof(float));
    p.C = malloc((size_t)s.M * (size_t)s.N * sizeof(float));
    assert_true(p.A && p.B && p.C);
    rng_fill_uniform(p.A, na, seed, -1.0f, 1.0f);
    rng_fill_uniform(p.B, nb, seed + 1000, -1.0f, 1.0f);
    check_poison(p.C, (size_t)s.M * (size_t)s.N);
    return p;
}

static void free_problem(problem *p)
{
    free(p->A);
    free(p->B);
    free(p->C);
}

/* Every element against the double dot product, within the worst-case float
 * bound (K + 2) * 2^-24 * sum_p |a_ip b_pj|, whatever the summation order. */
static void assert_matches_reference(const problem *p, const float *C)
{
    for (int i = 0; i < p->M; i++) {
        for (int j = 0; j < p->N; j++) {
            double ref = ref_sgemm_at(p->M, p->N, p->K, p->A, p->B, i, j);
            double mag = 0.0;
            for (int k = 0; k < p->K; k++)
                mag += fabs((double)p->A[(size_t)i * (size_t)p->K + (size_t)k] *
                            (double)p->B[(size_t)k * (size_t)p->N + (size_t)j]);
            double got = (double)C[(size_t)i * (size_t)p->N + (size_t)j];
            double bound = (double)(p->K + 2) * 0x1p-24 * mag;
            if (!(fabs(got - ref) <= bound)) {
                print_error("%s %dx%dx%d: C[%d][%d] = %.9g, reference %.17g (bound %.3g)\n",
                            cpu_simd_path(), p->M, p->N, p->K, i, j, got, ref, bound);
                fail();
            }
        }
    }
}

static void test_reference_element(void **state)
{
    (void)state;
    const float A[6] = {1, 2, 3, 4, 5, 6};       /* 2 x 3 */
    const float B[6] = {7, 8, 9, 10, 11, 12};    /* 3 x 2 */
    assert_true(ref_sgemm_at(2, 2, 3, A, B, 0, 0) == 58.0);
    assert_true(ref_sgemm_at(2, 2, 3, A, B, 0, 1) == 64.0);
    assert_true(ref_sgemm_at(2, 2, 3, A, B, 1, 0) == 139.0);
    assert_true(ref_sgemm_at(2, 2, 3, A, B, 1, 1) == 154.0);
    assert_true(isnan(ref_sgemm_at(2, 2, 3, A, B, 2, 0)));
    float C[4];
    cpu_sgemm(2, 2, 3, A, B, C);
    assert_true(C[0] == 58.0f && C[1] == 64.0f && C[2] == 139.0f && C[3] == 154.0f);
}

/* The row-wise reference gives exactly the element-wise one's sums, for
 * any band of rows, and skips rows outside the matrix. */
static void test_reference_rows(void **state)
{
    (void)state;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        problem p = make_problem(shapes[s], 40 + s);
        size_t nc = (size_t)p.M * (size_t)p.N;
        double *ref = malloc((nc ? nc : 1) * sizeof *ref);
        assert_non_null(ref);
        int64_t mid = p.M / 2;
        ref_sgemm_rows(p.M, p.N, p.K, p.A, p.B, 0, mid, ref);
        ref_sgemm_rows(p.M, p.N, p.K, p.A, p.B, mid, (int64_t)p.M + 5, ref + mid * p.N);
        for (int64_t i = 0; i < p.M; i++)
            for (int64_t j = 0; j < p.N; j++)
                assert_true(ref[i * p.N + j] == ref_sgemm_at(p.M, p.N, p.K, p.A, p.B, i, j));
        free(ref);
        free_problem(&p);
    }
}

static void test_single_thread_paths(void **state)
{
    (void)state;
    for (size_t v = 0; v < sizeof paths / sizeof paths[0]; v++) {
        if (!cpu_simd_force(paths[v]))
            continue;
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            problem p = make_problem(shapes[s], 10 + s);
            cpu_sgemm(p.M, p.N, p.K, p.A, p.B, p.C);
            assert_matches_reference(&p, p.C);
            free_problem(&p);
        }
    }
    cpu_simd_force(cpu_simd_best());
}

static void test_threads_agree(void **state)
{
    (void)state;
    const int threads[] = {0, 1, 2, 3, 5};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        problem p = make_problem(shapes[s], 20 + s);
        size_t nc = (size_t)p.M * (size_t)p.N;
        float *st = malloc(nc * sizeof *st);
        assert_non_null(st);
        cpu_sgemm(p.M, p.N, p.K, p.A, p.B, st);
        for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
            check_poison(p.C, nc);
            cpu_sgemm_mt(p.M, p.N, p.K, p.A, p.B, p.C, threads[t]);
            for (size_t i = 0; i < nc; i++)
                assert_true(fabs((double)p.C[i] - (double)st[i]) <= 1e-5 * (1.0 + fabs((double)st[i])));
        }
        assert_matches_reference(&p, p.C);
        free(st);
        free_problem(&p);
    }
}

static void test_degenerate_shapes(void **state)
{
    (void)state;
    float A[4] = {1, 2, 3, 4}, B[4] = {5, 6, 7, 8}, C[6];
    for (int i = 0; i < 6; i++)
        C[i] = 42.0f;
    cpu_sgemm(0, 3, 2, A, B, C);
    cpu_sgemm(2, 0, 2, A, B, C);
    cpu_sgemm_mt(0, 3, 2, A, B, C, 2);
    for (int i = 0; i < 6; i++)
        assert_true(C[i] == 42.0f);
    cpu_sgemm(2, 3, 0, A, B, C);
    for (int i = 0; i < 6; i++)
        assert_true(C[i] == 0.0f);
    for (int i = 0; i < 6; i++)
        C[i] = 42.0f;
    cpu_sgemm_mt(3, 2, 0, A, B, C, 4);
    for (int i = 0; i < 6; i++)
        assert_true(C[i] == 0.0f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference_element),
        cmocka_unit_test(test_reference_rows),
        cmocka_unit_test(test_single_thread_paths),
        cmocka_unit_test(test_threads_agree),
        cmocka_unit_test(test_degenerate_shapes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
