/* basics_experiments.h - the kernels of the basics lab's experiments, seen
 * from C.
 *
 * Three small kernels, each showing one effect the lesson measures: a
 * branch taken by whole warps or by parts of each warp (divergence), the
 * same reads served by DRAM, the L2, shared memory or registers (the memory
 * hierarchy), and a message passed between blocks with and without
 * __threadfence() (memory fences).  The occupancy experiment's kernels are
 * not here: they are compiled at run time with NVRTC from
 * labs/basics/occupancy.cu, so that ptxas's own report comes with them.
 * The __global__ functions have C linkage (bx_branch, bx_levels, bx_fence).
 *
 * Every launcher enqueues on stream s and returns the launch's error.
 * Nothing here touches CUDA until a launcher is called. */
#ifndef CUDALAB_KERNELS_BASICS_EXPERIMENTS_H
#define CUDALAB_KERNELS_BASICS_EXPERIMENTS_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Which threads take path B of the divergence kernel (the rest take A). */
typedef enum basics_branch {
    BASICS_BRANCH_WARPS,   /* every other warp: each warp runs one path */
    BASICS_BRANCH_HALVES,  /* the upper 16 lanes of every warp */
    BASICS_BRANCH_LANES,   /* the odd lanes of every warp */
} basics_branch;

/* out[i] = path_A(in[i]) or path_B(in[i]), iters steps each:
 *   A: v = fmaf(v, 0.999f, 0.5f)
 *   B: v = sqrtf(fmaf(v, v, 1.0f)) * 0.5f
 * half the elements on each path in every mode; 256 threads a block. */
cudaError_t basics_branch_run(const float *in, float *out, size_t n, int iters,
                              basics_branch mode, cudaStream_t stream);

/* Where the memory-hierarchy kernel reads from. */
typedef enum basics_level {
    BASICS_LEVEL_DRAM,     /* src (larger than the L2), read straight through the L2 */
    BASICS_LEVEL_L2,       /* src (a quarter of the L2), read again and again */
    BASICS_LEVEL_SHARED,   /* a tile of src each block loads once into shared memory */
    BASICS_LEVEL_REGS,     /* one float4 each thread loads once into registers */
} basics_level;

#define BASICS_TILE4 2048   /* float4s in a block's shared tile: 32 KiB */
#define BASICS_LEVEL_BLOCK 256

/* The blocks the levels kernel runs with at level: a full wave at the
 * occupancy the runtime computes. */
cudaError_t basics_levels_grid(basics_level level, int *blocks);
/* Reads float4s in the same coalesced pattern from the level, reps passes,
 * adding them up; out[t] (one float a thread, blocks x 256 of them) is the
 * thread's sum.  DRAM and L2: thread t reads src[t], src[t + T], ... below
 * n4 (T threads in all).  Shared: block b loads src[(b * BASICS_TILE4 + j)
 * % n4] for j < BASICS_TILE4 and thread t reads its tile[t], tile[t + 256],
 * ...  Registers: thread t loads src[t % n4] once and adds it
 * BASICS_TILE4 / 256 times a pass. */
cudaError_t basics_levels_run(const float *src, size_t n4, int reps, basics_level level,
                              int blocks, float *out, cudaStream_t stream);

/* One message a block, between blocks: block b writes 256 floats equal to
 * epoch into payload[b * 256 ...], then sets flags[b] = epoch; it then
 * waits (at most spin steps) for flags[c], c = (b + blocks / 2 + 1) %
 * blocks, to read epoch, reads block c's payload and adds to stale[0] the
 * floats that were not epoch, or 1 to stale[1] when the flag never came.
 * With fence, __threadfence() orders the payload before the flag on both
 * sides; without, nothing does.  Launched cooperatively so that every
 * block is resident: blocks is at most the device's SM count. */
cudaError_t basics_fence_run(float *payload, int *flags, unsigned int *stale, int blocks,
                             int epoch, int fence, long long spin, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
