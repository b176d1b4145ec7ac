/* peak_read.cu - a read-only stream at full speed (see peak_read.h). */
#include "peak_read.h"

#define PEAK_THREADS 256
#define PEAK_UNROLL 8

/* Each thread sums its share of float4 values, PEAK_UNROLL loads in flight
 * at a time; one float per block leaves the kernel. */
__global__ void __launch_bounds__(PEAK_THREADS) peak_read(const float4 *__restrict__ src,
                                                           size_t n4, float *sink)
{
    __shared__ float partial[PEAK_THREADS / 32];
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0.0f;
    for (; i + (PEAK_UNROLL - 1) * stride < n4; i += PEAK_UNROLL * stride) {
        float4 v[PEAK_UNROLL];
#pragma unroll
        for (int u = 0; u < PEAK_UNROLL; u++)
            v[u] = __ldcs(src + i + u * stride);
#pragma unroll
        for (int u = 0; u < PEAK_UNROLL; u++)
            acc += (v[u].x + v[u].y) + (v[u].z + v[u].w);
    }
    for (; i < n4; i += stride) {
        float4 v = __ldcs(src + i);
        acc += (v.x + v.y) + (v.z + v.w);
    }
    for (int off = 16; off > 0; off >>= 1)
        acc += __shfl_down_sync(0xffffffffu, acc, off);
    if ((threadIdx.x & 31) == 0)
        partial[threadIdx.x >> 5] = acc;
    __syncthreads();
    if (threadIdx.x == 0) {
        float t = 0.0f;
        for (int w = 0; w < PEAK_THREADS / 32; w++)
            t += partial[w];
        sink[blockIdx.x] = t;
    }
}

static int resident_blocks(void)
{
    int dev = 0, sms = 0, per_sm = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, peak_read, PEAK_THREADS, 0) !=
            cudaSuccess)
        return 0;
    return sms * per_sm;
}

extern "C" size_t peak_read_sink_floats(void)
{
    int b = resident_blocks();
    return b > 0 ? (size_t)b : 1;
}

extern "C" cudaError_t launch_peak_read(const void *src, size_t n4, float *sink, cudaStream_t s)
{
    int blocks = resident_blocks();
    if (blocks <= 0) {
        cudaError_t err = cudaGetLastError();
        return err != cudaSuccess ? err : cudaErrorInvalidConfiguration;
    }
    peak_read<<<blocks, PEAK_THREADS, 0, s>>>((const float4 *)src, n4, sink);
    return cudaGetLastError();
}
