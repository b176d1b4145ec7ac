// A sum whose bounds test is off by one: the thread with i == n loads in[n],
// one float past the end of the input.  The read rarely crashes (the
// allocation is padded) and may not even change the sum much, which is why
// memcheck is the tool that finds it.  Used by the GPU tests of
// compute-sanitizer; the faulty line is marked PLANTED.

__device__ float warp_total(float v)
{
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

extern "C" __global__ void reduce_sum(const float *in, float *out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = 0.0f;
    if (i <= n)
        v = in[i];    // PLANTED: the test above should be i < n
    v = warp_total(v);
    if ((threadIdx.x & 31) == 0)
        atomicAdd(out, v);
}
