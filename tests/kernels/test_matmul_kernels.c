/* test_matmul_kernels.c - every matmul launcher (the rungs, the cuBLAS rows
 * at each precision, the tuning variants) against double-precision
 * references on fresh seeded inputs, with C poisoned (NaN) before each
 * run: at awkward sizes (1x1x1, 1000x999x1001, ...), at 16-byte-aligned
 * sizes that are not multiples of any tile, and at the lab's sizes.
 *
 * Each rung is compared with the reference of what it multiplies:
 *   FP32 rows   the inputs as given, relative tolerance 1e-4;
 *   TF32 rungs  the inputs rounded to TF32 as the rungs round them (to
 *               nearest, ties away from zero), 1e-3: only the FP32 sums
 *               differ;
 *   BF16 rows   the BF16 copies (rounded to nearest even, as
 *               kernels_f32_to_bf16 makes them), 1e-3;
 *   cuBLAS TF32 the inputs as given, 5e-3 (its rounding is its own).
 * The error of every tensor-core row against the inputs as given is
 * printed too: what TF32 and BF16 cost at that size.
 *
 * A rung outside its compute-capability range (gemm_wgmma runs on 9.0
 * alone) must refuse with cudaErrorNotSupported; the test says it skipped
 * it and why.
 *
 * Without a device only the tables and the host-side rounding are checked
 * (exit 77).  The seed comes from CUDALAB_TEST_SEED when set, else from the
 * clock; it is printed. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>
#include <cuda_runtime_api.h>

#include "kernels.h"
#include "ktune.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define SAMPLES 3000
#define FULL_CHECK_MACS ((double)(1 << 27))

static uint64_t rng_state;

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

/* ---- rounding on the host ------------------------------------------------------ */
static uint32_t bits_of(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float float_of(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* TF32 as cvt.rna makes it: 10 fraction bits, to nearest, ties away from
 * zero (finite inputs). */
static float round_tf32(float x)
{
    return float_of((bits_of(x) + 0x1000u) & 0xffffe000u);
}

/* BF16 bits, to nearest, ties to even (finite inputs). */
static uint16_t to_bf16(float x)
{
    const uint32_t u = bits_of(x);
    return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

static float from_bf16(uint16_t h)
{
    return float_of((uint32_t)h << 16);
}

static void test_host_rounding(void **state)
{
    (void)state;
    /* 1 + 2^-11 is a tie for TF32: away from zero gives 1 + 2^-10. */
    assert_true(round_tf32(1.0f + 0x1p-11f) == 1.0f + 0x1p-10f);
    assert_true(round_tf32(-(1.0f + 0x1p-11f)) == -(1.0f + 0x1p-10f));
    assert_true(round_tf32(1.0f + 0x1p-12f) == 1.0f);
    assert_true(round_tf32(3.0f) == 3.0f);
    /* BF16 ties to even: 1 + 2^-8 goes down to 1, 1 + 3 * 2^-8 up. */
    assert_true(from_bf16(to_bf16(1.0f + 0x1p-8f)) == 1.0f);
    assert_true(from_bf16(to_bf16(1.0f + 3 * 0x1p-8f)) == 1.0f + 0x1p-6f);
    assert_true(from_bf16(to_bf16(-2.5f)) == -2.5f);
    assert_int_equal(to_bf16(1.0f), 0x3f80);
}

/* ---- the tables ------------------------------------------------------------------ */
static const char *const rung_names[] = {
    "sgemm_naive",  "sgemm_coalesced", "sgemm_smem_tiled", "sgemm_blocktile_1d",
    "sgemm_blocktile_2d", "sgemm_vectorized", "sgemm_warptile", "gemm_wmma_tf32",
    "gemm_wmma_bf16", "gemm_wmma_async", "gemm_wgmma", "gemm_wgmma_persist",
    "gemm_wgmma_cluster", "gemm_wgmma_tmastore", "cublas_sgemm", "cublas_tf32", "cublas_bf16"};

typedef enum { P_FP32, P_TF32, P_BF16 } prec;

static prec prec_of(const shipped_kernel *k)
{
    if (!k->precision) return P_FP32;
    if (strcmp(k->precision, "tf32") == 0) return P_TF32;
    if (strcmp(k->precision, "bf16") == 0) return P_BF16;
    fail_msg("%s: unknown precision '%s'", k->name, k->precision);
    return P_FP32;
}

static void check_entry(const shipped_kernel *k)
{
    assert_string_equal(k->problem, "sgemm");
    assert_int_equal((k->sgemm != NULL) + (k->gemm_bf16 != NULL), 1);
    assert_null(k->reduce);
    assert_null(k->embed);
    const prec p = prec_of(k);
    /* BF16 operands exactly when the arithmetic is BF16. */
    assert_int_equal(k->gemm_bf16 != NULL, p == P_BF16);
    if (k->max_cc) {
        /* Built for one architecture (sm_90a): that one only, with a reason. */
        assert_int_equal(k->min_cc, 90);
        assert_int_equal(k->max_cc, 90);
        assert_non_null(k->cc_needs);
        assert_int_equal(p, P_BF16);
    } else {
        assert_int_equal(k->min_cc, p == P_FP32 ? 0 : 80);
        assert_null(k->cc_needs);
    }
}

static void test_tables(void **state)
{
    (void)state;
    int libs[3] = {0, 0, 0};
    for (size_t i = 0; i < COUNT(rung_names); ++i) {
        const shipped_kernel *k = kernels_find(rung_names[i]);
        if (!k) fail_msg("kernels_find(\"%s\") found nothing", rung_names[i]);
        check_entry(k);
        if (k->library) libs[prec_of(k)]++;
    }
    /* One library row a precision. */
    assert_int_equal(libs[P_FP32], 1);
    assert_int_equal(libs[P_TF32], 1);
    assert_int_equal(libs[P_BF16], 1);
    size_t n = 0, nsgemm = 0;
    const shipped_kernel *tv = kernels_tune_variants(&n);
    for (size_t i = 0; i < n; ++i) {
        if (strcmp(tv[i].problem, "sgemm") != 0) continue;
        check_entry(&tv[i]);
        assert_int_equal(tv[i].library, 0);
        nsgemm++;
    }
    assert_true(nsgemm >= 20);
}

/* ---- one size ---------------------------------------------------------------------- */
typedef struct gemm_case {
    int M, N, K;
    float *hA, *hB, *hC;            /* inputs, output read back */
    float *tA, *tB, *bA, *bB;        /* the inputs rounded to TF32 and to BF16 */
    uint16_t *hA16, *hB16;
    float *dA, *dB, *dC;
    uint16_t *dA16, *dB16;
    int64_t *idx;                    /* compared output elements */
    size_t nidx;
    double *ref, *ref_tf32, *ref_bf16;
} gemm_case;

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    assert_non_null(p);
    return p;
}

static double dot(const float *A, const float *B, int N, int K, int64_t at)
{
    const int64_t i = at / N, j = at % N;
    double s = 0.0;
    for (int p = 0; p < K; ++p) s += (double)A[i * K + p] * (double)B[(int64_t)p * N + j];
    return s;
}

/* Every element when the product is small, else corners, edges and random
 * elements. */
static void pick(gemm_case *c)
{
    const int64_t M = c->M, N = c->N, cells = M * N;
    const bool full = (double)cells * c->K <= FULL_CHECK_MACS;
    c->nidx = full ? (size_t)cells : SAMPLES;
    c->idx = xmalloc(c->nidx * sizeof *c->idx);
    if (full) {
        for (int64_t e = 0; e < cells; ++e) c->idx[e] = e;
        return;
    }
    size_t k = 0;
    const int64_t corner[4] = {0, N - 1, (M - 1) * N, M * N - 1};
    for (int q = 0; q < 4; ++q) c->idx[k++] = corner[q];
    for (int t = 0; t < 100; ++t) {
        c->idx[k++] = (M - 1) * t / 99 * N + (N - 1);
        c->idx[k++] = (M - 1) * N + (N - 1) * t / 99;
    }
    while (k < c->nidx) c->idx[k++] = (int64_t)(rng_next() % (uint64_t)cells);
}

static void case_make(gemm_case *c, int M, int N, int K)
{
    memset(c, 0, sizeof *c);
    c->M = M;
    c->N = N;
    c->K = K;
    const size_t na = (size_t)M * K, nb = (size_t)K * N, nc = (size_t)M * N;
    c->hA = xmalloc(na * 4);
    c->hB = xmalloc(nb * 4);
    c->hC = xmalloc(nc * 4);
    c->tA = xmalloc(na * 4);
    c->tB = xmalloc(nb * 4);
    c->bA = xmalloc(na * 4);
    c->bB = xmalloc(nb * 4);
    c->hA16 = xmalloc(na * 2);
    c->hB16 = xmalloc(nb * 2);
    for (size_t i = 0; i < na; ++i) {
        c->hA[i] = rng_float(-1.0f, 1.0f);
        c->tA[i] = round_tf32(c->hA[i]);
        c->hA16[i] = to_bf16(c->hA[i]);
        c->bA[i] = from_bf16(c->hA16[i]);
    }
    for (size_t i = 0; i < nb; ++i) {
        c->hB[i] = rng_float(-1.0f, 1.0f);
        c->tB[i] = round_tf32(c->hB[i]);
        c->hB16[i] = to_bf16(c->hB[i]);
        c->bB[i] = from_bf16(c->hB16[i]);
    }
    pick(c);
    c->ref = xmalloc(c->nidx * sizeof(double));
    c->ref_tf32 = xmalloc(c->nidx * sizeof(double));
    c->ref_bf16 = xmalloc(c->nidx * sizeof(double));
    for (size_t s = 0; s < c->nidx; ++s) {
        c->ref[s] = dot(c->hA, c->hB, N, K, c->idx[s]);
        c->ref_tf32[s] = dot(c->tA, c->tB, N, K, c->idx[s]);
        c->ref_bf16[s] = dot(c->bA, c->bB, N, K, c->idx[s]);
    }
    CU(cudaMalloc((void **)&c->dA, na * 4));
    CU(cudaMalloc((void **)&c->dB, nb * 4));
    CU(cudaMalloc((void **)&c->dC, nc * 4));
    CU(cudaMalloc((void **)&c->dA16, na * 2));
    CU(cudaMalloc((void **)&c->dB16, nb * 2));
    CU(cudaMemcpy(c->dA, c->hA, na * 4, cudaMemcpyHostToDevice));
    CU(cudaMemcpy(c->dB, c->hB, nb * 4, cudaMemcpyHostToDevice));
    /* The device's BF16 copies must be the host's, bit for bit. */
    CU(kernels_f32_to_bf16(c->dA, c->dA16, na, 0));
    CU(kernels_f32_to_bf16(c->dB, c->dB16, nb, 0));
    uint16_t *back = xmalloc(na > nb ? na * 2 : nb * 2);
    CU(cudaMemcpy(back, c->dA16, na * 2, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < na; ++i)
        if (back[i] != c->hA16[i])
            fail_msg("kernels_f32_to_bf16: A[%zu] = %.9g became 0x%04x, expected 0x%04x", i,
                     (double)c->hA[i], back[i], c->hA16[i]);
    CU(cudaMemcpy(back, c->dB16, nb * 2, cudaMemcpyDeviceToHost));
    assert_memory_equal(back, c->hB16, nb * 2);
    free(back);
}

static void case_free(gemm_case *c)
{
    cudaFree(c->dA);
    cudaFree(c->dB);
    cudaFree(c->dC);
    cudaFree(c->dA16);
    cudaFree(c->dB16);
    free(c->hA);
    free(c->hB);
    free(c->hC);
    free(c->tA);
    free(c->tB);
    free(c->bA);
    free(c->bB);
    free(c->hA16);
    free(c->hB16);
    free(c->idx);
    free(c->ref);
    free(c->ref_tf32);
    free(c->ref_bf16);
    memset(c, 0, sizeof *c);
}

/* Relative norm error of c->hC against ref over the compared elements;
 * *worst gets the element furthest off relative to max(|ref|, rms). */
static double rel_error(const gemm_case *c, const double *ref, size_t *worst, double *worst_rel)
{
    double r2 = 0.0, d2 = 0.0;
    for (size_t s = 0; s < c->nidx; ++s) r2 += ref[s] * ref[s];
    const double rms = sqrt(r2 / (double)c->nidx);
    *worst = 0;
    *worst_rel = -1.0;
    for (size_t s = 0; s < c->nidx; ++s) {
        const double d = (double)c->hC[c->idx[s]] - ref[s];
        d2 += d * d;
        const double scale = fabs(ref[s]) > rms ? fabs(ref[s]) : rms;
        const double rel = scale > 0.0 ? fabs(d) / scale : fabs(d);
        if (rel > *worst_rel) {
            *worst_rel = rel;
            *worst = s;
        }
    }
    return r2 > 0.0 ? sqrt(d2 / r2) : sqrt(d2);
}

static int device_cc(void)
{
    int dev = 0, major = 0, minor = 0;
    CU(cudaGetDevice(&dev));
    CU(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
    CU(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
    return major * 10 + minor;
}

/* Says once per kernel that it was skipped on this device, and why. */
static void say_skipped(const shipped_kernel *k, int cc)
{
    static const shipped_kernel *said[8];
    static size_t nsaid;
    for (size_t i = 0; i < nsaid; ++i)
        if (said[i] == k) return;
    if (nsaid < COUNT(said)) said[nsaid++] = k;
    printf("  SKIP %s: needs %s%s, this GPU is %d.%d; it refused with cudaErrorNotSupported\n",
           k->name, k->cc_needs ? k->cc_needs : "compute capability ",
           k->cc_needs ? "" : (k->min_cc >= 80 ? ">= 8.0" : "?"), cc / 10, cc % 10);
}

/* Runs k on c and checks it; quiet unless verbose. */
static void run_one(const shipped_kernel *k, gemm_case *c, bool verbose)
{
    char size[64];
    snprintf(size, sizeof size, "%dx%dx%d", c->M, c->N, c->K);
    const size_t nc = (size_t)c->M * c->N;
    CU(cudaMemset(c->dC, 0xff, nc * 4));
    cudaError_t e = k->gemm_bf16 ? k->gemm_bf16(c->M, c->N, c->K, c->dA16, c->dB16, c->dC, 0)
                                 : k->sgemm(c->M, c->N, c->K, c->dA, c->dB, c->dC, 0);
    if (!kernels_runs_on(k, device_cc())) {
        if (e != cudaErrorNotSupported)
            fail_msg("%s %s: on compute capability %d it should refuse (%s)", k->name, size,
                     device_cc(), cudaGetErrorString(e));
        say_skipped(k, device_cc());
        return;
    }
    if (e != cudaSuccess)
        fail_msg("%s %s: %s (%s)", k->name, size, cudaGetErrorString(e), kernels_library_error());
    CU(cudaDeviceSynchronize());
    CU(cudaMemcpy(c->hC, c->dC, nc * 4, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < nc; ++i)
        if (!isfinite(c->hC[i]))
            fail_msg("%s %s: C[%zu] (row %zu, column %zu) not written or not finite: %g", k->name,
                     size, i, i / (size_t)c->N, i % (size_t)c->N, (double)c->hC[i]);
    const prec p = prec_of(k);
    const double *ref = p == P_BF16 ? c->ref_bf16 : p == P_TF32 && !k->library ? c->ref_tf32 : c->ref;
    const double tol = p == P_FP32 ? 1e-4 : p == P_TF32 && k->library ? 5e-3 : 1e-3;
    size_t w = 0;
    double wrel = 0.0;
    const double err = rel_error(c, ref, &w, &wrel);
    if (!(err <= tol) || !(wrel <= tol * 4))
        fail_msg("%s %s: relative error %.3e (limit %.0e); worst C[%lld]: got %.9g, expected %.9g "
                 "(%.2e of the scale)",
                 k->name, size, err, tol, (long long)c->idx[w], (double)c->hC[c->idx[w]], ref[w],
                 wrel);
    if (verbose && p != P_FP32) {
        size_t w2 = 0;
        double r2 = 0.0;
        printf("  %-48s %-16s error %.2e against its rounded inputs, %.2e against the exact ones\n",
               k->name, size, err, rel_error(c, c->ref, &w2, &r2));
    }
}

static const int sizes_awkward[][3] = {{1, 1, 1},         {17, 33, 5},      {31, 17, 9},
                                       {127, 129, 65},    {257, 260, 132},  {1000, 999, 1001},
                                       {1025, 513, 257}};
static const int sizes_aligned[][3] = {{512, 512, 512},  {520, 264, 136}, {136, 1032, 2056},
                                       {17, 40, 8},      {130, 264, 72},  {1000, 1000, 1000},
                                       {2056, 1800, 264}, {256, 320, 68},
                                       /* enough 128x256 tiles for the persistent Hopper
                                        * rungs: several a block, partial tiles at both
                                        * edges, an odd number of tile rows (a cluster's
                                        * second block past the bottom) */
                                       {4100, 4104, 264}, {1800, 8200, 72}};
static const int sizes_lab[][3] = {{1024, 1024, 1024}, {2048, 2048, 2048}, {4096, 4096, 4096}};

/* The shipped launcher called name; a missing one fails the test, named. */
static const shipped_kernel *find_rung(const char *name)
{
    const shipped_kernel *k = kernels_find(name);
    if (!k)
        fail_msg("no shipped kernel is called '%s' (kernels_find): the matmul table lost a rung",
                 name);
    return k;
}

static void run_rungs(const int (*sizes)[3], size_t n, bool verbose)
{
    for (size_t si = 0; si < n; ++si) {
        gemm_case c;
        case_make(&c, sizes[si][0], sizes[si][1], sizes[si][2]);
        for (size_t ki = 0; ki < COUNT(rung_names); ++ki) run_one(find_rung(rung_names[ki]), &c, verbose);
        case_free(&c);
    }
}

static void test_rungs_awkward(void **state)
{
    (void)state;
    run_rungs(sizes_awkward, COUNT(sizes_awkward), true);
}

static void test_rungs_aligned(void **state)
{
    (void)state;
    run_rungs(sizes_aligned, COUNT(sizes_aligned), false);
}

static void test_rungs_lab_sizes(void **state)
{
    (void)state;
    run_rungs(sizes_lab, COUNT(sizes_lab), true);
}

/* One Hopper rung on A, then B, one BF16 element past a 16-byte boundary. */
static void unaligned_case(const shipped_kernel *k)
{
    gemm_case c;
    case_make(&c, 520, 264, 136);
    const size_t na = (size_t)c.M * c.K, nb = (size_t)c.K * c.N;
    uint16_t *a = NULL, *b = NULL;
    CU(cudaMalloc((void **)&a, na * 2 + 16));
    CU(cudaMalloc((void **)&b, nb * 2 + 16));
    CU(cudaMemcpy(a + 1, c.hA16, na * 2, cudaMemcpyHostToDevice));
    CU(cudaMemcpy(b + 3, c.hB16, nb * 2, cudaMemcpyHostToDevice));
    uint16_t *keep_a = c.dA16, *keep_b = c.dB16;
    c.dA16 = a + 1;
    c.dB16 = keep_b;
    run_one(k, &c, false);
    c.dA16 = keep_a;
    c.dB16 = b + 3;
    run_one(k, &c, false);
    c.dB16 = keep_b;
    CU(cudaFree(a));
    CU(cudaFree(b));
    case_free(&c);
}

/* The Hopper rungs with A and B that do not start on 16-byte boundaries
 * (TMA cannot read them): each must take its fallback and still be right. */
static void test_wgmma_unaligned(void **state)
{
    (void)state;
    static const char *const hopper[] = {"gemm_wgmma", "gemm_wgmma_persist", "gemm_wgmma_cluster",
                                         "gemm_wgmma_tmastore"};
    for (size_t h = 0; h < COUNT(hopper); ++h) {
        const shipped_kernel *k = find_rung(hopper[h]);
        unaligned_case(k);
    }
}


/* Every tuning variant at aligned sizes (their own kernels; the last two
 * whole tiles with an odd and an even number of K slices) and one odd size
 * (the fallback). */
static void test_tune_variants(void **state)
{
    (void)state;
    /* The last two are big enough for the Hopper variants' persistent grid:
     * one wave of 128x256 tiles, then more than one, each with partial tiles. */
    static const int sizes[][3] = {{520, 264, 136}, {1024, 1024, 1024}, {255, 257, 131},
                                   {256, 512, 40}, {384, 256, 48}, {2304, 1288, 72},
                                   {4104, 1544, 136}};
    size_t n = 0, sgemm = 0;
    const shipped_kernel *tv = kernels_tune_variants(&n);
    for (size_t i = 0; i < n; ++i)
        sgemm += strcmp(tv[i].problem, "sgemm") == 0;
    if (sgemm == 0)
        fail_msg("kernels_tune_variants gave %zu variants, none of them sgemm: nothing to test", n);
    print_message("%zu sgemm tuning variants\n", sgemm);
    for (size_t si = 0; si < COUNT(sizes); ++si) {
        gemm_case c;
        case_make(&c, sizes[si][0], sizes[si][1], sizes[si][2]);
        for (size_t i = 0; i < n; ++i)
            if (strcmp(tv[i].problem, "sgemm") == 0) run_one(&tv[i], &c, false);
        case_free(&c);
    }
}

static void test_bad_args(void **state)
{
    (void)state;
    float *d = NULL;
    CU(cudaMalloc((void **)&d, 4096));
    for (size_t ki = 0; ki < COUNT(rung_names); ++ki) {
        const shipped_kernel *k = kernels_find(rung_names[ki]);
        const cudaError_t e = k->gemm_bf16 ? k->gemm_bf16(0, 4, 4, (uint16_t *)d, (uint16_t *)d, d, 0)
                                           : k->sgemm(0, 4, 4, d, d, d, 0);
        assert_int_equal(e, cudaErrorInvalidValue);
    }
    assert_int_equal(kernels_f32_to_bf16(NULL, (uint16_t *)d, 4, 0), cudaErrorInvalidValue);
    CU(cudaFree(d));
}

/* What the tuning tool reports for the shipped rungs. */
static void test_resources(void **state)
{
    (void)state;
    kernel_resources r;
    assert_true(kernels_tune_resources("sgemm_warptile", 4096, 4096, &r));
    assert_true(r.registers > 0 && r.threads > 0 && r.blocks_per_sm >= 1);
    assert_int_equal(r.local_bytes, 0);
    assert_false(kernels_tune_resources("sgemm_naive", 4096, 4096, &r));
    if (device_cc() >= 80) {
        assert_true(kernels_tune_resources("gemm_wmma_async", 4096, 4096, &r));
        assert_true(r.dynamic_smem > 48 * 1024 && r.blocks_per_sm >= 1);
    }
    if (device_cc() == 90) {
        assert_true(kernels_tune_resources("gemm_wgmma", 4096, 4096, &r));
        assert_true(r.threads == 384 && r.dynamic_smem > 128 * 1024 && r.blocks_per_sm == 1);
        assert_int_equal(r.local_bytes, 0);
    } else {
        assert_false(kernels_tune_resources("gemm_wgmma", 4096, 4096, &r));
    }
    /* The configurations the shipped launchers run are tuning variants. */
    static const char *const rungs[] = {"sgemm_warptile", "gemm_wmma_async"};
    size_t n = 0;
    const shipped_kernel *tv = kernels_tune_variants(&n);
    for (size_t i = 0; i < COUNT(rungs); ++i)
        for (int size = 1024; size <= 4096; size *= 2) {
            const char *as = kernels_tune_shipped_as(rungs[i], size, size);
            assert_non_null(as);
            bool found = false;
            for (size_t j = 0; j < n; ++j) found |= strcmp(tv[j].name, as) == 0;
            if (!found) fail_msg("%s at %d runs %s, which is no tuning variant", rungs[i], size, as);
        }
    assert_null(kernels_tune_shipped_as("sgemm_naive", 4096, 4096));
}

int main(void)
{
    const char *env = getenv("CUDALAB_TEST_SEED");
    const uint64_t seed = env ? strtoull(env, NULL, 0) : (uint64_t)time(NULL);
    rng_state = seed ? seed : 1;
    printf("seed: %llu (set CUDALAB_TEST_SEED to repeat)\n", (unsigned long long)seed);

    const struct CMUnitTest host_tests[] = {cmocka_unit_test(test_host_rounding),
                                            cmocka_unit_test(test_tables)};
    if (cmocka_run_group_tests_name("matmul tables and rounding", host_tests, NULL, NULL)) return 1;

    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        printf("SKIP: no CUDA device found: %s\n",
               e != cudaSuccess ? cudaGetErrorString(e) : "the device count is 0");
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rungs_awkward),  cmocka_unit_test(test_rungs_aligned),
        cmocka_unit_test(test_rungs_lab_sizes), cmocka_unit_test(test_tune_variants),
        cmocka_unit_test(test_bad_args),       cmocka_unit_test(test_resources),
        cmocka_unit_test(test_wgmma_unaligned),
    };
    const int rc = cmocka_run_group_tests_name("matmul kernels on the device", tests, NULL, NULL);
    kernels_shutdown();
    return rc ? 1 : 0;
}
