#include "cpu/reduce.h"

#include <math.h>
#include <stdlib.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "cpu/cpuinfo.h"
#include "cpu/parallel.h"

/* Float lanes add up at most this many elements before their total moves
 * into a double: the float error stays that of a short sum. */
#define REDUCE_BLOCK ((size_t)4096)
/* Fewer elements than this per thread do not pay for the thread. */
#define REDUCE_MIN_PER_THREAD 262144.0
#define REF_LANES 4

typedef double (*reduce_range_fn)(const float *x, size_t n);

static double reduce_lanes(const float *lane, int k)
{
    double s = 0.0;
    for (int i = 0; i < k; i++)
        s += (double)lane[i];
    return s;
}

static double reduce_scalar(const float *x, size_t n)
{
    double total = 0.0;
    for (size_t b = 0; b < n; b += REDUCE_BLOCK) {
        size_t m = n - b < REDUCE_BLOCK ? n - b : REDUCE_BLOCK;
        const float *p = x + b;
        float acc[16] = {0};
        size_t i = 0;
        for (; i + 16 <= m; i += 16)
            for (int l = 0; l < 16; l++)
                acc[l] += p[i + (size_t)l];
        for (; i < m; i++)
            acc[i & 15] += p[i];
        total += reduce_lanes(acc, 16);
    }
    return total;
}

#if defined(__x86_64__)
static double reduce_sse2(const float *x, size_t n)
{
    double total = 0.0;
    for (size_t b = 0; b < n; b += REDUCE_BLOCK) {
        size_t m = n - b < REDUCE_BLOCK ? n - b : REDUCE_BLOCK;
        const float *p = x + b;
        __m128 a0 = _mm_setzero_ps(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
        size_t i = 0;
        for (; i + 32 <= m; i += 32) {
            a0 = _mm_add_ps(a0, _mm_loadu_ps(p + i));
            a1 = _mm_add_ps(a1, _mm_loadu_ps(p + i + 4));
            a2 = _mm_add_ps(a2, _mm_loadu_ps(p + i + 8));
            a3 = _mm_add_ps(a3, _mm_loadu_ps(p + i + 12));
            a4 = _mm_add_ps(a4, _mm_loadu_ps(p + i + 16));
            a5 = _mm_add_ps(a5, _mm_loadu_ps(p + i + 20));
            a6 = _mm_add_ps(a6, _mm_loadu_ps(p + i + 24));
            a7 = _mm_add_ps(a7, _mm_loadu_ps(p + i + 28));
        }
        for (; i + 4 <= m; i += 4)
            a0 = _mm_add_ps(a0, _mm_loadu_ps(p + i));
        a0 = _mm_add_ps(_mm_add_ps(_mm_add_ps(a0, a1), _mm_add_ps(a2, a3)),
                        _mm_add_ps(_mm_add_ps(a4, a5), _mm_add_ps(a6, a7)));
        float lane[4];
        _mm_storeu_ps(lane, a0);
        double tail = 0.0;
        for (; i < m; i++)
            tail += (double)p[i];
        total += reduce_lanes(lane, 4) + tail;
    }
    return total;
}

__attribute__((target("avx2"))) static double reduce_avx2(const float *x, size_t n)
{
    double total = 0.0;
    for (size_t b = 0; b < n; b += REDUCE_BLOCK) {
        size_t m = n - b < REDUCE_BLOCK ? n - b : REDUCE_BLOCK;
        const float *p = x + b;
        __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
        size_t i = 0;
        for (; i + 64 <= m; i += 64) {
            a0 = _mm256_add_ps(a0, _mm256_loadu_ps(p + i));
            a1 = _mm256_add_ps(a1, _mm256_loadu_ps(p + i + 8));
            a2 = _mm256_add_ps(a2, _mm256_loadu_ps(p + i + 16));
            a3 = _mm256_add_ps(a3, _mm256_loadu_ps(p + i + 24));
            a4 = _mm256_add_ps(a4, _mm256_loadu_ps(p + i + 32));
            a5 = _mm256_add_ps(a5, _mm256_loadu_ps(p + i + 40));
            a6 = _mm256_add_ps(a6, _mm256_loadu_ps(p + i + 48));
            a7 = _mm256_add_ps(a7, _mm256_loadu_ps(p + i + 56));
        }
        for (; i + 8 <= m; i += 8)
            a0 = _mm256_add_ps(a0, _mm256_loadu_ps(p + i));
        a0 = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)),
                           _mm256_add_ps(_mm256_add_ps(a4, a5), _mm256_add_ps(a6, a7)));
        float lane[8];
        _mm256_storeu_ps(lane, a0);
        double tail = 0.0;
        for (; i < m; i++)
            tail += (double)p[i];
        total += reduce_lanes(lane, 8) + tail;
    }
    return total;
}

