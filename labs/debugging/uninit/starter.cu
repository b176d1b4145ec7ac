// starter.cu - a two-pass sum with one planted bug (lab "debugging",
// exercise "uninit", problem reduce_sum).
//
// The contract
//   in     n floats, uniform in [0, 1); do not modify them.
//   out    one float, the sum (poisoned before every run: write it).
//   n      100003 or 2^20+3.
//   check  against a sum in double on the CPU, relative tolerance 1e-5.
//
// Pass 1 (block_sums): each block of 256 threads sums a stretch of 2048
// elements (8 a thread) and writes its total to partials[blockIdx.x].
// Pass 2 (final_sum): one block of 1024 threads adds up the partials and
// writes the result.  The launcher allocates room for 1024 partials once;
// the sizes of this exercise need at most 513 of them.  Something here is
// wrong: find it with the tool hint 1 names.

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
