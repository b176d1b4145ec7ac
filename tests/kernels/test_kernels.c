/* test_kernels.c - every shipped kernel (and the library baselines) against a
 * double-precision CPU reference, at awkward sizes, on fresh seeded inputs
 * with outputs poisoned (NaN) before each run.  Needs a CUDA device: without
 * one it checks the tables only and exits 77.  The matmul rungs have a test
 * of their own (test_matmul_kernels.c).  The seed comes from
 * CUDALAB_TEST_SEED when set, else from the clock; it is printed. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>
#include <cuda_runtime_api.h>

#include "kernels.h"

#define MAX_TRACKED 64

static uint64_t rng_state;
static void *dev_ptrs[MAX_TRACKED];
static void *host_ptrs[MAX_TRACKED];
static int n_dev, n_host;

static uint64_t rng_next(void)
{
    uint64_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    rng_state = x;
    return x;
}

static float rng_float(float lo, float hi)
{
    return lo + (hi - lo) * (float)((double)(rng_next() >> 40) / (double)(1ull << 24));
}

static void cuda_ok(cudaError_t e, const char *what, int line)
{
    if (e != cudaSuccess) fail_msg("line %d: %s: %s", line, what, cudaGetErrorString(e));
}
#define CU(call) cuda_ok((call), #call, __LINE__)

/* Device and host allocations are tracked so that a failing test (cmocka
 * jumps out of it) still frees them in teardown. */
static void *dev_alloc(size_t bytes)
{
    void *p = NULL;
    assert_true(n_dev < MAX_TRACKED);
    CU(cudaMalloc(&p, bytes));
    dev_ptrs[n_dev++] = p;
    return p;
}

static void *host_alloc(size_t bytes)
{
    assert_true(n_host < MAX_TRACKED);
    void *p = malloc(bytes ? bytes : 1);
    assert_non_null(p);
    host_ptrs[n_host++] = p;
    return p;
}

static int free_all(void **state)
{
    (void)state;
    for (int i = 0; i < n_dev; ++i) cudaFree(dev_ptrs[i]);
    for (int i = 0; i < n_host; ++i) free(host_ptrs[i]);
    n_dev = n_host = 0;
    return 0;
}

static void poison(void *dev, size_t bytes) { CU(cudaMemset(dev, 0xff, bytes)); }

/* Relative-norm comparison of n floats against a double reference; reports
 * the first unwritten/non-finite element or else the largest difference. */
static void expect_close(const char *kernel, const char *size, const float *got,
                         const double *ref, size_t n, double tol)
{
    double d2 = 0.0, r2 = 0.0, worst = -1.0;
    size_t wi = 0;
    for (size_t i = 0; i < n; ++i) {
        if (!isfinite(got[i]))
            fail_msg("%s %s: element %zu not written or not finite: got %g, expected %.9g", kernel,
                     size, i, (double)got[i], ref[i]);
        const double d = (double)got[i] - ref[i];
        d2 += d * d;
        r2 += ref[i] * ref[i];
        if (fabs(d) > worst) {
            worst = fabs(d);
            wi = i;
        }
    }
    const double rel = r2 > 0.0 ? sqrt(d2 / r2) : sqrt(d2);
    if (!(rel <= tol))
        fail_msg("%s %s: relative error %.3e > %.1e; worst at index %zu: got %.9g, expected %.9g",
                 kernel, size, rel, tol, wi, (double)got[wi], ref[wi]);
}

/* ---- tables (no device needed) ------------------------------------------------ */
static const char *const reduce_names[] = {
    "reduce_interleaved_divergent", "reduce_interleaved_strided", "reduce_sequential",
    "reduce_first_add", "reduce_warp_shuffle", "reduce_vectorized", "cub_sum"};
static const char *const sgemm_names[] = {
    "sgemm_naive",    "sgemm_coalesced", "sgemm_smem_tiled", "sgemm_blocktile_1d",
    "sgemm_blocktile_2d", "sgemm_vectorized", "sgemm_warptile", "gemm_wmma_tf32",
    "gemm_wmma_bf16", "gemm_wmma_async", "gemm_wgmma", "gemm_wgmma_persist",
    "gemm_wgmma_cluster", "gemm_wgmma_tmastore", "cublas_sgemm", "cublas_tf32", "cublas_bf16"};
static const char *const embed_names[] = {"embed_naive", "embed_warp_row", "embed_vectorized"};
static const char *const saxpy_names[] = {"saxpy_one_block", "saxpy_per_element",
                                          "saxpy_grid_stride"};