__attribute__((target("avx512f"))) static double reduce_avx512(const float *x, size_t n)
{
    double total = 0.0;
    for (size_t b = 0; b < n; b += REDUCE_BLOCK) {
        size_t m = n - b < REDUCE_BLOCK ? n - b : REDUCE_BLOCK;
        const float *p = x + b;
        __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
        size_t i = 0;
        for (; i + 128 <= m; i += 128) {
            a0 = _mm512_add_ps(a0, _mm512_loadu_ps(p + i));
            a1 = _mm512_add_ps(a1, _mm512_loadu_ps(p + i + 16));
            a2 = _mm512_add_ps(a2, _mm512_loadu_ps(p + i + 32));
            a3 = _mm512_add_ps(a3, _mm512_loadu_ps(p + i + 48));
            a4 = _mm512_add_ps(a4, _mm512_loadu_ps(p + i + 64));
            a5 = _mm512_add_ps(a5, _mm512_loadu_ps(p + i + 80));
            a6 = _mm512_add_ps(a6, _mm512_loadu_ps(p + i + 96));
            a7 = _mm512_add_ps(a7, _mm512_loadu_ps(p + i + 112));
        }
        for (; i + 16 <= m; i += 16)
            a0 = _mm512_add_ps(a0, _mm512_loadu_ps(p + i));
        if (i < m) {
            __mmask16 k = (__mmask16)((1u << (m - i)) - 1u);
            a1 = _mm512_add_ps(a1, _mm512_maskz_loadu_ps(k, p + i));
        }
        a0 = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)),
                           _mm512_add_ps(_mm512_add_ps(a4, a5), _mm512_add_ps(a6, a7)));
        float lane[16];
        _mm512_storeu_ps(lane, a0);
        total += reduce_lanes(lane, 16);
    }
    return total;
}
#endif

static reduce_range_fn reduce_pick(void)
{
    switch (cpu_simd_level()) {
#if defined(__x86_64__)
    case CPU_SIMD_AVX512:
        return reduce_avx512;
    case CPU_SIMD_AVX2:
        return reduce_avx2;
    case CPU_SIMD_SSE2:
        return reduce_sse2;
#endif
    default:
        return reduce_scalar;
    }
}

float cpu_reduce_sum(const float *values, size_t count)
{
    return (float)reduce_pick()(values, count);
}

typedef struct reduce_job {
    const float *x;
    size_t n;
    reduce_range_fn fn;
    double *part;
} reduce_job;

static void reduce_part(void *ctx, int part, int nparts)
{
    reduce_job *j = ctx;
    size_t nblocks = (j->n + REDUCE_BLOCK - 1) / REDUCE_BLOCK;
    size_t b0 = nblocks * (size_t)part / (size_t)nparts;
    size_t b1 = nblocks * (size_t)(part + 1) / (size_t)nparts;
    size_t i0 = b0 * REDUCE_BLOCK;
    size_t i1 = b1 * REDUCE_BLOCK < j->n ? b1 * REDUCE_BLOCK : j->n;
    j->part[part] = i1 > i0 ? j->fn(j->x + i0, i1 - i0) : 0.0;
}

float cpu_reduce_sum_mt(const float *values, size_t count, int threads)
{
    threads = parallel_threads(threads, (double)count, REDUCE_MIN_PER_THREAD);
    reduce_range_fn fn = reduce_pick();
    if (threads <= 1)
        return (float)fn(values, count);
    double *part = calloc((size_t)threads, sizeof *part);
    if (!part)
        return (float)fn(values, count);
    reduce_job j = {.x = values, .n = count, .fn = fn, .part = part};
    parallel_run(threads, reduce_part, &j);
    double total = 0.0;
    for (int t = 0; t < threads; t++)
        total += part[t];
    free(part);
    return (float)total;
}

static void ref_two_sum(double *sum, double *comp, double x)
{
    double t = *sum + x;
    *comp += fabs(*sum) >= fabs(x) ? (*sum - t) + x : (x - t) + *sum;
    *sum = t;
}

double ref_reduce_sum(const float *values, size_t count)
{
    double s[REF_LANES] = {0.0}, c[REF_LANES] = {0.0};
    size_t i = 0;
    for (; i + REF_LANES <= count; i += REF_LANES)
        for (int l = 0; l < REF_LANES; l++)
            ref_two_sum(&s[l], &c[l], (double)values[i + (size_t)l]);
    for (; i < count; i++)
        ref_two_sum(&s[0], &c[0], (double)values[i]);
    double sum = 0.0, comp = 0.0;
    for (int l = 0; l < REF_LANES; l++) {
        ref_two_sum(&sum, &comp, s[l]);
        comp += c[l];
    }
    return sum + comp;
}
