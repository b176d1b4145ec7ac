// faults.cu - kernels that break on purpose, for testing how a broken CUDA
// context is reported.  Not a lab rung: nothing in the registry lists them;
// tests reach them through faults_table() and faults_raw_table().
#include <cuda_runtime.h>
#include <stddef.h>

#include "kernels.h"

// 2^36 floats (256 GiB) past the buffer: far outside any allocation.
#define FAULT_OFFSET (1LL << 36)

__global__ void fault_oob_write_kernel(float *p, long long offset)
{
    if (blockIdx.x == 0 && threadIdx.x == 0) p[offset] = 1.0f;
}

// A reduce-shaped launcher whose kernel writes far outside out.
extern "C" cudaError_t launch_fault_oob_write(const float *in, size_t n, float *out, void *scratch,
                                              size_t scratch_bytes, cudaStream_t s)
{
    (void)in;
    (void)n;
    (void)scratch;
    (void)scratch_bytes;
    fault_oob_write_kernel<<<1, 32, 0, s>>>(out, FAULT_OFFSET);
    return cudaGetLastError();
}

static const shipped_kernel faults[] = {
    {.name = "fault_oob_write", .problem = "reduce_sum", .reduce = launch_fault_oob_write},
};

static const raw_kernel faults_raw[] = {
    {.name = "fault_oob_write", .func = (const void *)fault_oob_write_kernel, .sig = "pl",
     .doc = "(p, offset): thread 0 writes p[offset]; any grid and block"},
};

extern "C" const shipped_kernel *faults_table(size_t *n)
{
    *n = sizeof faults / sizeof faults[0];
    return faults;
}

extern "C" const raw_kernel *faults_raw_table(size_t *n)
{
    *n = sizeof faults_raw / sizeof faults_raw[0];
    return faults_raw;
}
