// Expected diagnosis: nan (the output was never zeroed).  Each block adds its sum into
// out[0] with atomicAdd, which is right, but the launcher forgets
// args.output:fill(0): out[0] starts as cudalab's poison NaN and NaN + x is NaN.
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
        atomicAdd(out, partial[0]);
}
