#include "cpu/pipeline.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "cpu/cpuinfo.h"
#include "cpu/parallel.h"

/* Fewer elements than this per thread do not pay for the thread. */
#define PIPE_MIN_PER_THREAD 262144.0
/* The reference sums fixed blocks of rows and adds the blocks in order, so
 * its result does not depend on the thread count. */
#define REF_BLOCK_ROWS ((size_t)65536)
/* A logistic variable divided by this has unit variance (pi / sqrt(3)). */
#define LOGISTIC_SD 1.8137993642342178

typedef void (*stats_fn)(const float *x, size_t r0, size_t r1, size_t f, double *s1, double *s2);
typedef void (*xform_fn)(const float *x, float *out, size_t r0, size_t r1, size_t f,
                         const float *mean, const float *inv);

/* ---- inputs --------------------------------------------------------------- */

/* Offset and scale of column c for seed: splitmix64 of (seed, c). */
static void column_params(uint64_t seed, size_t c, double *mu, double *scale)
{
    rng r;
    rng_seed(&r, seed ^ (0x5851f42d4c957f2dULL * ((uint64_t)c + 1)));
    *mu = -100.0 + 200.0 * rng_uniform(&r);
    *scale = 0.5 + 19.5 * rng_uniform(&r);
}

typedef struct gen_job {
    float *x;
    size_t rows, feats;
    uint64_t seed;
} gen_job;

static void gen_part(void *ctx, int part, int nparts)
{
    const gen_job *j = ctx;
    size_t r0 = j->rows * (size_t)part / (size_t)nparts;
    size_t r1 = j->rows * (size_t)(part + 1) / (size_t)nparts;
    double mu[PIPELINE_MAX_FEATURES], scale[PIPELINE_MAX_FEATURES];
    for (size_t c = 0; c < j->feats; c++)
        column_params(j->seed, c, &mu[c], &scale[c]);
    const double lo = 1.0 / 16777216.0, hi = 1.0 - lo;
    for (size_t r = r0; r < r1; r++) {
        float *row = j->x + r * j->feats;
        for (size_t c = 0; c < j->feats; c++) {
            double u = (double)row[c];
            u = u < lo ? lo : u > hi ? hi : u;
            row[c] = (float)(mu[c] + scale[c] * log(u / (1.0 - u)) / LOGISTIC_SD);
        }
    }
}

void pipeline_inputs(float *x, size_t rows, size_t feats, uint64_t seed)
{
    size_t n = rows * feats;
    if (n == 0 || feats > PIPELINE_MAX_FEATURES)
        return;
    rng_fill_uniform(x, n, seed, 0.0f, 1.0f);
    gen_job j = {x, rows, feats, seed};
    int threads = parallel_threads(0, (double)n, PIPE_MIN_PER_THREAD);
    if ((size_t)threads > rows)
        threads = (int)rows;
    parallel_run(threads, gen_part, &j);
}

/* ---- the vectorised baseline ------------------------------------------------ */

/* One row range of the column sums: s1[c] += x, s2[c] += x^2, in double. */
static void stats_scalar(const float *x, size_t r0, size_t r1, size_t f, double *s1, double *s2)
{
    for (size_t r = r0; r < r1; r++) {
        const float *row = x + r * f;
        for (size_t c = 0; c < f; c++) {
            double d = (double)row[c];
            s1[c] += d;
            s2[c] += d * d;
        }
    }
}

static void xform_scalar(const float *x, float *out, size_t r0, size_t r1, size_t f,
                         const float *mean, const float *inv)
{
    const float hi = (float)PIPELINE_CLIP, lo = -hi;
    for (size_t r = r0; r < r1; r++) {
        const float *row = x + r * f;
        float *o = out + r * f;
        for (size_t c = 0; c < f; c++) {
            float z = (row[c] - mean[c]) * inv[c];
            o[c] = z > hi ? hi : z < lo ? lo : z;
        }
    }
}

#if defined(__x86_64__)
/* The same two loops over GCC vector types: WD float lanes widened to
 * double for the sums, W float lanes for the transform.  Each is compiled
 * for one instruction set through its target attribute. */
