// Expected diagnosis: wrong (the result is one block's sum, not the total).  Every
// block stores its sum into out[0] with a plain store, so the last block to finish
// wins; the sums of the other blocks are lost.  atomicAdd would add them all.
// Problem reduce_sum; size 2^20.

extern "C" __global__ void reduce_sum(const float *in, float *out, int n)
{
    extern __shared__ float partial[];
    const unsigned int tid = threadIdx.x;
    const unsigned int i = blockIdx.x * blockDim.x + tid;
    partial[tid] = (i < (unsigned int)n) ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            partial[tid] += partial[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        out[0] = partial[0];
}
