// basics.cu - the rungs beside the basics lab's exercises: SAXPY launched
// three ways, a histogram with global atomics and one privatised in shared
// memory, and SAXPY over managed memory with on-demand migration, with a
// prefetch, and with explicit copies.
#include <cuda_runtime.h>
#include <stddef.h>

#include "kcommon.cuh"

#define BASICS_BLOCK 256
#define BASICS_BINS 256

// ---- 1. SAXPY: z = a x + y -------------------------------------------------------------

// One thread an element: the grid must cover n, and the bounds check stops
// the threads of the last block that fall past the end.
extern "C" __global__ void saxpy_per_element_kernel(size_t n, float a, const float *__restrict__ x,
                                                    const float *__restrict__ y,
                                                    float *__restrict__ z)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) z[i] = a * x[i] + y[i];
}

// A grid-stride loop: any grid covers any n, each thread taking every
// (gridDim.x * blockDim.x)-th element; neighbouring threads still read
// neighbouring elements, so every warp's loads are coalesced.
extern "C" __global__ void saxpy_grid_stride_kernel(size_t n, float a,
                                                    const float *__restrict__ x,
                                                    const float *__restrict__ y,
                                                    float *__restrict__ z)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        z[i] = a * x[i] + y[i];
}

// Blocks that fill every SM once at the occupancy the runtime computes.
static cudaError_t full_wave(const void *kernel, int block, unsigned *grid)
{
    int sms = 0, per_sm = 0;
    KCHECK(k_sm_count(&sms));
    KCHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block, 0));
    *grid = (unsigned)(sms * (per_sm > 0 ? per_sm : 1));
    return cudaSuccess;
}

static cudaError_t saxpy_one_block(size_t n, float a, const float *x, const float *y, float *z,
                                   void *scratch, size_t scratch_bytes, cudaStream_t s)
{
    (void)scratch;
    (void)scratch_bytes;
    if (n == 0) return cudaErrorInvalidValue;
    saxpy_grid_stride_kernel<<<1, BASICS_BLOCK, 0, s>>>(n, a, x, y, z);
    KCHECK_LAUNCH();
    return cudaSuccess;
}

static cudaError_t saxpy_per_element(size_t n, float a, const float *x, const float *y, float *z,
                                     void *scratch, size_t scratch_bytes, cudaStream_t s)
{
    (void)scratch;
    (void)scratch_bytes;
    if (n == 0) return cudaErrorInvalidValue;
    unsigned grid = (unsigned)k_ceil_div(n, BASICS_BLOCK);
    saxpy_per_element_kernel<<<grid, BASICS_BLOCK, 0, s>>>(n, a, x, y, z);
    KCHECK_LAUNCH();
    return cudaSuccess;
}

static cudaError_t saxpy_grid_stride(size_t n, float a, const float *x, const float *y, float *z,
                                     void *scratch, size_t scratch_bytes, cudaStream_t s)
{
    (void)scratch;
    (void)scratch_bytes;
    if (n == 0) return cudaErrorInvalidValue;
    unsigned grid = 0;
    KCHECK(full_wave((const void *)saxpy_grid_stride_kernel, BASICS_BLOCK, &grid));
    saxpy_grid_stride_kernel<<<grid, BASICS_BLOCK, 0, s>>>(n, a, x, y, z);
    KCHECK_LAUNCH();
    return cudaSuccess;
}

// ---- 2. a 256-bin histogram ------------------------------------------------------------

// Every byte an atomicAdd on one of 256 counters in global memory: the
// atomics on one address are carried out one after another in the L2.
extern "C" __global__ void hist_global_kernel(const unsigned char *__restrict__ data, size_t n,
                                              unsigned int *bins)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        atomicAdd(&bins[data[i]], 1u);
}

// Privatised: each block counts into 256 counters of its own in shared
// memory, reading four bytes a load, then adds its non-zero counts to the
// global bins: 256 global atomics a block instead of one a byte.
extern "C" __global__ void hist_shared_kernel(const unsigned char *__restrict__ data, size_t n,
                                              unsigned int *bins)
{
    __shared__ unsigned int local[BASICS_BINS];
    for (int b = threadIdx.x; b < BASICS_BINS; b += blockDim.x) local[b] = 0;
    __syncthreads();
    size_t words = ((size_t)data & 3u) == 0 ? n / 4 : 0;
    const unsigned int *w = (const unsigned int *)data;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t first = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (size_t i = first; i < words; i += stride) {
        unsigned int v = w[i];
        atomicAdd(&local[v & 0xffu], 1u);
        atomicAdd(&local[(v >> 8) & 0xffu], 1u);
        atomicAdd(&local[(v >> 16) & 0xffu], 1u);
        atomicAdd(&local[v >> 24], 1u);
    }
    for (size_t i = 4 * words + first; i < n; i += stride) atomicAdd(&local[data[i]], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < BASICS_BINS; b += blockDim.x)
        if (local[b]) atomicAdd(&bins[b], local[b]);
}

static cudaError_t hist_launch(const void *kernel, const unsigned char *data, size_t n,
                               unsigned int *bins, cudaStream_t s)
{
    if (n == 0) return cudaErrorInvalidValue;
    unsigned grid = 0;
    KCHECK(full_wave(kernel, BASICS_BLOCK, &grid));
    KCHECK(cudaMemsetAsync(bins, 0, BASICS_BINS * sizeof(unsigned int), s));
    void *args[] = {(void *)&data, (void *)&n, (void *)&bins};
    KCHECK(cudaLaunchKernel(kernel, dim3(grid), dim3(BASICS_BLOCK), args, 0, s));
    return cudaSuccess;
}

