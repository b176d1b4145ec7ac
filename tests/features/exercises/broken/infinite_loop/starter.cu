// Expected diagnosis: timeout (the kernel never finishes).  The grid-stride loop
// computes i + stride but never stores it (i + stride instead of i += stride), so i
// never moves and the loop runs forever.  Problem reduce_sum; size 2^20.

extern "C" __global__ void reduce_sum(const float *in, float *out, int n)
{
    const int stride = blockDim.x * gridDim.x;
    float sum = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i + stride)
        sum += in[i];
    atomicAdd(out, sum);
}
