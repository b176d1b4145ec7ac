// reduce.cuh - what the reduce files share (not part of the C contract).
//
//   reduce.cu             rungs 1-5 (a tree a block, run in passes), CUB, and
//                         the rung and raw tables of the reduction
//   reduce_vectorized.cu  rung 6: one pass, 16-byte loads; its tuning variants
#ifndef CUDALAB_REDUCE_CUH
#define CUDALAB_REDUCE_CUH

#include "kcommon.cuh"
#include "ktune.h"

// Partial sums rung 6 may write to scratch: its blocks at most.
#define VEC_MAX_BLOCKS 4096u

// Who reads which part of the input in rung 6 (reduce_vectorized.cu).
enum vec_sched { VEC_GRID_STRIDE, VEC_EVEN_SHARE, VEC_DYNAMIC };

// The shipped configuration of rung 6: threads a block, loads in flight,
// schedule, L1 bypass; its threads a block as text, for the raw table.
#define VEC_SHIPPED 1024, 4, VEC_DYNAMIC, false
#define VEC_SHIPPED_THREADS "1024"

// Sum over the warp, valid in lane 0.
__device__ __forceinline__ float warp_sum(float v)
{
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    return v;
}

// Sum over the block, valid in thread 0.  blockDim.x: a multiple of 32.
// Every thread must call it.  It opens with a barrier, so a second call may
// follow the first at once.
__device__ __forceinline__ float block_sum(float v)
{
    __shared__ float warp_sums[32];
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    v = warp_sum(v);
    __syncthreads();
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < (blockDim.x + 31) / 32 ? warp_sums[lane] : 0.0f;
        v = warp_sum(v);
    }
    return v;
}

// Rung 6's launcher, and its kernel in the shipped configuration (for the
// raw table).
extern "C" cudaError_t launch_reduce_vectorized(const float *in, size_t n, float *out,
                                                void *scratch, size_t bytes, cudaStream_t stream);
const void *k_reduce_vectorized_kernel(void);

#endif