#define PIPE_STATS_FN(NAME, ATTR, VF, VD, WD)                                                    \
    ATTR static void NAME(const float *x, size_t r0, size_t r1, size_t f, double *s1,          \
                          double *s2)                                                          \
    {                                                                                          \
        for (size_t r = r0; r < r1; r++) {                                                     \
            const float *row = x + r * f;                                                      \
            size_t c = 0;                                                                      \
            for (; c + (WD) <= f; c += (WD)) {                                                 \
                VF v;                                                                          \
                VD a, b;                                                                       \
                memcpy(&v, row + c, sizeof v);                                                 \
                memcpy(&a, s1 + c, sizeof a);                                                  \
                memcpy(&b, s2 + c, sizeof b);                                                  \
                VD d = __builtin_convertvector(v, VD);                                         \
                a += d;                                                                        \
                b += d * d;                                                                    \
                memcpy(s1 + c, &a, sizeof a);                                                  \
                memcpy(s2 + c, &b, sizeof b);                                                  \
            }                                                                                  \
            for (; c < f; c++) {                                                               \
                double d = (double)row[c];                                                     \
                s1[c] += d;                                                                    \
                s2[c] += d * d;                                                                \
            }                                                                                  \
        }                                                                                      \
    }

#define PIPE_XFORM_FN(NAME, ATTR, VF, VI, W)                                                     \
    ATTR static void NAME(const float *x, float *out, size_t r0, size_t r1, size_t f,          \
                          const float *mean, const float *inv)                                 \
    {                                                                                          \
        const float hi = (float)PIPELINE_CLIP, lo = -hi;                                       \
        const VF vhi = (VF){0} + hi, vlo = (VF){0} + lo;                                       \
        for (size_t r = r0; r < r1; r++) {                                                     \
            const float *row = x + r * f;                                                      \
            float *o = out + r * f;                                                            \
            size_t c = 0;                                                                      \
            for (; c + (W) <= f; c += (W)) {                                                   \
                VF v, m, k;                                                                    \
                memcpy(&v, row + c, sizeof v);                                                 \
                memcpy(&m, mean + c, sizeof m);                                                \
                memcpy(&k, inv + c, sizeof k);                                                 \
                VF z = (v - m) * k;                                                            \
                VI over = z > vhi;                                                             \
                z = (VF)(((VI)z & ~over) | ((VI)vhi & over));                                  \
                VI under = z < vlo;                                                            \
                z = (VF)(((VI)z & ~under) | ((VI)vlo & under));                                \
                memcpy(o + c, &z, sizeof z);                                                   \
            }                                                                                  \
            for (; c < f; c++) {                                                               \
                float z = (row[c] - mean[c]) * inv[c];                                         \
                o[c] = z > hi ? hi : z < lo ? lo : z;                                          \
            }                                                                                  \
        }                                                                                      \
    }

typedef float v2sf __attribute__((vector_size(8)));
typedef double v2df __attribute__((vector_size(16)));
typedef float v4sf __attribute__((vector_size(16)));
typedef int v4si __attribute__((vector_size(16)));
typedef double v4df __attribute__((vector_size(32)));
typedef float v8sf __attribute__((vector_size(32)));
typedef int v8si __attribute__((vector_size(32)));
typedef double v8df __attribute__((vector_size(64)));
typedef float v16sf __attribute__((vector_size(64)));
typedef int v16si __attribute__((vector_size(64)));

PIPE_STATS_FN(stats_sse2, __attribute__((target("sse2"))), v2sf, v2df, 2)
PIPE_XFORM_FN(xform_sse2, __attribute__((target("sse2"))), v4sf, v4si, 4)
PIPE_STATS_FN(stats_avx2, __attribute__((target("avx2,fma"))), v4sf, v4df, 4)
PIPE_XFORM_FN(xform_avx2, __attribute__((target("avx2,fma"))), v8sf, v8si, 8)
PIPE_STATS_FN(stats_avx512, __attribute__((target("avx512f"))), v8sf, v8df, 8)
PIPE_XFORM_FN(xform_avx512, __attribute__((target("avx512f"))), v16sf, v16si, 16)
#endif

static void pipe_pick(stats_fn *s, xform_fn *x)
{
    switch (cpu_simd_level()) {
#if defined(__x86_64__)
    case CPU_SIMD_AVX512:
        *s = stats_avx512;
        *x = xform_avx512;
        return;
    case CPU_SIMD_AVX2:
        *s = stats_avx2;
        *x = xform_avx2;
        return;
    case CPU_SIMD_SSE2:
        *s = stats_sse2;
        *x = xform_sse2;
        return;
#endif
    default:
        *s = stats_scalar;
        *x = xform_scalar;
        return;
    }
}

