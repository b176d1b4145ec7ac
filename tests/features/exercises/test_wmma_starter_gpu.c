/* The matmul lab's tensor-core starter (labs/matmul/wmma_starter.cu) on a
 * device, before the lab runs it as an exercise: compiled with NVRTC for
 * the device, loaded like a learner's kernel and launched as its launcher
 * (wmma_starter.lua) does, on BF16 copies of fresh inputs, at awkward
 * sizes and at one lab-like size.  Compared with the double-precision
 * product of the BF16 inputs (relative 1e-3: only the FP32 sums differ)
 * and of the FP32 inputs (3e-2, the tolerance the exercise states), with
 * C poisoned before each run.  Exits 77 without a device, and skips on
 * GPUs older than compute capability 8.0 (no BF16 tensor cores). */
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

#include <cuda_runtime_api.h>

#include "core/paths.h"
#include "core/rng.h"
#include "gpu/nvrtc.h"
#include "kernels.h"
#include "support.h"

static char g_arch[16];

static void ok(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) fail_msg("%s: %s", what, cudaGetErrorString(e));
}

static float bf16_value(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    u = ((u + 0x7fffu + ((u >> 16) & 1u)) >> 16) << 16;
    float r;
    memcpy(&r, &u, sizeof r);
    return r;
}

/* Relative norm error of got against the product of A and B. */
static double error_against(const float *got, const float *A, const float *B, int M, int N, int K)
{
    double d2 = 0.0, r2 = 0.0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double s = 0.0;
            for (int k = 0; k < K; k++)
                s += (double)A[(size_t)i * K + k] * (double)B[(size_t)k * N + j];
            const double d = (double)got[(size_t)i * N + j] - s;
            d2 += d * d;
            r2 += s * s;
        }
    return r2 > 0.0 ? sqrt(d2 / r2) : sqrt(d2);
}

static void test_starter(void **state)
{
    (void)state;
    char path[CL_PATH_MAX];
    ts_home_path(path, sizeof path, "labs/matmul/wmma_starter.cu");
    nvrtc_output out;
    cl_err e = {{0}};
    nvrtc_opts o = {.arch = g_arch, .no_cache = true};
    if (!nvrtc_compile_opts(path, &o, &out, &e)) fail_msg("compiling %s: %s", path, e.msg);
    cudaLibrary_t lib;
    cudaKernel_t kern;
    ok(cudaLibraryLoadData(&lib, out.cubin, NULL, NULL, 0, NULL, NULL, 0), "cudaLibraryLoadData");
    ok(cudaLibraryGetKernel(&kern, lib, "gemm_bf16"), "cudaLibraryGetKernel");

    static const int sizes[][3] = {{1, 1, 1}, {31, 17, 9}, {100, 60, 1001}, {256, 256, 256}, {333, 515, 200}};
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        int M = sizes[si][0], N = sizes[si][1], K = sizes[si][2];
        size_t na = (size_t)M * K, nb = (size_t)K * N, nc = (size_t)M * N;
        float *hA = malloc(na * 4), *hB = malloc(nb * 4), *rA = malloc(na * 4),
              *rB = malloc(nb * 4), *hC = malloc(nc * 4);
        assert_true(hA && hB && rA && rB && hC);
        rng_fill_uniform(hA, na, 11 + si, -1.0f, 1.0f);
        rng_fill_uniform(hB, nb, 23 + si, -1.0f, 1.0f);
        for (size_t i = 0; i < na; i++) rA[i] = bf16_value(hA[i]);
        for (size_t i = 0; i < nb; i++) rB[i] = bf16_value(hB[i]);
        float *dA, *dB, *dC;
        uint16_t *dA16, *dB16;
        ok(cudaMalloc((void **)&dA, na * 4), "cudaMalloc");
        ok(cudaMalloc((void **)&dB, nb * 4), "cudaMalloc");
        ok(cudaMalloc((void **)&dC, nc * 4), "cudaMalloc");
        ok(cudaMalloc((void **)&dA16, na * 2), "cudaMalloc");
        ok(cudaMalloc((void **)&dB16, nb * 2), "cudaMalloc");
        ok(cudaMemcpy(dA, hA, na * 4, cudaMemcpyHostToDevice), "upload A");
        ok(cudaMemcpy(dB, hB, nb * 4, cudaMemcpyHostToDevice), "upload B");
        ok(kernels_f32_to_bf16(dA, dA16, na, 0), "A to BF16");
        ok(kernels_f32_to_bf16(dB, dB16, nb, 0), "B to BF16");
        ok(cudaMemset(dC, 0xff, nc * 4), "poison C");
        /* As wmma_starter.lua: one warp a 16x16 tile, x along the columns. */
        dim3 grid = {(unsigned)(N + 15) / 16, (unsigned)(M + 15) / 16, 1}, block = {32, 1, 1};
        void *params[] = {&M, &N, &K, &dA16, &dB16, &dC};
        ok(cudaLaunchKernel((const void *)kern, grid, block, params, 0, 0), "launch");
        ok(cudaDeviceSynchronize(), "run");
        ok(cudaMemcpy(hC, dC, nc * 4, cudaMemcpyDeviceToHost), "download C");
        for (size_t i = 0; i < nc; i++)
            if (!isfinite(hC[i])) fail_msg("%dx%dx%d: C[%zu] not written", M, N, K, i);
        const double rounded = error_against(hC, rA, rB, M, N, K);
        const double exact = error_against(hC, hA, hB, M, N, K);
        print_message("%dx%dx%d: error %.2e against the BF16 inputs, %.2e against the FP32 ones\n",
                      M, N, K, rounded, exact);
        assert_true(rounded <= 1e-3);
        assert_true(exact <= 3e-2);
        cudaFree(dA);
        cudaFree(dB);
        cudaFree(dC);
        cudaFree(dA16);
        cudaFree(dB16);
        free(hA);
        free(hB);
        free(rA);
        free(rB);
        free(hC);
    }
    ok(cudaLibraryUnload(lib), "cudaLibraryUnload");
    nvrtc_output_free(&out);
}

int main(void)
{
    int count = 0, dev = 0, major = 0, minor = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        printf("SKIP: no CUDA device found: %s\n",
               e != cudaSuccess ? cudaGetErrorString(e) : "the device count is 0");
        return 77;
    }
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) != cudaSuccess)
        return 1;
    if (major < 8) {
        printf("SKIP: compute capability %d.%d has no BF16 tensor cores\n", major, minor);
        return 77;
    }
    snprintf(g_arch, sizeof g_arch, "sm_%d%d", major, minor);
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_starter)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
