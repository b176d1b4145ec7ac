/* pipeline.h - the data-pipeline lab's shipped steps, seen from C.
 *
 * The lab's reference solution on the GPU: each step of the pipeline
 * (src/cpu/prep_state.h says what each computes) as a launcher over the
 * device buffers of a pipe_bufs, with the layout of a prep_state: every
 * column `stride` elements long, the numeric columns one after another, X
 * and Y column-major with leading dimension stride.  Steps after the
 * filter read the kept row count from *count in device memory; those that
 * hand a row count to a library (binning and groupby: CUB's radix sort;
 * gemm: cuBLAS) copy it to the host first and wait for it.
 *
 *   fill         per-column median by radix selection: three passes of
 *                shared-memory histograms over 11, 11 and 10 bits of the
 *                ordered keys, then one pass filling the gaps
 *   filter       cub::DeviceSelect::If over row numbers (the count lands in
 *                *count), then one gather of every column
 *   transform    one thread a row: log1pf and the clip, hour and day of week
 *   standardize  column sums and sums of squares in double (block
 *                reductions, one atomicAdd a block), then the z-scores
 *   binning      cub::DeviceRadixSort::SortKeys of the kept fares, the
 *                edges picked from the sorted copy, each fare's bin
 *   encode       a histogram of zones privatised in shared memory, then
 *                frequencies and the one-hot payment columns
 *   groupby      cub::DeviceRadixSort::SortPairs by zone (14 bits), then
 *                cub::DeviceReduce::ReduceByKey of (label, 1) in double,
 *                scattered into the per-zone means, then the target encoding
 *   gemm         cublasSgemm: Y = X W on the kept rows
 *
 * Every launcher enqueues on stream s and returns the first error.  The
 * kernels have C names (pipe_*) for timelines and Nsight Compute. */
#ifndef CUDALAB_KERNELS_PIPELINE_H
#define CUDALAB_KERNELS_PIPELINE_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The shapes of cpu/prep_data.h (the engine checks they agree). */
#define PIPE_NUM 8
#define PIPE_SKEWED 4
#define PIPE_PAY 6
#define PIPE_ZONES 10000
#define PIPE_BINS 16
#define PIPE_FEATURES 19
#define PIPE_HIDDEN 16
#define PIPE_LOG_CLIP 5.0f
#define PIPE_CUTOFF_S (274 * 86400)

/* The steps, numbered as cpu/prep_state.h's prep_step. */
enum { PIPE_FILL = 1, PIPE_FILTER, PIPE_TRANSFORM, PIPE_STANDARDIZE, PIPE_BINNING,
       PIPE_ENCODE, PIPE_GROUPBY, PIPE_GEMM };

typedef struct pipe_bufs {
    long long n, stride;
    float *num;                  /* the table as loaded: PIPE_NUM columns, then ... */
    int32_t *ts, *pay, *zone;
    float *label;
    float *median, *filled;      /* fill */
    int32_t *count;              /* filter: rows kept (one int) */
    float *kept_num;
    int32_t *kept_ts, *kept_pay, *kept_zone;
    float *kept_label;
    float *t;                    /* transform */
    float *stats;                /* standardize: 2 PIPE_NUM floats */
    float *edges;                /* binning: PIPE_BINS - 1 floats */
    int32_t *counts;             /* encode: PIPE_ZONES */
    float *gmean;                /* groupby: PIPE_ZONES */
    float *X, *W, *Y;
    void *scratch;               /* pipe_scratch_bytes(n) bytes */
    size_t scratch_bytes;
} pipe_bufs;

/* Scratch the shipped steps need for n rows (asks CUB: call in the worker).
 * 0 when CUB cannot say (no device). */
size_t pipe_scratch_bytes(long long n);
/* Shipped step PIPE_FILL .. PIPE_GEMM. */
cudaError_t pipe_step(int step, const pipe_bufs *b, cudaStream_t stream);
/* The kept row count, copied to the host (waits for s). */
cudaError_t pipe_kept_rows(const pipe_bufs *b, int *m, cudaStream_t stream);
/* Y = X W on the first m rows, with cuBLAS (the hand-off every
 * implementation of the steps ends with). */
cudaError_t pipe_gemm_rows(const pipe_bufs *b, int m, cudaStream_t stream);
/* Fills count 32-bit words at p with bits (the poison pattern). */
cudaError_t pipe_poison(void *p, size_t count, uint32_t bits, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
