// basics_experiments.cu - kernels of the basics lab's experiments: warp
// divergence, the memory hierarchy, memory fences between blocks.
#include <cuda_runtime.h>
#include <stddef.h>

#include "basics_experiments.h"
#include "kcommon.cuh"

#define BX_BLOCK 256

// ---- 1. warp divergence ---------------------------------------------------------------

__device__ float bx_path_a(float v, int iters)
{
    for (int k = 0; k < iters; ++k) v = fmaf(v, 0.999f, 0.5f);
    return v;
}

__device__ float bx_path_b(float v, int iters)
{
    for (int k = 0; k < iters; ++k) v = sqrtf(fmaf(v, v, 1.0f)) * 0.5f;
    return v;
}

// Half of the elements take each path in every mode; only which threads of
// a warp take which path changes.  A warp whose threads disagree runs both
// loops, one after the other, with the other threads masked off.
extern "C" __global__ void bx_branch(const float *__restrict__ in, float *__restrict__ out,
                                     size_t n, int iters, int mode)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned lane = threadIdx.x & 31u;
    bool b = mode == BASICS_BRANCH_WARPS    ? ((i >> 5) & 1u) != 0
             : mode == BASICS_BRANCH_HALVES ? lane >= 16u
                                            : (lane & 1u) != 0;
    float v = in[i];
    out[i] = b ? bx_path_b(v, iters) : bx_path_a(v, iters);
}

extern "C" cudaError_t basics_branch_run(const float *in, float *out, size_t n, int iters,
                                         basics_branch mode, cudaStream_t stream)
{
    if (n == 0 || iters < 0) return cudaErrorInvalidValue;
    bx_branch<<<(unsigned)k_ceil_div(n, BX_BLOCK), BX_BLOCK, 0, stream>>>(in, out, n, iters, (int)mode);
    return cudaGetLastError();
}

// ---- 2. the memory hierarchy -------------------------------------------------------------

__device__ __forceinline__ void bx_add(float4 &acc, float4 v)
{
    acc.x += v.x;
    acc.y += v.y;
    acc.z += v.z;
    acc.w += v.w;
}

// The same coalesced float4 reads, from wherever level says.  __ldcg
// caches in the L2 only, so the DRAM and L2 rows measure those two levels
// and not the SM's L1.
extern "C" __global__ void bx_levels(const float4 *__restrict__ src, size_t n4, int reps,
                                     int level, float *__restrict__ out)
{
    extern __shared__ float4 tile[];
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t threads = (size_t)gridDim.x * blockDim.x;
    float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (level == BASICS_LEVEL_DRAM || level == BASICS_LEVEL_L2) {
        for (int r = 0; r < reps; ++r)
            for (size_t i = t; i < n4; i += threads) bx_add(acc, __ldcg(src + i));
    } else if (level == BASICS_LEVEL_SHARED) {
        for (int j = threadIdx.x; j < BASICS_TILE4; j += blockDim.x)
            tile[j] = src[((size_t)blockIdx.x * BASICS_TILE4 + j) % n4];
        __syncthreads();
        for (int r = 0; r < reps; ++r)
            for (int j = threadIdx.x; j < BASICS_TILE4; j += blockDim.x) bx_add(acc, tile[j]);
    } else {
        float4 v = src[t % n4];
        for (int r = 0; r < reps; ++r)
            for (int j = threadIdx.x; j < BASICS_TILE4; j += blockDim.x) {
                // an empty asm the compiler must assume changes v: the adds
                // stay adds of a register instead of one multiplication
                asm volatile("" : "+f"(v.x), "+f"(v.y), "+f"(v.z), "+f"(v.w));
                bx_add(acc, v);
            }
    }
    out[t] = (acc.x + acc.y) + (acc.z + acc.w);
}

static size_t bx_levels_smem(basics_level level)
{
    return level == BASICS_LEVEL_SHARED ? BASICS_TILE4 * sizeof(float4) : 0;
}

extern "C" cudaError_t basics_levels_grid(basics_level level, int *blocks)
{
    int sms = 0, per_sm = 0;
    KCHECK(k_sm_count(&sms));
    KCHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, bx_levels,
                                                         BASICS_LEVEL_BLOCK,
                                                         bx_levels_smem(level)));
    *blocks = sms * (per_sm > 0 ? per_sm : 1);
    return cudaSuccess;
}

extern "C" cudaError_t basics_levels_run(const float *src, size_t n4, int reps,
                                         basics_level level, int blocks, float *out,
                                         cudaStream_t stream)
{
    if (n4 == 0 || reps < 1 || blocks < 1) return cudaErrorInvalidValue;
    bx_levels<<<blocks, BASICS_LEVEL_BLOCK, bx_levels_smem(level), stream>>>(
        (const float4 *)src, n4, reps, (int)level, out);
    return cudaGetLastError();
}

// ---- 3. memory fences between blocks -------------------------------------------------------

extern "C" __global__ void bx_fence(float *payload, int *flags, unsigned int *stale, int epoch,
                                    int fence, long long spin)
{
    __shared__ int seen;
    const int b = blockIdx.x, nb = gridDim.x;
    volatile int *vflags = flags;
    // Produce: the payload, then the flag.
    payload[(size_t)b * blockDim.x + threadIdx.x] = (float)epoch;
    if (fence) __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) vflags[b] = epoch;
    // Consume another block's: the flag, then the payload.
    const int c = (b + nb / 2 + 1) % nb;
    if (threadIdx.x == 0) {
        long long k = 0;
        while (vflags[c] != epoch && ++k < spin) {
        }
        seen = vflags[c] == epoch;
    }
    __syncthreads();
    if (!seen) {
        if (threadIdx.x == 0) atomicAdd(&stale[1], 1u);
        return;
    }
    if (fence) __threadfence();
    const volatile float *vp = payload;
    if (vp[(size_t)c * blockDim.x + threadIdx.x] != (float)epoch) atomicAdd(&stale[0], 1u);
}

extern "C" cudaError_t basics_fence_run(float *payload, int *flags, unsigned int *stale,
                                        int blocks, int epoch, int fence, long long spin,
                                        cudaStream_t stream)
{
    if (blocks < 2) return cudaErrorInvalidValue;
    void *args[] = {&payload, &flags, &stale, &epoch, &fence, &spin};
    return cudaLaunchCooperativeKernel((const void *)bx_fence, dim3(blocks), dim3(BX_BLOCK), args,
                                       0, stream);
}
