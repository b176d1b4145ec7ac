#include "cpu/prep_algo.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/cpuinfo.h"
#include "cpu/parallel.h"
#include "cpu/prep_data.h"

#define RADIX_BITS 11
#define RADIX_BINS (1 << RADIX_BITS)
#define RADIX_MIN_PER_THREAD 65536.0
#define HIST_BINS 65536

/* ---- quickselect --------------------------------------------------------------- */

static void swap32(uint32_t *a, uint32_t *b)
{
    uint32_t t = *a;
    *a = *b;
    *b = t;
}

static int cmp32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

uint32_t prep_select(uint32_t *keys, size_t count, size_t rank)
{
    size_t lo = 0, hi = count - 1;
    int rounds = 0;
    while (hi - lo > 16) {
        if (++rounds > 64) {            /* a bad run of pivots: finish by sorting */
            qsort(keys + lo, hi - lo + 1, sizeof *keys, cmp32);
            return keys[rank];
        }
        size_t mid = lo + (hi - lo) / 2;
        if (keys[mid] < keys[lo])
            swap32(&keys[mid], &keys[lo]);
        if (keys[hi] < keys[lo])
            swap32(&keys[hi], &keys[lo]);
        if (keys[hi] < keys[mid])
            swap32(&keys[hi], &keys[mid]);
        uint32_t p = keys[mid];
        size_t i = lo, j = hi;
        for (;;) {                      /* Hoare: [lo, j] <= p <= [j + 1, hi] */
            while (keys[i] < p)
                i++;
            while (keys[j] > p)
                j--;
            if (i >= j)
                break;
            swap32(&keys[i], &keys[j]);
            i++;
            j--;
        }
        if (rank <= j)
            hi = j;
        else
            lo = j + 1;
    }
    for (size_t i = lo + 1; i <= hi; i++)
        for (size_t j = i; j > lo && keys[j - 1] > keys[j]; j--)
            swap32(&keys[j - 1], &keys[j]);
    return keys[rank];
}

/* ---- radix sort ------------------------------------------------------------------ */

typedef struct radix_job {
    const uint32_t *src;
    uint32_t *dst;
    size_t n;
    int shift;
    size_t *hist;               /* RADIX_BINS a part */
} radix_job;

static void part_range(size_t n, int part, int nparts, size_t *a, size_t *b)
{
    *a = n * (size_t)part / (size_t)nparts;
    *b = n * (size_t)(part + 1) / (size_t)nparts;
}

static void radix_count(void *ctx, int part, int nparts)
{
    const radix_job *j = ctx;
    size_t a, b, *h = j->hist + (size_t)part * RADIX_BINS;
    part_range(j->n, part, nparts, &a, &b);
    memset(h, 0, RADIX_BINS * sizeof *h);
    for (size_t i = a; i < b; i++)
        h[(j->src[i] >> j->shift) & (RADIX_BINS - 1)]++;
}

static void radix_scatter(void *ctx, int part, int nparts)
{
    const radix_job *j = ctx;
    size_t a, b, *h = j->hist + (size_t)part * RADIX_BINS;
    part_range(j->n, part, nparts, &a, &b);
    for (size_t i = a; i < b; i++) {
        uint32_t k = j->src[i];
        j->dst[h[(k >> j->shift) & (RADIX_BINS - 1)]++] = k;
    }
}

uint32_t *prep_radix_sort(uint32_t *keys, uint32_t *tmp, size_t count, int threads)
{
    int parts = parallel_threads(threads, (double)count, RADIX_MIN_PER_THREAD);
    size_t *hist = malloc((size_t)parts * RADIX_BINS * sizeof *hist);
    if (!hist)
        parts = 1;
    size_t one[RADIX_BINS];
    radix_job j = {.src = keys, .dst = tmp, .n = count, .shift = 0, .hist = hist ? hist : one};
    for (int pass = 0; pass < 3; pass++) {
        j.shift = pass * RADIX_BITS;
        parallel_run(parts, radix_count, &j);
        size_t at = 0;                   /* offsets: bin by bin, part by part */
        for (size_t bin = 0; bin < RADIX_BINS; bin++)
            for (int p = 0; p < parts; p++) {
                size_t c = j.hist[(size_t)p * RADIX_BINS + bin];
                j.hist[(size_t)p * RADIX_BINS + bin] = at;
                at += c;
            }
        parallel_run(parts, radix_scatter, &j);
        uint32_t *t = (uint32_t *)j.src;
        j.src = j.dst;
        j.dst = t;
    }
    free(hist);
    return (uint32_t *)j.src;
}

/* ---- histogram selection (the reference) ---------------------------------------- */

typedef struct hsel_job {
    const float *v;
    size_t n;
    bool low;                   /* second pass: low 16 bits of keys whose high half is high */
    uint32_t high;
    uint32_t *hist;             /* HIST_BINS a part */
} hsel_job;