static const char *const hist_names[] = {"hist_global", "hist_shared"};
static const char *const managed_names[] = {"um_on_demand", "um_prefetch", "um_copy"};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static void check_names(const char *const *names, size_t n, const char *problem)
{
    for (size_t i = 0; i < n; ++i) {
        const shipped_kernel *k = kernels_find(names[i]);
        if (!k) fail_msg("kernels_find(\"%s\") found nothing", names[i]);
        assert_string_equal(k->problem, problem);
        const int set = (k->reduce != NULL) + (k->sgemm != NULL) + (k->embed != NULL) +
                        (k->saxpy != NULL) + (k->hist != NULL) +
                        (k->gemm_bf16 != NULL);
        assert_int_equal(set, 1);
        const int lib = strcmp(names[i], "cub_sum") == 0 || strncmp(names[i], "cublas_", 7) == 0;
        assert_int_equal(k->library, lib);
        /* The tensor-core rungs have no raw kernel: their operands are not
         * what a learner's FP32 launcher holds. */
        const int raw = !lib && strncmp(names[i], "gemm_", 5) != 0;
        if (raw && !kernels_raw_find(names[i]))
            fail_msg("kernels_raw_find(\"%s\") found nothing", names[i]);
    }
}

static void test_tables(void **state)
{
    (void)state;
    size_t n = 0;
    const shipped_kernel *all = kernels_shipped(&n);
    assert_non_null(all);
    assert_int_equal(n, COUNT(reduce_names) + COUNT(sgemm_names) + COUNT(embed_names) +
                            COUNT(saxpy_names) + COUNT(hist_names) + COUNT(managed_names));
    check_names(reduce_names, COUNT(reduce_names), "reduce_sum");
    check_names(sgemm_names, COUNT(sgemm_names), "sgemm");
    check_names(embed_names, COUNT(embed_names), "embedding");
    check_names(saxpy_names, COUNT(saxpy_names), "saxpy");
    check_names(hist_names, COUNT(hist_names), "histogram");
    check_names(managed_names, COUNT(managed_names), "managed");
    assert_null(kernels_find("no_such_kernel"));
    const raw_kernel *raw = kernels_raw(&n);
    assert_true(n >= COUNT(reduce_names) + COUNT(sgemm_names) + COUNT(embed_names) - 8);
    for (size_t i = 0; i < n; ++i) {
        assert_non_null(raw[i].func);
        assert_true(strlen(raw[i].sig) > 0);
        assert_int_equal(strspn(raw[i].sig, "piulfd"), strlen(raw[i].sig));
        assert_true(strlen(raw[i].doc) > 0);
    }
    assert_null(kernels_raw_find("no_such_kernel"));
    assert_non_null(kernels_library_error());
}

/* ---- reduction ---------------------------------------------------------------- */
static void run_reduce(const shipped_kernel *k, const float *d_in, const float *h_in, size_t n,
                       float *d_out, void *d_scratch, size_t scratch_bytes, const char *what)
{
    double ref = 0.0;
    for (size_t i = 0; i < n; ++i) ref += (double)h_in[i];
    poison(d_out, sizeof(float));
    /* Leftovers from other runs must not matter: fill the scratch with noise. */
    CU(cudaMemset(d_scratch, (int)(rng_next() & 0xff), scratch_bytes));
    cudaError_t e = k->reduce(d_in, n, d_out, d_scratch, scratch_bytes, 0);
    if (e != cudaSuccess)
        fail_msg("%s n=%zu %s: %s (%s)", k->name, n, what, cudaGetErrorString(e),
                 kernels_library_error());
    CU(cudaDeviceSynchronize());
    float got = 0.0f;
    CU(cudaMemcpy(&got, d_out, sizeof got, cudaMemcpyDeviceToHost));
    char size[64];
    snprintf(size, sizeof size, "n=%zu %s", n, what);
    expect_close(k->name, size, &got, &ref, 1, 1e-5);
}

