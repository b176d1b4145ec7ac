// Expected diagnosis: kernel_fault (a failed assert), naming the expression and
// this file's line.  The kernel asserts that every index it sees is below
// n / 2, which the second half of the threads breaks.
// Problem reduce_sum; size 2^20.
#include <cassert>

extern "C" __global__ void reduce_sum(const float *in, float *out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        assert(i < n / 2);
        atomicAdd(out, in[i]);
    }
}