static void hsel_part(void *ctx, int part, int nparts)
{
    const hsel_job *j = ctx;
    size_t a, b;
    uint32_t *h = j->hist + (size_t)part * HIST_BINS;
    part_range(j->n, part, nparts, &a, &b);
    memset(h, 0, HIST_BINS * sizeof *h);
    for (size_t i = a; i < b; i++) {
        float x = j->v[i];
        if (x != x)
            continue;
        uint32_t k = prep_key(x);
        if (!j->low)
            h[k >> 16]++;
        else if ((k >> 16) == j->high)
            h[k & 0xffffu]++;
    }
}

/* Sums the parts' histograms into the first. */
static void hsel_sum(uint32_t *hist, int parts)
{
    for (int p = 1; p < parts; p++)
        for (size_t b = 0; b < HIST_BINS; b++)
            hist[b] += hist[(size_t)p * HIST_BINS + b];
}

/* The bin of a summed histogram holding rank r, and the rank within it. */
static void hsel_find(const uint32_t *hist, size_t r, uint32_t *bin, size_t *within)
{
    size_t at = 0;
    for (uint32_t b = 0; b < HIST_BINS; b++) {
        if (r < at + hist[b]) {
            *bin = b;
            *within = r - at;
            return;
        }
        at += hist[b];
    }
    *bin = HIST_BINS - 1;
    *within = 0;
}

void prep_hist_select(const float *values, size_t count, const size_t *rank, int nr, uint32_t *out,
                      int threads)
{
    int parts = parallel_threads(threads, (double)count, RADIX_MIN_PER_THREAD);
    uint32_t *hist = malloc((size_t)parts * HIST_BINS * sizeof *hist);
    if (!hist) {
        parts = 1;
        hist = malloc(HIST_BINS * sizeof *hist);
        if (!hist)
            return;
    }
    if (nr > 16)
        nr = 16;
    hsel_job j = {.v = values, .n = count, .low = false, .high = 0, .hist = hist};
    uint32_t high[16];
    size_t within[16];
    parallel_run(parts, hsel_part, &j);
    hsel_sum(hist, parts);
    for (int q = 0; q < nr; q++)
        hsel_find(hist, rank[q], &high[q], &within[q]);
    j.low = true;
    for (int q = 0; q < nr; q++) {
        j.high = high[q];
        parallel_run(parts, hsel_part, &j);
        hsel_sum(hist, parts);
        uint32_t low;
        size_t rest;
        hsel_find(hist, within[q], &low, &rest);
        out[q] = (high[q] << 16) | low;
    }
    free(hist);
}

/* ---- vectorised loops --------------------------------------------------------------- */

static float log1p_clip1(float x, float hi)
{
    float y = __builtin_log1pf(x);
    return y < 0.0f ? 0.0f : y > hi ? hi : y;
}

static void gemm_scalar(const float *X, int64_t ld, const float *w, float *Y, int64_t r0,
                        int64_t r1)
{
    for (int64_t i = r0; i < r1; i++)
        for (int j = 0; j < PREP_HIDDEN; j++) {
            float acc = 0.0f;
            for (int k = 0; k < PREP_FEATURES; k++)
                acc += X[k * ld + i] * w[k + j * PREP_FEATURES];
            Y[j * ld + i] = acc;
        }
}

#if defined(__x86_64__)
/* log(u) for u > 0 (Cephes' logf: a degree-8 polynomial on [sqrt(1/2) - 1,
 * sqrt(2) - 1] after splitting off the exponent), then the log1p
 * correction log(u) * x / (u - 1) with u = 1 + x, and the clip. */
#define PREP_LOG1P_FN(NAME, ATTR, VF, VI, W)                                                     \
    ATTR static void NAME(const float *x, float *y, size_t n, float hi)                        \
    {                                                                                          \
        size_t i = 0;                                                                          \
        for (; i + (W) <= n; i += (W)) {                                                       \
            VF v, f;                                                                           \
            memcpy(&v, x + i, sizeof v);                                                       \
            VF u = v + 1.0f;                                                                   \
            VI b = (VI)u;                                                                      \
            VI e = ((b >> 23) & 0xff) - 126;                                                   \
            f = (VF)((b & (int32_t)0x807fffff) | 0x3f000000);                                  \
            VI small = f < 0.70710678f;                                                        \
            e = e + small;                                                                     \
            VF f2 = (f + f) - 1.0f, f1 = f - 1.0f;                                             \
            f = (VF)(((VI)f2 & small) | ((VI)f1 & ~small));                                    \
            VF z = f * f;                                                                      \
            VF p = 7.0376836292e-2f * f - 1.1514610310e-1f;                                    \
            p = p * f + 1.1676998740e-1f;                                                      \
            p = p * f - 1.2420140846e-1f;                                                      \
            p = p * f + 1.4249322787e-1f;                                                      \
            p = p * f - 1.6668057665e-1f;                                                      \
            p = p * f + 2.0000714765e-1f;                                                      \
            p = p * f - 2.4999993993e-1f;                                                      \
            p = p * f + 3.3333331174e-1f;                                                      \
            VF ef = __builtin_convertvector(e, VF);                                            \
            VF r = p * f * z;                                                                  \
            r = r - 2.12194440e-4f * ef;                                                       \
            r = r - 0.5f * z;                                                                  \
            r = f + r;                                                                         \
            r = r + 0.693359375f * ef;                                                         \
            VF d = u - 1.0f;                                                                   \
            VI dz = d == 0.0f;                                                                 \
            VF q = r * (v / (VF)((VI)d | ((VI)(d + 1.0f) & dz)));                              \
            q = (VF)(((VI)v & dz) | ((VI)q & ~dz));                                            \
            VI lo = q < 0.0f, over = q > hi;                                                   \
            q = (VF)((VI)q & ~lo);                                                             \
            q = (VF)(((VI)q & ~over) | ((VI)((VF){0} + hi) & over));                           \
            memcpy(y + i, &q, sizeof q);                                                       \
        }                                                                                      \
        for (; i < n; i++)                                                                     \
            y[i] = log1p_clip1(x[i], hi);                                                      \
    }

