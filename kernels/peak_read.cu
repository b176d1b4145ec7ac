/* peak_read.cu - read-only streams at full speed (see peak_read.h). */
#include "peak_read.h"

#define PEAK_THREADS 256

/* The block's sum of each thread's acc into *slot, so that no read can be
 * optimised away. */
__device__ void block_store(float acc, float *slot)
{
    __shared__ float partial[PEAK_THREADS / 32];
    for (int off = 16; off > 0; off >>= 1)
        acc += __shfl_down_sync(0xffffffffu, acc, off);
    if ((threadIdx.x & 31) == 0)
        partial[threadIdx.x >> 5] = acc;
    __syncthreads();
    if (threadIdx.x == 0) {
        float t = 0.0f;
        for (int w = 0; w < PEAK_THREADS / 32; w++)
            t += partial[w];
        *slot = t;
    }
}

/* Each thread sums its share of float4 values, U loads in flight at a
 * time (streaming loads that skip the caches when STREAM); one float per
 * block leaves the kernel. */
template <int U, bool STREAM>
__global__ void __launch_bounds__(PEAK_THREADS) peak_read(const float4 *__restrict__ src,
                                                          size_t n4, float *sink)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0.0f;
    for (; i + (U - 1) * stride < n4; i += U * stride) {
        float4 v[U];
#pragma unroll
        for (int u = 0; u < U; u++)
            v[u] = STREAM ? __ldcs(src + i + u * stride) : __ldg(src + i + u * stride);
#pragma unroll
        for (int u = 0; u < U; u++)
            acc += (v[u].x + v[u].y) + (v[u].z + v[u].w);
    }
    for (; i < n4; i += stride) {
        float4 v = src[i];
        acc += (v.x + v.y) + (v.z + v.w);
    }
    block_store(acc, &sink[blockIdx.x]);
}

/* Tiles of TILE float4s handed out by a counter (sink's first word), one
 * tile asked ahead: a multiprocessor that gets more bandwidth reads more
 * tiles, and every block reads contiguous runs. */
template <int U>
__global__ void __launch_bounds__(PEAK_THREADS) peak_read_tiles(const float4 *__restrict__ src,
                                                                size_t n4, float *sink)
{
    constexpr unsigned TILE = PEAK_THREADS * U;
    __shared__ unsigned long long next_tile;
    unsigned long long *counter = reinterpret_cast<unsigned long long *>(sink);
    const unsigned long long ntiles = n4 / TILE;
    float acc = 0.0f;
    if (threadIdx.x == 0)
        next_tile = atomicAdd(counter, 1ull);
    __syncthreads();
    unsigned long long t = next_tile;
    while (t < ntiles) {
        __syncthreads();
        if (threadIdx.x == 0)
            next_tile = atomicAdd(counter, 1ull);
        const float4 *p = src + t * TILE + threadIdx.x;
        float4 v[U];
#pragma unroll
        for (int u = 0; u < U; u++)
            v[u] = __ldg(p + u * PEAK_THREADS);
#pragma unroll
        for (int u = 0; u < U; u++)
            acc += (v[u].x + v[u].y) + (v[u].z + v[u].w);
        __syncthreads();
        t = next_tile;
    }
    if (blockIdx.x == 0)
        for (size_t i = ntiles * TILE + threadIdx.x; i < n4; i += PEAK_THREADS) {
            float4 v = src[i];
            acc += (v.x + v.y) + (v.z + v.w);
        }
    block_store(acc, &sink[2 + blockIdx.x]);
}

typedef void (*peak_kernel)(const float4 *, size_t, float *);

/* The ways of reading tried; the fastest counts. */
static const peak_kernel kinds[] = {peak_read<8, true>,     peak_read<8, false>,
                                    peak_read<4, false>,    peak_read<16, false>,
                                    peak_read_tiles<4>,     peak_read_tiles<8>};
#define TILED_FROM 4   /* kinds from here on take their tiles from a counter */
#define NKINDS ((int)(sizeof kinds / sizeof kinds[0]))

/* Blocks that are resident at once, times per: a grid that covers the
 * device exactly (per 1) or several times over. */
static int blocks_of(int kind, int per)
{
    int dev = 0, sms = 0, per_sm = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kinds[kind], PEAK_THREADS, 0) !=
            cudaSuccess)
        return 0;
    return sms * per_sm * per;
}

extern "C" int peak_read_kinds(void)
{
    return 2 * NKINDS;
}

extern "C" size_t peak_read_sink_floats(void)
{
    int most = 0;
    for (int k = 0; k < NKINDS; k++) {
        int b = blocks_of(k, 4);
        most = b > most ? b : most;
    }
    return 2 + (most > 0 ? (size_t)most : 1);
}

extern "C" cudaError_t launch_peak_read(const void *src, size_t n4, float *sink, int kind,
                                        cudaStream_t stream)
{
    if (kind < 0 || kind >= 2 * NKINDS)
        return cudaErrorInvalidValue;
    int k = kind % NKINDS, blocks = blocks_of(k, kind < NKINDS ? 1 : 4);
    if (blocks <= 0) {
        cudaError_t err = cudaGetLastError();
        return err != cudaSuccess ? err : cudaErrorInvalidConfiguration;
    }
    if (k >= TILED_FROM) {
        cudaError_t err = cudaMemsetAsync(sink, 0, sizeof(unsigned long long), stream);
        if (err != cudaSuccess)
            return err;
    }
    kinds[k]<<<blocks, PEAK_THREADS, 0, stream>>>((const float4 *)src, n4, sink);
    return cudaGetLastError();
}
