#include "cpu/sgemm.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "cpu/cpuinfo.h"
#include "cpu/parallel.h"

/* Blocking after Goto and van de Geijn: a KC x NC panel of B and an MC x KC
 * block of A are packed into contiguous slivers (NR columns, MR rows, zero
 * padded), and a register-blocked micro-kernel computes an MR x NR tile of C
 * from one A sliver and one B sliver. */

#define GEMM_MR_MAX 12
#define GEMM_NR_MAX 32
#define GEMM_ALIGN 64
/* Fewer flops than this per thread do not pay for the thread. */
#define GEMM_MIN_FLOPS_PER_THREAD 4.0e6

/* acc = A sliver x B sliver over kc; C tile = acc (or C += acc). */
typedef void (*gemm_micro_fn)(int kc, const float *a, const float *b, float *c, int64_t ldc,
                              bool accumulate);

typedef struct gemm_impl {
    int mr, nr;              /* micro-tile */
    int mc, kc, nc;          /* cache blocks; mc a multiple of mr, nc of nr */
    gemm_micro_fn micro;
} gemm_impl;

static void micro_scalar(int kc, const float *a, const float *b, float *c, int64_t ldc,
                         bool accumulate)
{
    float acc[4][4] = {{0}};
    for (int p = 0; p < kc; p++) {
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++)
                acc[i][j] += a[i] * b[j];
        a += 4;
        b += 4;
    }
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            c[i * ldc + j] = accumulate ? c[i * ldc + j] + acc[i][j] : acc[i][j];
}

#if defined(__x86_64__)

#define SSE_ROW(r)                                                         \
    do {                                                                   \
        __m128 ar = _mm_set1_ps(a[r]);                                     \
        c##r##_0 = _mm_add_ps(c##r##_0, _mm_mul_ps(ar, b0));               \
        c##r##_1 = _mm_add_ps(c##r##_1, _mm_mul_ps(ar, b1));               \
    } while (0)