/* Rows in blocks of W, the outputs in two halves of eight accumulators. */
#define PREP_GEMM_FN(NAME, ATTR, VF, W)                                                          \
    ATTR static void NAME(const float *X, int64_t ld, const float *w, float *Y, int64_t r0,    \
                          int64_t r1)                                                          \
    {                                                                                          \
        int64_t i = r0;                                                                        \
        for (; i + (W) <= r1; i += (W)) {                                                      \
            for (int h = 0; h < PREP_HIDDEN; h += 8) {                                         \
                VF acc[8];                                                                     \
                for (int j = 0; j < 8; j++)                                                    \
                    acc[j] = (VF){0};                                                          \
                for (int k = 0; k < PREP_FEATURES; k++) {                                      \
                    VF xv;                                                                     \
                    memcpy(&xv, X + k * ld + i, sizeof xv);                                    \
                    const float *wk = w + k + h * PREP_FEATURES;                               \
                    for (int j = 0; j < 8; j++)                                                \
                        acc[j] += xv * wk[j * PREP_FEATURES];                                  \
                }                                                                              \
                for (int j = 0; j < 8; j++)                                                    \
                    memcpy(Y + (h + j) * ld + i, &acc[j], sizeof acc[j]);                      \
            }                                                                                  \
        }                                                                                      \
        gemm_scalar(X, ld, w, Y, i, r1);                                                       \
    }

typedef float v4sf __attribute__((vector_size(16)));
typedef int v4si __attribute__((vector_size(16)));
typedef float v8sf __attribute__((vector_size(32)));
typedef int v8si __attribute__((vector_size(32)));
typedef float v16sf __attribute__((vector_size(64)));
typedef int v16si __attribute__((vector_size(64)));

PREP_LOG1P_FN(log1p_sse2, __attribute__((target("sse2"))), v4sf, v4si, 4)
PREP_LOG1P_FN(log1p_avx2, __attribute__((target("avx2,fma"))), v8sf, v8si, 8)
PREP_LOG1P_FN(log1p_avx512, __attribute__((target("avx512f"))), v16sf, v16si, 16)
PREP_GEMM_FN(gemm_sse2, __attribute__((target("sse2"))), v4sf, 4)
PREP_GEMM_FN(gemm_avx2, __attribute__((target("avx2,fma"))), v8sf, 8)
PREP_GEMM_FN(gemm_avx512, __attribute__((target("avx512f"))), v16sf, 16)
#endif

void prep_log1p_clip(const float *in, float *out, size_t count, float hi)
{
    switch (cpu_simd_level()) {
#if defined(__x86_64__)
    case CPU_SIMD_AVX512: log1p_avx512(in, out, count, hi); return;
    case CPU_SIMD_AVX2: log1p_avx2(in, out, count, hi); return;
    case CPU_SIMD_SSE2: log1p_sse2(in, out, count, hi); return;
#endif
    default:
        for (size_t i = 0; i < count; i++)
            out[i] = log1p_clip1(in[i], hi);
        return;
    }
}

void prep_gemm_rows(const float *features, int64_t ld, const float *weights, float *hidden,
                    int64_t r0, int64_t r1)
{
    switch (cpu_simd_level()) {
#if defined(__x86_64__)
    case CPU_SIMD_AVX512: gemm_avx512(features, ld, weights, hidden, r0, r1); return;
    case CPU_SIMD_AVX2: gemm_avx2(features, ld, weights, hidden, r0, r1); return;
    case CPU_SIMD_SSE2: gemm_sse2(features, ld, weights, hidden, r0, r1); return;
#endif
    default: gemm_scalar(features, ld, weights, hidden, r0, r1); return;
    }
}