/* Mean and inverse standard deviation (0 for a constant column) in float
 * from the column sums. */
static void finish_stats(const double *s1, const double *s2, size_t rows, size_t f, float *mean,
                         float *inv)
{
    for (size_t c = 0; c < f; c++) {
        double m = s1[c] / (double)rows;
        double var = s2[c] / (double)rows - m * m;
        mean[c] = (float)m;
        inv[c] = var > 0.0 ? (float)(1.0 / sqrt(var)) : 0.0f;
    }
}

bool cpu_pipeline(const float *in, float *out, size_t rows, size_t feats)
{
    if (feats > PIPELINE_MAX_FEATURES)
        return false;
    if (rows == 0 || feats == 0)
        return true;
    stats_fn sf;
    xform_fn xf;
    pipe_pick(&sf, &xf);
    double s1[PIPELINE_MAX_FEATURES] = {0}, s2[PIPELINE_MAX_FEATURES] = {0};
    float mean[PIPELINE_MAX_FEATURES], inv[PIPELINE_MAX_FEATURES];
    sf(in, 0, rows, feats, s1, s2);
    finish_stats(s1, s2, rows, feats, mean, inv);
    xf(in, out, 0, rows, feats, mean, inv);
    return true;
}

typedef struct pipe_job {
    const float *in;
    float *out;
    size_t rows, feats;
    stats_fn sf;
    xform_fn xf;
    double *sums;          /* 2 x feats a part: sums, then sums of squares */
    const float *mean, *inv;
} pipe_job;

static void pipe_rows(const pipe_job *j, int part, int nparts, size_t *r0, size_t *r1)
{
    *r0 = j->rows * (size_t)part / (size_t)nparts;
    *r1 = j->rows * (size_t)(part + 1) / (size_t)nparts;
}

static void pipe_stats_part(void *ctx, int part, int nparts)
{
    pipe_job *j = ctx;
    size_t r0, r1;
    pipe_rows(j, part, nparts, &r0, &r1);
    double *s1 = j->sums + (size_t)part * 2 * j->feats, *s2 = s1 + j->feats;
    j->sf(j->in, r0, r1, j->feats, s1, s2);
}

static void pipe_xform_part(void *ctx, int part, int nparts)
{
    pipe_job *j = ctx;
    size_t r0, r1;
    pipe_rows(j, part, nparts, &r0, &r1);
    j->xf(j->in, j->out, r0, r1, j->feats, j->mean, j->inv);
}

bool cpu_pipeline_mt(const float *in, float *out, size_t rows, size_t feats, int threads)
{
    if (feats > PIPELINE_MAX_FEATURES)
        return false;
    if (rows == 0 || feats == 0)
        return true;
    threads = parallel_threads(threads, (double)rows * (double)feats, PIPE_MIN_PER_THREAD);
    if ((size_t)threads > rows)
        threads = (int)rows;
    if (threads <= 1)
        return cpu_pipeline(in, out, rows, feats);
    pipe_job j = {.in = in, .out = out, .rows = rows, .feats = feats};
    pipe_pick(&j.sf, &j.xf);
    j.sums = calloc((size_t)threads * 2 * feats, sizeof *j.sums);
    if (!j.sums)
        return cpu_pipeline(in, out, rows, feats);
    parallel_run(threads, pipe_stats_part, &j);
    double s1[PIPELINE_MAX_FEATURES] = {0}, s2[PIPELINE_MAX_FEATURES] = {0};
    for (int t = 0; t < threads; t++)
        for (size_t c = 0; c < feats; c++) {
            s1[c] += j.sums[(size_t)t * 2 * feats + c];
            s2[c] += j.sums[(size_t)t * 2 * feats + feats + c];
        }
    free(j.sums);
    float mean[PIPELINE_MAX_FEATURES], inv[PIPELINE_MAX_FEATURES];
    finish_stats(s1, s2, rows, feats, mean, inv);
    j.mean = mean;
    j.inv = inv;
    parallel_run(threads, pipe_xform_part, &j);
    return true;
}

/* ---- the reference ------------------------------------------------------------ */

typedef struct ref_job {
    const float *in;
    double *out;
    size_t rows, feats, nblocks;
    double *block;          /* feats a block */
    const double *mean;     /* NULL in the first pass */
    const double *scale;    /* 1 / stdev, or 0 for a constant column */
} ref_job;

