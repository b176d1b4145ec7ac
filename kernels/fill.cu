// fill.cu - writes one 32-bit pattern over a device buffer: how the engine
// poisons an output before a checked run without building the pattern on
// the host and copying it over.

#include "kcommon.cuh"
#include "kernels.h"

__global__ void fill_u32_kernel(uint32_t *out, uint32_t v, size_t n)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        out[i] = v;
}

extern "C" cudaError_t kernels_fill_u32(uint32_t *out, uint32_t v, size_t n, cudaStream_t stream)
{
    if (n == 0)
        return cudaSuccess;
    if (!out)
        return cudaErrorInvalidValue;
    int sms = 0;
    KCHECK(k_sm_count(&sms));
    const size_t blocks = k_ceil_div(n, 256);
    const unsigned grid = (unsigned)(blocks < (size_t)sms * 8 ? blocks : (size_t)sms * 8);
    fill_u32_kernel<<<grid, 256, 0, stream>>>(out, v, n);
    KCHECK_LAUNCH();
    return cudaSuccess;
}