static void test_reduce(void **state)
{
    (void)state;
    static const size_t sizes[] = {1, 31, 1025, (1u << 20) + 3, 1u << 24};
    const size_t nmax = sizes[COUNT(sizes) - 1] + 1;
    float *h = host_alloc(nmax * sizeof(float));
    float *d_in = dev_alloc(nmax * sizeof(float));
    float *d_out = dev_alloc(sizeof(float));
    const size_t scratch_bytes = kernels_reduce_scratch_bytes(nmax);
    void *d_scratch = dev_alloc(scratch_bytes);
    for (size_t si = 0; si < COUNT(sizes); ++si) {
        const size_t n = sizes[si];
        for (size_t ki = 0; ki < COUNT(reduce_names); ++ki) {
            const shipped_kernel *k = kernels_find(reduce_names[ki]);
            for (int offset = 0; offset <= 1; ++offset) {
                if (offset && n < 1000) continue;
                for (size_t i = 0; i < n + 1; ++i) h[i] = rng_float(0.0f, 1.0f);
                CU(cudaMemcpy(d_in, h, (n + 1) * sizeof(float), cudaMemcpyHostToDevice));
                run_reduce(k, d_in + offset, h + offset, n, d_out, d_scratch,
                           kernels_reduce_scratch_bytes(n + 1), offset ? "(input 4 bytes off 16-byte alignment)" : "");
            }
        }
    }
    /* Back to back on one scratch with no clearing between launches. */
    const shipped_kernel *v = kernels_find("reduce_vectorized");
    const size_t n = (1u << 20) + 3;
    double ref = 0.0;
    for (size_t i = 0; i < n; ++i) ref += (double)h[i];
    CU(cudaMemcpy(d_in, h, n * sizeof(float), cudaMemcpyHostToDevice));
    for (int rep = 0; rep < 3; ++rep) {
        poison(d_out, sizeof(float));
        CU(v->reduce(d_in, n, d_out, d_scratch, scratch_bytes, 0));
        float got = 0.0f;
        CU(cudaMemcpy(&got, d_out, sizeof got, cudaMemcpyDeviceToHost));
        expect_close(v->name, "back-to-back launch", &got, &ref, 1, 1e-5);
    }
}

static void test_reduce_bad_args(void **state)
{
    (void)state;
    float *d = dev_alloc(1024 * sizeof(float));
    for (size_t ki = 0; ki < COUNT(reduce_names); ++ki) {
        const shipped_kernel *k = kernels_find(reduce_names[ki]);
        assert_int_equal(k->reduce(d, 0, d, d, 1024, 0), cudaErrorInvalidValue);
    }
    /* Too little scratch is refused, not overrun. */
    const shipped_kernel *seq = kernels_find("reduce_sequential");
    assert_int_equal(seq->reduce(d, 1000, d, d + 512, 4, 0), cudaErrorInvalidValue);
    const shipped_kernel *cub = kernels_find("cub_sum");
    assert_int_equal(cub->reduce(d, 1000, d, d + 512, 0, 0), cudaErrorInvalidValue);
    assert_true(strlen(kernels_library_error()) > 0);
}

/* ---- embedding ------------------------------------------------------------------- */
static void test_embedding(void **state)
{
    (void)state;
    static const int sizes[][3] = {{1, 1, 1}, {31, 33, 7}, {1025, 4100, 1000}, {4096, 1024, 32000}};
    const size_t wcap = (size_t)32000 * 1024, ocap = (size_t)1025 * 4100 + 4;
    float *hW = host_alloc(wcap * sizeof(float)), *hout = host_alloc(ocap * sizeof(float));
    int32_t *hidx = host_alloc(4096 * sizeof(int32_t));
    float *dW = dev_alloc(wcap * sizeof(float)), *dout = dev_alloc(ocap * sizeof(float));
    int32_t *didx = dev_alloc(4096 * sizeof(int32_t));
    for (size_t si = 0; si < COUNT(sizes); ++si) {
        const int T = sizes[si][0], D = sizes[si][1], V = sizes[si][2];
        for (size_t ki = 0; ki < COUNT(embed_names); ++ki) {
            const shipped_kernel *k = kernels_find(embed_names[ki]);
            /* offset 1: output 4 bytes off 16-byte alignment (the scalar path). */
            for (int offset = 0; offset <= 1; ++offset) {
                for (size_t i = 0; i < (size_t)V * D; ++i) hW[i] = rng_float(-1.0f, 1.0f);
                for (int t = 0; t < T; ++t) hidx[t] = (int32_t)(rng_next() % (uint64_t)V);
                CU(cudaMemcpy(dW, hW, (size_t)V * D * sizeof(float), cudaMemcpyHostToDevice));
                CU(cudaMemcpy(didx, hidx, (size_t)T * sizeof(int32_t), cudaMemcpyHostToDevice));
                poison(dout, ocap * sizeof(float));
                cudaError_t e = k->embed(dW, didx, dout + offset, T, D, V, 0);
                if (e != cudaSuccess)
                    fail_msg("%s T=%d D=%d V=%d: %s", k->name, T, D, V, cudaGetErrorString(e));
                CU(cudaDeviceSynchronize());
                CU(cudaMemcpy(hout, dout, ((size_t)T * D + 2) * sizeof(float),
                              cudaMemcpyDeviceToHost));
                for (int t = 0; t < T; ++t)
                    for (int d = 0; d < D; ++d) {
                        const float got = hout[offset + (size_t)t * D + d];
                        const float want = hW[(size_t)hidx[t] * D + d];
                        if (memcmp(&got, &want, sizeof got) != 0)
                            fail_msg("%s T=%d D=%d V=%d offset %d: out[%d,%d] (index %zu): got %.9g, "
                                     "expected %.9g", k->name, T, D, V, offset, t, d,
                                     (size_t)t * D + d, (double)got, (double)want);
                    }
                /* Nothing written past the end. */
                const float after = hout[offset + (size_t)T * D];
                if (isfinite(after))
                    fail_msg("%s T=%d D=%d: wrote past the output (%g)", k->name, T, D, (double)after);
            }
        }
    }
}