/* First pass: block sums of x; second (mean set): block sums of (x - mean)^2. */
static void ref_sums_part(void *ctx, int part, int nparts)
{
    ref_job *j = ctx;
    size_t b0 = j->nblocks * (size_t)part / (size_t)nparts;
    size_t b1 = j->nblocks * (size_t)(part + 1) / (size_t)nparts;
    for (size_t b = b0; b < b1; b++) {
        double *s = j->block + b * j->feats;
        size_t r1 = (b + 1) * REF_BLOCK_ROWS < j->rows ? (b + 1) * REF_BLOCK_ROWS : j->rows;
        for (size_t c = 0; c < j->feats; c++)
            s[c] = 0.0;
        for (size_t r = b * REF_BLOCK_ROWS; r < r1; r++) {
            const float *row = j->in + r * j->feats;
            for (size_t c = 0; c < j->feats; c++) {
                double d = (double)row[c];
                if (j->mean) {
                    d -= j->mean[c];
                    d *= d;
                }
                s[c] += d;
            }
        }
    }
}

static void ref_out_part(void *ctx, int part, int nparts)
{
    ref_job *j = ctx;
    size_t r0 = j->rows * (size_t)part / (size_t)nparts;
    size_t r1 = j->rows * (size_t)(part + 1) / (size_t)nparts;
    for (size_t r = r0; r < r1; r++) {
        const float *row = j->in + r * j->feats;
        double *o = j->out + r * j->feats;
        for (size_t c = 0; c < j->feats; c++) {
            double z = ((double)row[c] - j->mean[c]) * j->scale[c];
            o[c] = z > PIPELINE_CLIP ? PIPELINE_CLIP : z < -PIPELINE_CLIP ? -PIPELINE_CLIP : z;
        }
    }
}

/* Adds the block sums in block order into total (feats values). */
static void ref_total(const ref_job *j, double *total)
{
    for (size_t c = 0; c < j->feats; c++)
        total[c] = 0.0;
    for (size_t b = 0; b < j->nblocks; b++)
        for (size_t c = 0; c < j->feats; c++)
            total[c] += j->block[b * j->feats + c];
}

/* Both statistics passes; mean and stdev hold feats values each. */
static bool ref_stats(ref_job *j, double *mean, double *stdev, int *threads)
{
    j->nblocks = (j->rows + REF_BLOCK_ROWS - 1) / REF_BLOCK_ROWS;
    j->block = calloc(j->nblocks * j->feats, sizeof *j->block);
    if (!j->block)
        return false;
    *threads = parallel_threads(0, (double)j->rows * (double)j->feats, PIPE_MIN_PER_THREAD);
    int sum_threads = (size_t)*threads > j->nblocks ? (int)j->nblocks : *threads;
    j->mean = NULL;
    parallel_run(sum_threads, ref_sums_part, j);
    ref_total(j, mean);
    for (size_t c = 0; c < j->feats; c++)
        mean[c] /= (double)j->rows;
    j->mean = mean;
    parallel_run(sum_threads, ref_sums_part, j);
    ref_total(j, stdev);
    for (size_t c = 0; c < j->feats; c++)
        stdev[c] = sqrt(stdev[c] / (double)j->rows);
    free(j->block);
    j->block = NULL;
    return true;
}

bool pipeline_column_stats(const float *in, size_t rows, size_t feats, double *mean,
                           double *stdev)
{
    if (rows == 0 || feats == 0)
        return true;
    ref_job j = {.in = in, .rows = rows, .feats = feats};
    int threads = 1;
    return ref_stats(&j, mean, stdev, &threads);
}

bool ref_pipeline(const float *in, double *out, size_t rows, size_t feats)
{
    if (rows == 0 || feats == 0)
        return true;
    bool ok = false;
    double *mean = calloc(feats, sizeof *mean);
    double *sd = calloc(feats, sizeof *sd);
    ref_job j = {.in = in, .out = out, .rows = rows, .feats = feats};
    int threads = 1;
    if (!mean || !sd || !ref_stats(&j, mean, sd, &threads))
        goto cleanup;
    for (size_t c = 0; c < feats; c++)
        sd[c] = sd[c] > 0.0 ? 1.0 / sd[c] : 0.0;
    j.mean = mean;
    j.scale = sd;
    if ((size_t)threads > rows)
        threads = (int)rows;
    parallel_run(threads, ref_out_part, &j);
    ok = true;
cleanup:
    free(mean);
    free(sd);
    return ok;
}
