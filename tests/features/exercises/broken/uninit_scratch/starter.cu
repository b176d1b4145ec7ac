// Expected diagnosis: nan.  Pass 2 reads partial sums that pass 1 never wrote,
// from a Buffer the launcher allocated: cudalab fills new Buffers with 0xFF bytes,
// a NaN, so the sum is NaN instead of right by luck.
// Problem reduce_sum; size 100003.

#define ITEMS 8      // elements a thread adds in pass 1

extern "C" __global__ void block_sums(const float *in, float *partials, int n)
{
    __shared__ float partial[256];
    const unsigned int tid = threadIdx.x;
    const long long first = (long long)blockIdx.x * blockDim.x * ITEMS + tid;
    float v = 0.0f;
    for (int k = 0; k < ITEMS; k++) {
        const long long j = first + (long long)k * blockDim.x;
        if (j < n)
            v += in[j];
    }
    partial[tid] = v;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            partial[tid] += partial[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        partials[blockIdx.x] = partial[0];
}

extern "C" __global__ void final_sum(const float *partials, int count, float *out)
{
    __shared__ float partial[1024];
    const unsigned int tid = threadIdx.x;

    partial[tid] = partials[tid];
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            partial[tid] += partial[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        *out = partial[0];
}
