/* test_dpstep_kernels.c - the multigpu lab's training-step pieces
 * (kernels/dpstep.h) on one device: the cuBLAS product with each operand
 * transposed or not, at odd sizes and padded leading dimensions, against
 * a double-precision CPU product; ReLU, its gradient and the loss gradient
 * against the CPU exactly.  Outputs are poisoned (NaN) before each run.
 * Without a device it exits 77. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <cuda_runtime_api.h>

#include "dpstep.h"
#include "kernels.h"

static void cuda_ok(cudaError_t e, const char *what, int line)
{
    if (e != cudaSuccess)
        fail_msg("line %d: %s: %s (%s)", line, what, cudaGetErrorString(e),
                 kernels_library_error());
}
#define CU(call) cuda_ok((call), #call, __LINE__)

static uint64_t state = 0x9e3779b97f4a7c15ull;

static float next_float(void)
{
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return (float)((double)(state >> 40) / (double)(1ull << 23) - 1.0);
}

static float *upload(const float *h, size_t n)
{
    float *d = NULL;
    CU(cudaMalloc((void **)&d, n * sizeof *d));
    CU(cudaMemcpy(d, h, n * sizeof *d, cudaMemcpyHostToDevice));
    return d;
}

/* Column-major element (i, j) of op(X), X stored with leading dimension ld. */
static double at(const float *x, int ld, bool trans, int i, int j)
{
    return trans ? x[j + (size_t)i * ld] : x[i + (size_t)j * ld];
}

static void one_product(bool ta, bool tb)
{
    const int m = 37, n = 23, k = 19, pad = 3;
    const int lda = (ta ? k : m) + pad, ldb = (tb ? n : k) + pad, ldc = m + pad;
    const size_t na = (size_t)lda * (ta ? m : k), nb = (size_t)ldb * (tb ? k : n),
                 nc = (size_t)ldc * n;
    float *a = malloc(na * sizeof *a), *b = malloc(nb * sizeof *b), *c = malloc(nc * sizeof *c);
    assert_true(a && b && c);
    for (size_t i = 0; i < na; i++)
        a[i] = next_float();
    for (size_t i = 0; i < nb; i++)
        b[i] = next_float();
    float *da = upload(a, na), *db = upload(b, nb), *dc = NULL;
    CU(cudaMalloc((void **)&dc, nc * sizeof *dc));
    CU(kernels_fill_u32((uint32_t *)dc, 0x7fc0dead, nc, 0));
    CU(kdp_gemm(ta, tb, m, n, k, da, lda, db, ldb, dc, ldc, 0));
    CU(cudaMemcpy(c, dc, nc * sizeof *c, cudaMemcpyDeviceToHost));
    double worst = 0.0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            double ref = 0.0;
            for (int p = 0; p < k; p++)
                ref += at(a, lda, ta, i, p) * at(b, ldb, tb, p, j);
            double got = c[i + (size_t)j * ldc];
            if (!(fabs(got - ref) <= 1e-5 * fmax(1.0, fabs(ref))))
                fail_msg("op(A)%s x op(B)%s: C(%d, %d) = %.9g, expected %.9g", ta ? "^T" : "",
                         tb ? "^T" : "", i, j, got, ref);
            worst = fmax(worst, fabs(got - ref));
        }
    printf("kdp_gemm(%c, %c) %dx%dx%d: largest error %.3g\n", ta ? 'T' : 'N', tb ? 'T' : 'N', m,
           n, k, worst);
    cudaFree(da), cudaFree(db), cudaFree(dc);
    free(a), free(b), free(c);
}

static void test_gemm(void **st)
{
    (void)st;
    for (int t = 0; t < 4; t++)
        one_product(t & 1, t & 2);
    /* shapes cuBLAS cannot take are refused, not run */
    assert_int_equal(kdp_gemm(false, false, 4, 4, 4, NULL, 4, NULL, 4, NULL, 4, 0),
                     cudaErrorInvalidValue);
}

static void test_elementwise(void **st)
{
    (void)st;
    const size_t n = 100003;
    float *z = malloc(n * sizeof *z), *d = malloc(n * sizeof *d), *t = malloc(n * sizeof *t),
          *got = malloc(n * sizeof *got);
    assert_true(z && d && t && got);
    for (size_t i = 0; i < n; i++) {
        z[i] = i % 97 == 0 ? 0.0f : next_float();
        d[i] = next_float();
        t[i] = next_float();
    }
    float *dz = upload(z, n), *dd = upload(d, n), *dt = upload(t, n), *out = NULL;
    CU(cudaMalloc((void **)&out, n * sizeof *out));
    /* ReLU in place */
    CU(kdp_relu(dz, n, 0));
    CU(cudaMemcpy(got, dz, n * sizeof *got, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; i++)
        if (got[i] != fmaxf(z[i], 0.0f))
            fail_msg("relu [%zu]: %g from %g", i, (double)got[i], (double)z[i]);
    /* its gradient, through the ReLU's output: zero where the output is not positive */
    CU(kdp_relu_back(dd, dz, n, 0));
    CU(cudaMemcpy(got, dd, n * sizeof *got, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; i++)
        if (got[i] != (z[i] > 0.0f ? d[i] : 0.0f))
            fail_msg("relu_back [%zu]: %g (input %g, gradient %g)", i, (double)got[i],
                     (double)z[i], (double)d[i]);
    /* the loss gradient: (y - t) x scale, written everywhere */
    CU(kernels_fill_u32((uint32_t *)out, 0x7fc0dead, n, 0));
    float *dy = upload(d, n);
    CU(kdp_loss_grad(out, dy, dt, 0.25f, n, 0));
    CU(cudaMemcpy(got, out, n * sizeof *got, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; i++)
        if (got[i] != (d[i] - t[i]) * 0.25f)
            fail_msg("loss_grad [%zu]: %g, expected %g", i, (double)got[i],
                     (double)((d[i] - t[i]) * 0.25f));
    printf("kdp_relu, kdp_relu_back, kdp_loss_grad: %zu elements exact\n", n);
    cudaFree(dz), cudaFree(dd), cudaFree(dt), cudaFree(out), cudaFree(dy);
    free(z), free(d), free(t), free(got);
}

int main(void)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count < 1) {
        printf("skipped: no CUDA device\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gemm),
        cmocka_unit_test(test_elementwise),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