#define SSE_STORE(r)                                                       \
    do {                                                                   \
        float *cr = c + (r) * ldc;                                         \
        if (accumulate) {                                                  \
            c##r##_0 = _mm_add_ps(c##r##_0, _mm_loadu_ps(cr));             \
            c##r##_1 = _mm_add_ps(c##r##_1, _mm_loadu_ps(cr + 4));         \
        }                                                                  \
        _mm_storeu_ps(cr, c##r##_0);                                       \
        _mm_storeu_ps(cr + 4, c##r##_1);                                   \
    } while (0)

static void micro_sse2(int kc, const float *a, const float *b, float *c, int64_t ldc,
                       bool accumulate)
{
    __m128 c0_0 = _mm_setzero_ps(), c0_1 = c0_0, c1_0 = c0_0, c1_1 = c0_0, c2_0 = c0_0,
           c2_1 = c0_0, c3_0 = c0_0, c3_1 = c0_0, c4_0 = c0_0, c4_1 = c0_0, c5_0 = c0_0,
           c5_1 = c0_0;
    for (int p = 0; p < kc; p++) {
        __m128 b0 = _mm_load_ps(b), b1 = _mm_load_ps(b + 4);
        SSE_ROW(0);
        SSE_ROW(1);
        SSE_ROW(2);
        SSE_ROW(3);
        SSE_ROW(4);
        SSE_ROW(5);
        a += 6;
        b += 8;
    }
    SSE_STORE(0);
    SSE_STORE(1);
    SSE_STORE(2);
    SSE_STORE(3);
    SSE_STORE(4);
    SSE_STORE(5);
}

#define AVX2_ROW(r)                                                        \
    do {                                                                   \
        __m256 ar = _mm256_broadcast_ss(a + (r));                          \
        c##r##_0 = _mm256_fmadd_ps(ar, b0, c##r##_0);                      \
        c##r##_1 = _mm256_fmadd_ps(ar, b1, c##r##_1);                      \
    } while (0)
#define AVX2_STORE(r)                                                      \
    do {                                                                   \
        float *cr = c + (r) * ldc;                                         \
        if (accumulate) {                                                  \
            c##r##_0 = _mm256_add_ps(c##r##_0, _mm256_loadu_ps(cr));       \
            c##r##_1 = _mm256_add_ps(c##r##_1, _mm256_loadu_ps(cr + 8));   \
        }                                                                  \
        _mm256_storeu_ps(cr, c##r##_0);                                    \
        _mm256_storeu_ps(cr + 8, c##r##_1);                                \
    } while (0)

__attribute__((target("avx2,fma"))) static void micro_avx2(int kc, const float *a, const float *b,
                                                           float *c, int64_t ldc, bool accumulate)
{
    __m256 c0_0 = _mm256_setzero_ps(), c0_1 = c0_0, c1_0 = c0_0, c1_1 = c0_0, c2_0 = c0_0,
           c2_1 = c0_0, c3_0 = c0_0, c3_1 = c0_0, c4_0 = c0_0, c4_1 = c0_0, c5_0 = c0_0,
           c5_1 = c0_0;
    for (int p = 0; p < kc; p++) {
        __m256 b0 = _mm256_load_ps(b), b1 = _mm256_load_ps(b + 8);
        AVX2_ROW(0);
        AVX2_ROW(1);
        AVX2_ROW(2);
        AVX2_ROW(3);
        AVX2_ROW(4);
        AVX2_ROW(5);
        a += 6;
        b += 16;
    }
    AVX2_STORE(0);
    AVX2_STORE(1);
    AVX2_STORE(2);
    AVX2_STORE(3);
    AVX2_STORE(4);
    AVX2_STORE(5);
}

#define AVX512_ROW(r)                                                      \
    do {                                                                   \
        __m512 ar = _mm512_set1_ps(a[r]);                                  \
        c##r##_0 = _mm512_fmadd_ps(ar, b0, c##r##_0);                      \
        c##r##_1 = _mm512_fmadd_ps(ar, b1, c##r##_1);                      \
    } while (0)
#define AVX512_STORE(r)                                                    \
    do {                                                                   \
        float *cr = c + (r) * ldc;                                         \
        if (accumulate) {                                                  \
            c##r##_0 = _mm512_add_ps(c##r##_0, _mm512_loadu_ps(cr));       \
            c##r##_1 = _mm512_add_ps(c##r##_1, _mm512_loadu_ps(cr + 16));  \
        }                                                                  \
        _mm512_storeu_ps(cr, c##r##_0);                                    \
        _mm512_storeu_ps(cr + 16, c##r##_1);                               \
    } while (0)

__attribute__((target("avx512f"))) static void micro_avx512(int kc, const float *a,
                                                            const float *b, float *c,
                                                            int64_t ldc, bool accumulate)
{
    __m512 c0_0 = _mm512_setzero_ps(), c0_1 = c0_0, c1_0 = c0_0, c1_1 = c0_0, c2_0 = c0_0,
           c2_1 = c0_0, c3_0 = c0_0, c3_1 = c0_0, c4_0 = c0_0, c4_1 = c0_0, c5_0 = c0_0,
           c5_1 = c0_0, c6_0 = c0_0, c6_1 = c0_0, c7_0 = c0_0, c7_1 = c0_0, c8_0 = c0_0,
           c8_1 = c0_0, c9_0 = c0_0, c9_1 = c0_0, c10_0 = c0_0, c10_1 = c0_0, c11_0 = c0_0,
           c11_1 = c0_0;
    for (int p = 0; p < kc; p++) {
        __m512 b0 = _mm512_load_ps(b), b1 = _mm512_load_ps(b + 16);
        AVX512_ROW(0);
        AVX512_ROW(1);
        AVX512_ROW(2);
        AVX512_ROW(3);
        AVX512_ROW(4);
        AVX512_ROW(5);
        AVX512_ROW(6);
        AVX512_ROW(7);
        AVX512_ROW(8);
        AVX512_ROW(9);
        AVX512_ROW(10);
        AVX512_ROW(11);
        a += 12;
        b += 32;
    }
    AVX512_STORE(0);
    AVX512_STORE(1);
    AVX512_STORE(2);
    AVX512_STORE(3);
    AVX512_STORE(4);
    AVX512_STORE(5);
    AVX512_STORE(6);
    AVX512_STORE(7);
    AVX512_STORE(8);
    AVX512_STORE(9);
    AVX512_STORE(10);
    AVX512_STORE(11);
}
#endif

static const gemm_impl *gemm_pick(void)
{
    static const gemm_impl scalar = {.mr = 4, .nr = 4, .mc = 64, .kc = 256, .nc = 1024,
                                     .micro = micro_scalar};
#if defined(__x86_64__)
    static const gemm_impl sse2 = {.mr = 6, .nr = 8, .mc = 120, .kc = 256, .nc = 2048,
                                   .micro = micro_sse2};
    static const gemm_impl avx2 = {.mr = 6, .nr = 16, .mc = 120, .kc = 256, .nc = 4096,
                                   .micro = micro_avx2};
    static const gemm_impl avx512 = {.mr = 12, .nr = 32, .mc = 144, .kc = 256, .nc = 4096,
                                     .micro = micro_avx512};
    switch (cpu_simd_level()) {
    case CPU_SIMD_AVX512:
        return &avx512;
    case CPU_SIMD_AVX2:
        return &avx2;
    case CPU_SIMD_SSE2:
        return &sse2;
    default:
        break;
    }
#endif
    return &scalar;
}

static int gemm_min(int a, int b)
{
    return a < b ? a : b;
}

static int gemm_round_up(int x, int m)
{
    return (x + m - 1) / m * m;
}

static float *gemm_alloc(size_t floats)
{
    size_t bytes = floats * sizeof(float);
    bytes = (bytes + GEMM_ALIGN - 1) / GEMM_ALIGN * GEMM_ALIGN;
    return aligned_alloc(GEMM_ALIGN, bytes ? bytes : GEMM_ALIGN);
}

/* A[0..mc) x [0..kc) into mr-row slivers: sliver s holds a[p*mr + i] = A[s*mr+i][p]. */
static void gemm_pack_a(const float *A, int64_t lda, int mc, int kc, int mr, float *dst)
{
    for (int i0 = 0; i0 < mc; i0 += mr) {
        int mi = gemm_min(mr, mc - i0);
        for (int p = 0; p < kc; p++) {
            float *d = dst + (size_t)p * (size_t)mr;
            for (int i = 0; i < mi; i++)
                d[i] = A[(int64_t)(i0 + i) * lda + p];
            for (int i = mi; i < mr; i++)
                d[i] = 0.0f;
        }
        dst += (size_t)mr * (size_t)kc;
    }
}

/* B[0..kc) x [0..nc) into nr-column slivers: sliver s holds b[p*nr + j] = B[p][s*nr+j]. */
static void gemm_pack_b(const float *B, int64_t ldb, int kc, int nc, int nr, float *dst)
{
    for (int j0 = 0; j0 < nc; j0 += nr) {
        int nj = gemm_min(nr, nc - j0);
        for (int p = 0; p < kc; p++) {
            float *d = dst + (size_t)p * (size_t)nr;
            memcpy(d, B + (int64_t)p * ldb + j0, (size_t)nj * sizeof(float));
            for (int j = nj; j < nr; j++)
                d[j] = 0.0f;
        }
        dst += (size_t)nr * (size_t)kc;
    }
}

static void gemm_naive(int M, int N, int K, const float *A, int64_t lda, const float *B,
                       int64_t ldb, float *C, int64_t ldc)
{
    for (int i = 0; i < M; i++) {
        float *c = C + (int64_t)i * ldc;
        for (int j = 0; j < N; j++)
            c[j] = 0.0f;
        for (int p = 0; p < K; p++) {
            float a = A[(int64_t)i * lda + p];
            const float *b = B + (int64_t)p * ldb;
            for (int j = 0; j < N; j++)
                c[j] += a * b[j];
        }
    }
}

/* C (M x N, row stride ldc) = A (M x K) x B (K x N). */
static void gemm_blocked(const gemm_impl *g, int M, int N, int K, const float *A, int64_t lda,
                         const float *B, int64_t ldb, float *C, int64_t ldc)
{
    if (M <= 0 || N <= 0)
        return;
    if (K <= 0) {
        for (int i = 0; i < M; i++)
            memset(C + (int64_t)i * ldc, 0, (size_t)N * sizeof(float));
        return;
    }
    int kcmax = gemm_min(g->kc, K);
    int ncmax = gemm_min(g->nc, gemm_round_up(N, g->nr));
    int mcmax = gemm_min(g->mc, gemm_round_up(M, g->mr));
    float *bp = gemm_alloc((size_t)kcmax * (size_t)ncmax);
    float *ap = gemm_alloc((size_t)mcmax * (size_t)kcmax);
    if (!bp || !ap) {
        gemm_naive(M, N, K, A, lda, B, ldb, C, ldc);
        goto cleanup;
    }
    _Alignas(GEMM_ALIGN) float tile[GEMM_MR_MAX * GEMM_NR_MAX];

    for (int jc = 0; jc < N; jc += g->nc) {
        int nc = gemm_min(g->nc, N - jc);
        for (int pc = 0; pc < K; pc += g->kc) {
            int kc = gemm_min(g->kc, K - pc);
            bool accumulate = pc > 0;
            gemm_pack_b(B + (int64_t)pc * ldb + jc, ldb, kc, nc, g->nr, bp);
            for (int ic = 0; ic < M; ic += g->mc) {
                int mc = gemm_min(g->mc, M - ic);
                gemm_pack_a(A + (int64_t)ic * lda + pc, lda, mc, kc, g->mr, ap);
                for (int jr = 0; jr < nc; jr += g->nr) {
                    int nj = gemm_min(g->nr, nc - jr);
                    const float *bs = bp + (size_t)jr * (size_t)kc;
                    for (int ir = 0; ir < mc; ir += g->mr) {
                        int mi = gemm_min(g->mr, mc - ir);
                        const float *as = ap + (size_t)ir * (size_t)kc;
                        float *c = C + (int64_t)(ic + ir) * ldc + jc + jr;
                        if (mi == g->mr && nj == g->nr) {
                            g->micro(kc, as, bs, c, ldc, accumulate);
                            continue;
                        }
                        g->micro(kc, as, bs, tile, g->nr, false);
                        for (int i = 0; i < mi; i++)
                            for (int j = 0; j < nj; j++) {
                                float t = tile[i * g->nr + j];
                                c[(int64_t)i * ldc + j] = accumulate ? c[(int64_t)i * ldc + j] + t : t;
                            }
                    }
                }
            }
        }
    }
cleanup:
    free(ap);
    free(bp);
}

void cpu_sgemm(int rows, int cols, int inner, const float *lhs, const float *rhs, float *out)
{
    gemm_blocked(gemm_pick(), rows, cols, inner, lhs, inner, rhs, cols, out, cols);
}

typedef struct gemm_job {
    const gemm_impl *g;
    int M, N, K;
    const float *A, *B;
    float *C;
    bool by_rows;
} gemm_job;

static void gemm_part(void *ctx, int part, int nparts)
{
    const gemm_job *j = ctx;
    int step = j->by_rows ? j->g->mr : j->g->nr;
    int extent = j->by_rows ? j->M : j->N;
    int64_t units = (extent + step - 1) / step;
    int lo = (int)(units * part / nparts) * step;
    int hi = (int)(units * (part + 1) / nparts) * step;
    if (hi > extent)
        hi = extent;
    if (hi <= lo)
        return;
    if (j->by_rows)
        gemm_blocked(j->g, hi - lo, j->N, j->K, j->A + (int64_t)lo * j->K, j->K, j->B, j->N,
                     j->C + (int64_t)lo * j->N, j->N);
    else
        gemm_blocked(j->g, j->M, hi - lo, j->K, j->A, j->K, j->B + lo, j->N, j->C + lo, j->N);
}

void cpu_sgemm_mt(int rows, int cols, int inner, const float *lhs, const float *rhs, float *out,
                  int threads)
{
    if (rows <= 0 || cols <= 0)
        return;
    const gemm_impl *g = gemm_pick();
    double flops = 2.0 * (double)rows * (double)cols * (double)(inner > 0 ? inner : 1);
    threads = parallel_threads(threads, flops, GEMM_MIN_FLOPS_PER_THREAD);
    int row_units = (rows + g->mr - 1) / g->mr, col_units = (cols + g->nr - 1) / g->nr;
    bool by_rows = row_units >= threads || row_units >= col_units;
    int units = by_rows ? row_units : col_units;
    if (threads > units)
        threads = units;
    gemm_job j = {.g = g, .M = rows, .N = cols, .K = inner, .A = lhs, .B = rhs, .C = out,
                  .by_rows = by_rows};
    parallel_run(threads, gemm_part, &j);
}

double ref_sgemm_at(int rows, int cols, int inner, const float *lhs, const float *rhs, int64_t row,
                    int64_t col)
{
    if (row < 0 || row >= rows || col < 0 || col >= cols)
        return (double)NAN;
    double s = 0.0;
    for (int64_t p = 0; p < inner; p++)
        s += (double)lhs[row * inner + p] * (double)rhs[p * cols + col];
    return s;
}

void ref_sgemm_rows(int rows, int cols, int inner, const float *lhs, const float *rhs, int64_t r0,
                    int64_t r1, double *out)
{
    if (r0 < 0)
        r0 = 0;
    if (r1 > rows)
        r1 = rows;
    for (int64_t i = r0; i < r1; i++) {
        double *c = out + (i - r0) * (int64_t)cols;
        for (int64_t j = 0; j < cols; j++)
            c[j] = 0.0;
        for (int64_t p = 0; p < inner; p++) {
            const double a = (double)lhs[i * inner + p];
            const float *b = rhs + p * (int64_t)cols;
            for (int64_t j = 0; j < cols; j++)
                c[j] += a * (double)b[j];
        }
    }
}
