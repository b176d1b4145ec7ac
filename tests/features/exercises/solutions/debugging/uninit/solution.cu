// The uninit exercise fixed: pass 2 reads only the count partials pass 1
// wrote and adds zero for the rest of its 1024 threads.

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

    partial[tid] = tid < (unsigned int)count ? partials[tid] : 0.0f;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            partial[tid] += partial[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        *out = partial[0];
}