static cudaError_t hist_global(const unsigned char *data, size_t n, unsigned int *bins,
                               cudaStream_t s)
{
    return hist_launch((const void *)hist_global_kernel, data, n, bins, s);
}

static cudaError_t hist_shared(const unsigned char *data, size_t n, unsigned int *bins,
                               cudaStream_t s)
{
    return hist_launch((const void *)hist_shared_kernel, data, n, bins, s);
}

// ---- 3. SAXPY over managed memory ---------------------------------------------------------
// x and y are managed memory the CPU wrote last, so their pages sit in host
// memory when each of these starts; z is ordinary device memory.

// The kernel touches the pages where they are: each first touch faults and
// the driver migrates the page (or a group of them) to the GPU.
static cudaError_t um_on_demand(size_t n, float a, const float *x, const float *y, float *z,
                                void *scratch, size_t scratch_bytes, cudaStream_t s)
{
    return saxpy_grid_stride(n, a, x, y, z, scratch, scratch_bytes, s);
}

// cudaMemPrefetchAsync moves both arrays to the GPU in bulk, in stream
// order, before the kernel runs: no faults.
static cudaError_t um_prefetch(size_t n, float a, const float *x, const float *y, float *z,
                               void *scratch, size_t scratch_bytes, cudaStream_t s)
{
    if (n == 0) return cudaErrorInvalidValue;
    int dev = 0;
    KCHECK(cudaGetDevice(&dev));
    cudaMemLocation to = {};
    to.type = cudaMemLocationTypeDevice;
    to.id = dev;
    KCHECK(cudaMemPrefetchAsync(x, n * sizeof(float), to, 0, s));
    KCHECK(cudaMemPrefetchAsync(y, n * sizeof(float), to, 0, s));
    return saxpy_grid_stride(n, a, x, y, z, scratch, scratch_bytes, s);
}

// Explicit copies into ordinary device memory (scratch), then the kernel
// on the copies; the managed pages stay where they are.
static cudaError_t um_copy(size_t n, float a, const float *x, const float *y, float *z,
                           void *scratch, size_t scratch_bytes, cudaStream_t s)
{
    if (n == 0) return cudaErrorInvalidValue;
    if (!scratch || scratch_bytes < 2 * n * sizeof(float)) return cudaErrorInvalidValue;
    float *dx = (float *)scratch, *dy = dx + n;
    KCHECK(cudaMemcpyAsync(dx, x, n * sizeof(float), cudaMemcpyDefault, s));
    KCHECK(cudaMemcpyAsync(dy, y, n * sizeof(float), cudaMemcpyDefault, s));
    return saxpy_grid_stride(n, a, dx, dy, z, NULL, 0, s);
}

// ---- tables ---------------------------------------------------------------------------------

static const shipped_kernel basics_rungs[] = {
    {.name = "saxpy_one_block", .problem = "saxpy", .saxpy = saxpy_one_block},
    {.name = "saxpy_per_element", .problem = "saxpy", .saxpy = saxpy_per_element},
    {.name = "saxpy_grid_stride", .problem = "saxpy", .saxpy = saxpy_grid_stride},
    {.name = "hist_global", .problem = "histogram", .hist = hist_global},
    {.name = "hist_shared", .problem = "histogram", .hist = hist_shared},
    {.name = "um_on_demand", .problem = "managed", .saxpy = um_on_demand},
    {.name = "um_prefetch", .problem = "managed", .saxpy = um_prefetch},
    {.name = "um_copy", .problem = "managed", .saxpy = um_copy},
};

extern "C" const shipped_kernel *basics_table(size_t *count)
{
    *count = sizeof basics_rungs / sizeof basics_rungs[0];
    return basics_rungs;
}

static const raw_kernel basics_raw[] = {
    {.name = "saxpy_one_block", .func = (const void *)saxpy_grid_stride_kernel, .sig = "lfppp",
     .doc = "(n, a, x, y, z): z = a x + y with a grid-stride loop; grid 1, block 256"},
    {.name = "saxpy_per_element", .func = (const void *)saxpy_per_element_kernel, .sig = "lfppp",
     .doc = "(n, a, x, y, z): z = a x + y, one element a thread; block 256, grid ceil(n/256)"},
    {.name = "saxpy_grid_stride", .func = (const void *)saxpy_grid_stride_kernel, .sig = "lfppp",
     .doc = "(n, a, x, y, z): z = a x + y with a grid-stride loop; any grid, block 256"},
    {.name = "hist_global", .func = (const void *)hist_global_kernel, .sig = "plp",
     .doc = "(data, n, bins): 256 bins of n bytes, global atomics; bins zeroed first; any grid"},
    {.name = "hist_shared", .func = (const void *)hist_shared_kernel, .sig = "plp",
     .doc = "(data, n, bins): 256 bins of n bytes, privatised per block; bins zeroed first; any grid"},
    {.name = "um_on_demand", .func = (const void *)saxpy_grid_stride_kernel, .sig = "lfppp",
     .doc = "(n, a, x, y, z): the grid-stride SAXPY, run straight on managed memory"},
    {.name = "um_prefetch", .func = (const void *)saxpy_grid_stride_kernel, .sig = "lfppp",
     .doc = "(n, a, x, y, z): the grid-stride SAXPY, after prefetching x and y"},
    {.name = "um_copy", .func = (const void *)saxpy_grid_stride_kernel, .sig = "lfppp",
     .doc = "(n, a, x, y, z): the grid-stride SAXPY, on device copies of x and y"},
};

extern "C" const raw_kernel *basics_raw_table(size_t *count)
{
    *count = sizeof basics_raw / sizeof basics_raw[0];
    return basics_raw;
}
