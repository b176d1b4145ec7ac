// Expected diagnosis: none (the sum is right), while every one of the million
// threads prints a line: the run still finishes and the log keeps the first
// lines and says how many it left out.  The sum goes through a warp's
// shuffles first and then one atomicAdd a warp: one atomicAdd a thread into a
// single float of about 5e5 rounds each of 2^20 additions and drifts to about
// 2e-5 of the total, past the problem's tolerance on some inputs.
// Problem reduce_sum; size 2^20.
#include <cstdio>

extern "C" __global__ void reduce_sum(const float *in, float *out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = 0.0f;
    if (i < n) {
        printf("thread %d adds %f\n", i, in[i]);
        v = in[i];
    }
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
    if ((threadIdx.x & 31) == 0) atomicAdd(out, v);
}
