// Expected diagnosis: compile (starter.cu:12:41: error: identifier "blockDim_x" is undefined).
// The built-in is blockDim.x; a misspelt name does not compile.
// Problem reduce_sum; any size.

extern "C" __global__ void reduce_sum(const float *in, float *out, int n)
{
    extern __shared__ float partial[];
    const unsigned int tid = threadIdx.x;

    // The misspelt built-in below is the fault.
    // (i is the element this thread loads.)
    const unsigned int i = blockIdx.x * blockDim_x + tid;
    partial[tid] = (i < (unsigned int)n) ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned int stride = 1; stride < blockDim.x; stride *= 2) {
        if (tid % (2 * stride) == 0)
            partial[tid] += partial[tid + stride];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = partial[0];
}