static void test_embedding_bad_index(void **state)
{
    (void)state;
    const int T = 8, D = 64, V = 4;
    float *dW = dev_alloc((size_t)V * D * sizeof(float));
    float *dout = dev_alloc((size_t)T * D * sizeof(float));
    int32_t *didx = dev_alloc(T * sizeof(int32_t));
    const int32_t hidx[8] = {0, 1, -1, 3, 4, 1000000, 2, -7};
    float *hout = host_alloc((size_t)T * D * sizeof(float));
    float *hW = host_alloc((size_t)V * D * sizeof(float));
    for (size_t i = 0; i < (size_t)V * D; ++i) hW[i] = 1.0f + (float)(i / D);
    CU(cudaMemcpy(dW, hW, (size_t)V * D * sizeof(float), cudaMemcpyHostToDevice));
    CU(cudaMemcpy(didx, hidx, sizeof hidx, cudaMemcpyHostToDevice));
    for (size_t ki = 0; ki < COUNT(embed_names); ++ki) {
        const shipped_kernel *k = kernels_find(embed_names[ki]);
        poison(dout, (size_t)T * D * sizeof(float));
        CU(k->embed(dW, didx, dout, T, D, V, 0));
        CU(cudaDeviceSynchronize());
        CU(cudaMemcpy(hout, dout, (size_t)T * D * sizeof(float), cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < (size_t)T * D; ++i) {
            const int32_t row = hidx[i / D];
            const float want = row >= 0 && row < V ? hW[(size_t)row * D + i % D] : 0.0f;
            if (hout[i] != want)
                fail_msg("%s: token %zu (index %d): got %g, expected %g", k->name, i / D, row,
                         (double)hout[i], (double)want);
        }
    }
}

/* ---- the basics lab ---------------------------------------------------------- */

/* Every SAXPY launcher (and the managed ones, on managed inputs the CPU
 * wrote) at odd sizes: z = a x + y, and nothing written past n. */
static void test_saxpy(void **state)
{
    (void)state;
    static const size_t sizes[] = {1, 255, 257, 1000003, (1u << 22) + 1};
    const size_t cap = (1u << 22) + 1 + 4;
    float *hx = host_alloc(cap * sizeof(float)), *hy = host_alloc(cap * sizeof(float));
    float *hz = host_alloc(cap * sizeof(float));
    double *ref = host_alloc(cap * sizeof(double));
    float *dx = dev_alloc(cap * sizeof(float)), *dy = dev_alloc(cap * sizeof(float));
    float *dz = dev_alloc(cap * sizeof(float));
    float *scratch = dev_alloc(2 * cap * sizeof(float));
    float *mx = NULL, *my = NULL;
    CU(cudaMallocManaged((void **)&mx, cap * sizeof(float), cudaMemAttachGlobal));
    CU(cudaMallocManaged((void **)&my, cap * sizeof(float), cudaMemAttachGlobal));
    for (size_t si = 0; si < COUNT(sizes); ++si) {
        const size_t n = sizes[si];
        const float a = rng_float(0.5f, 2.0f);
        for (size_t i = 0; i < n; ++i) {
            hx[i] = rng_float(-1.0f, 1.0f);
            hy[i] = rng_float(-1.0f, 1.0f);
            ref[i] = (double)a * (double)hx[i] + (double)hy[i];
        }
        CU(cudaMemcpy(dx, hx, n * sizeof(float), cudaMemcpyHostToDevice));
        CU(cudaMemcpy(dy, hy, n * sizeof(float), cudaMemcpyHostToDevice));
        const char *const *groups[2] = {saxpy_names, managed_names};
        const size_t counts[2] = {COUNT(saxpy_names), COUNT(managed_names)};
        for (int g = 0; g < 2; ++g)
            for (size_t ki = 0; ki < counts[g]; ++ki) {
                const shipped_kernel *k = kernels_find(groups[g][ki]);
                const float *x = dx, *y = dy;
                if (g == 1) {   /* managed: the CPU writes the inputs first */
                    CU(cudaDeviceSynchronize());
                    memcpy(mx, hx, n * sizeof(float));
                    memcpy(my, hy, n * sizeof(float));
                    x = mx;
                    y = my;
                }
                poison(dz, cap * sizeof(float));
                CU(k->saxpy(n, a, x, y, dz, scratch, 2 * cap * sizeof(float), 0));
                CU(cudaDeviceSynchronize());
                CU(cudaMemcpy(hz, dz, (n + 1) * sizeof(float), cudaMemcpyDeviceToHost));
                char size[32];
                snprintf(size, sizeof size, "n=%zu", n);
                expect_close(k->name, size, hz, ref, n, 1e-6);
                if (isfinite(hz[n]))
                    fail_msg("%s n=%zu: wrote past the output", k->name, n);
            }
    }
    cudaFree(mx);
    cudaFree(my);
}

/* Both histogram launchers at odd sizes and odd alignments: exact counts
 * of the first n bytes, whatever the bins held before. */
static void test_histogram(void **state)
{
    (void)state;
    static const size_t sizes[] = {1, 3, 1000003, (1u << 24) + 5};
    const size_t cap = (1u << 24) + 16;
    unsigned char *hdata = host_alloc(cap);
    unsigned int hbins[256], want[256];
    unsigned char *ddata = dev_alloc(cap);
    unsigned int *dbins = dev_alloc(256 * sizeof(unsigned int));
    for (size_t i = 0; i < cap; ++i)
        hdata[i] = (unsigned char)(i % 7 == 0 ? 200 : rng_next() >> 56);   /* a tall bin */
    CU(cudaMemcpy(ddata, hdata, cap, cudaMemcpyHostToDevice));
    for (size_t si = 0; si < COUNT(sizes); ++si)
        for (size_t off = 0; off <= 1; ++off) {
            const size_t n = sizes[si];
            memset(want, 0, sizeof want);
            for (size_t i = 0; i < n; ++i) want[hdata[off + i]]++;
            for (size_t ki = 0; ki < COUNT(hist_names); ++ki) {
                const shipped_kernel *k = kernels_find(hist_names[ki]);
                poison(dbins, sizeof hbins);
                CU(k->hist(ddata + off, n, dbins, 0));
                CU(cudaDeviceSynchronize());
                CU(cudaMemcpy(hbins, dbins, sizeof hbins, cudaMemcpyDeviceToHost));
                for (int b = 0; b < 256; ++b)
                    if (hbins[b] != want[b])
                        fail_msg("%s n=%zu offset %zu: bin %d holds %u, expected %u", k->name, n,
                                 off, b, hbins[b], want[b]);
            }
        }
}

int main(void)
{
    const char *env = getenv("CUDALAB_TEST_SEED");
    const uint64_t seed = env ? strtoull(env, NULL, 0) : (uint64_t)time(NULL);
    rng_state = seed ? seed : 1;
    printf("seed: %llu (set CUDALAB_TEST_SEED to repeat)\n", (unsigned long long)seed);

    const struct CMUnitTest table_tests[] = {cmocka_unit_test(test_tables)};
    const int failed = cmocka_run_group_tests_name("kernel tables", table_tests, NULL, NULL);
    if (failed) return 1;

    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        printf("SKIP: no CUDA device found: %s\n",
               e != cudaSuccess ? cudaGetErrorString(e) : "the device count is 0");
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_reduce, free_all),
        cmocka_unit_test_teardown(test_reduce_bad_args, free_all),
        cmocka_unit_test_teardown(test_embedding, free_all),
        cmocka_unit_test_teardown(test_embedding_bad_index, free_all),
        cmocka_unit_test_teardown(test_saxpy, free_all),
        cmocka_unit_test_teardown(test_histogram, free_all),
    };
    const int rc = cmocka_run_group_tests_name("kernels on the device", tests, NULL, NULL);
    kernels_shutdown();
    return rc ? 1 : 0;
}
