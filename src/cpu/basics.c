#include "cpu/basics.h"

#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "cpu/parallel.h"

/* Fewer elements than this per thread do not pay for the thread. */
#define BASICS_MIN_PER_THREAD 262144.0

void cpu_saxpy(size_t count, float alpha, const float *x_in, const float *y_in, float *z_out)
{
    /* restrict-free but simple enough for the compiler to vectorise */
    for (size_t i = 0; i < count; i++)
        z_out[i] = alpha * x_in[i] + y_in[i];
}

typedef struct saxpy_job {
    size_t n;
    float a;
    const float *x, *y;
    float *z;
} saxpy_job;

static void saxpy_part(void *ctx, int part, int nparts)
{
    const saxpy_job *j = ctx;
    size_t i0 = j->n * (size_t)part / (size_t)nparts;
    size_t i1 = j->n * (size_t)(part + 1) / (size_t)nparts;
    cpu_saxpy(i1 - i0, j->a, j->x + i0, j->y + i0, j->z + i0);
}

void cpu_saxpy_mt(size_t count, float alpha, const float *x_in, const float *y_in, float *z_out,
                  int threads)
{
    threads = parallel_threads(threads, (double)count, BASICS_MIN_PER_THREAD);
    saxpy_job j = {.n = count, .a = alpha, .x = x_in, .y = y_in, .z = z_out};
    parallel_run(threads, saxpy_part, &j);
}

void ref_saxpy(size_t count, float alpha, const float *x_in, const float *y_in, double *out)
{
    for (size_t i = 0; i < count; i++)
        out[i] = (double)alpha * (double)x_in[i] + (double)y_in[i];
}

void cpu_histogram(const uint8_t *data, size_t count, uint32_t bins[BASICS_BINS])
{
    /* four sets of counters, so that runs of equal bytes do not wait on
     * one counter's previous increment */
    uint32_t c[4][BASICS_BINS];
    memset(c, 0, sizeof c);
    size_t i = 0;
    for (; i + 4 <= count; i += 4) {
        c[0][data[i]]++;
        c[1][data[i + 1]]++;
        c[2][data[i + 2]]++;
        c[3][data[i + 3]]++;
    }
    for (; i < count; i++)
        c[0][data[i]]++;
    for (int b = 0; b < BASICS_BINS; b++)
        bins[b] = c[0][b] + c[1][b] + c[2][b] + c[3][b];
}

#define HIST_MAX_THREADS 256

typedef struct hist_job {
    const uint8_t *data;
    size_t n;
    uint32_t (*part_bins)[BASICS_BINS];
} hist_job;

static void hist_part(void *ctx, int part, int nparts)
{
    const hist_job *j = ctx;
    size_t i0 = j->n * (size_t)part / (size_t)nparts;
    size_t i1 = j->n * (size_t)(part + 1) / (size_t)nparts;
    cpu_histogram(j->data + i0, i1 - i0, j->part_bins[part]);
}

void cpu_histogram_mt(const uint8_t *data, size_t count, uint32_t bins[BASICS_BINS], int threads)
{
    threads = parallel_threads(threads, (double)count, BASICS_MIN_PER_THREAD);
    if (threads > HIST_MAX_THREADS)
        threads = HIST_MAX_THREADS;
    uint32_t (*part_bins)[BASICS_BINS] = malloc((size_t)threads * sizeof *part_bins);
    if (!part_bins) {
        cpu_histogram(data, count, bins);
        return;
    }
    hist_job j = {data, count, part_bins};
    parallel_run(threads, hist_part, &j);
    memset(bins, 0, BASICS_BINS * sizeof *bins);
    for (int t = 0; t < threads; t++)
        for (int b = 0; b < BASICS_BINS; b++)
            bins[b] += part_bins[t][b];
    free(part_bins);
}

void basics_fill_bytes(uint8_t *data, size_t count, uint64_t seed)
{
    rng r;
    rng_seed(&r, seed ^ 0x6a09e667f3bcc908ull);
    size_t i = 0;
    for (; i + 8 <= count; i += 8) {
        uint64_t v = rng_next(&r);
        memcpy(data + i, &v, 8);
    }
    if (i < count) {
        uint64_t v = rng_next(&r);
        memcpy(data + i, &v, count - i);
    }
}
