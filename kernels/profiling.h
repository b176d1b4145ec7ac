/* profiling.h - the kernels of the profiling lab, seen from C.
 *
 * Small kernels, each showing one effect the profiling experiments
 * measure: bandwidth against block size, coalesced against strided reads,
 * the layout of a matrix-vector product, shared-memory bank conflicts in a
 * transpose, arithmetic intensity for the roofline.  The __global__
 * functions have C linkage, so their names read the same on a timeline, in
 * Nsight Systems and in `ncu --kernel-name` (prof_scale, prof_fma,
 * prof_stride, prof_gemv_row, prof_gemv_col, prof_gemv_warp,
 * prof_copy_tile, prof_transpose_naive, prof_transpose_tiled, prof_transpose_padded,
 * prof_copy, prof_first).
 *
 * Every launcher enqueues on stream s and returns the launch's error
 * (cudaGetLastError after the launch).  Nothing here touches CUDA until a
 * launcher is called. */
#ifndef CUDALAB_KERNELS_PROFILING_H
#define CUDALAB_KERNELS_PROFILING_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#include "kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PROFILING_TILE 32

/* y[i] = a * x[i], one element per thread, block threads per block. */
cudaError_t profiling_scale(const float *x, float *y, size_t n, float a, int block, cudaStream_t stream);
/* Resident blocks per SM of the scale kernel at block threads per block
 * (cudaOccupancyMaxActiveBlocksPerMultiprocessor). */
cudaError_t profiling_scale_occupancy(int block, int *blocks_per_sm);

/* out[i] = (a0 + a1) + (a2 + a3) where a0..a3 start at v, v+1, v+2, v+3
 * (v = in[i]) and each takes iters steps a = fmaf(a, 0.5f, v):
 * PROFILING_FMA_FLOPS(iters) FLOPs and 8 bytes of traffic per element. */
#define PROFILING_FMA_FLOPS(iters) (8.0 * (double)(iters) + 6.0)
cudaError_t profiling_fma(const float *in, float *out, size_t n, int iters, cudaStream_t stream);

/* out[i] = in[(i * stride) & (nin - 1)] for i < nout; nin a power of two. */
cudaError_t profiling_stride(const float *in, size_t nin, float *out, size_t nout, int stride,
                             cudaStream_t stream);

/* y = A x for an n x n matrix.  row: A row-major, one thread per row (a
 * warp's loads are n floats apart); col: A stored column-major, one thread
 * per row (a warp's loads are adjacent); warp: A row-major, one warp per
 * row (adjacent loads, shuffle reduction). */
cudaError_t profiling_gemv_row(const float *A, const float *x, float *y, int n, cudaStream_t stream);
cudaError_t profiling_gemv_col(const float *A, const float *x, float *y, int n, cudaStream_t stream);
cudaError_t profiling_gemv_warp(const float *A, const float *x, float *y, int n, cudaStream_t stream);

/* out (cols x rows) = in (rows x cols) transposed, both row-major.  naive
 * reads rows and writes columns straight to global memory; tiled stages a
 * 32 x 32 tile in shared memory (column reads of the tile hit one bank);
 * padded gives the tile one extra column so they do not. */
cudaError_t profiling_transpose_naive(const float *in, float *out, int rows, int cols,
                                      cudaStream_t stream);
cudaError_t profiling_transpose_tiled(const float *in, float *out, int rows, int cols,
                                      cudaStream_t stream);
cudaError_t profiling_transpose_padded(const float *in, float *out, int rows, int cols,
                                       cudaStream_t stream);

/* out[i] = in[i], one thread per element. */
cudaError_t profiling_copy(const float *in, float *out, size_t n, cudaStream_t stream);

/* out = in (rows x cols, row-major) with the transposes' blocks and four
 * elements a thread: the bandwidth a transpose can hope for. */
cudaError_t profiling_copy_tile(const float *in, float *out, int rows, int cols, cudaStream_t stream);

/* Writes 1.0f to out[0]; launched by nothing else, so its first launch in
 * a process pays for loading it. */
cudaError_t profiling_first_launch(float *out, cudaStream_t stream);

/* The kernels above as raw kernels for the Lua GPU API (kernels.h). */
const raw_kernel *kernels_profiling_raw(size_t *count);

#ifdef __cplusplus
}
#endif

#endif
