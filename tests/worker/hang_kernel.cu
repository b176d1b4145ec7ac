// hang_kernel.cu - a reduce-shaped kernel that never finishes, for testing
// that the supervisor's time limit kills a worker stuck on the GPU.
#include <cuda_runtime.h>
#include <stddef.h>

#include "kernels.h"

__global__ void hang_forever_kernel(volatile float *out)
{
    while (out[0] == out[0])   // never false for the finite value written below
        ;
}

extern "C" cudaError_t test_launch_hang_forever(const float *in, size_t n, float *out,
                                                void *scratch, size_t scratch_bytes,
                                                cudaStream_t s)
{
    (void)in;
    (void)n;
    (void)scratch;
    (void)scratch_bytes;
    cudaError_t err = cudaMemsetAsync(out, 0, sizeof(float), s);
    if (err != cudaSuccess)
        return err;
    hang_forever_kernel<<<1, 1, 0, s>>>(out);
    return cudaGetLastError();
}

static const shipped_kernel hang_table[] = {
    {"test_hang_forever", "reduce_sum", 0, test_launch_hang_forever, NULL, NULL},
};

extern "C" const shipped_kernel *test_hang_table(size_t *n)
{
    *n = sizeof hang_table / sizeof hang_table[0];
    return hang_table;
}
