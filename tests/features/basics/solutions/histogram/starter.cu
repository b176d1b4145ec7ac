// Reference solution of the basics lab's histogram exercise: bins
// privatised in shared memory, four bytes a load, one global atomic a
// non-zero bin a block.
extern "C" __global__ void histogram(const unsigned char *data, long long n, unsigned int *bins)
{
    __shared__ unsigned int local[256];
    for (int b = threadIdx.x; b < 256; b += blockDim.x)
        local[b] = 0;
    __syncthreads();
    const long long stride = (long long)gridDim.x * blockDim.x;
    const long long first = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long words = n / 4;
    const unsigned int *w = (const unsigned int *)data;
    for (long long i = first; i < words; i += stride) {
        unsigned int v = w[i];
        atomicAdd(&local[v & 0xffu], 1u);
        atomicAdd(&local[(v >> 8) & 0xffu], 1u);
        atomicAdd(&local[(v >> 16) & 0xffu], 1u);
        atomicAdd(&local[v >> 24], 1u);
    }
    for (long long i = 4 * words + first; i < n; i += stride)
        atomicAdd(&local[data[i]], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < 256; b += blockDim.x)
        if (local[b])
            atomicAdd(&bins[b], local[b]);
}
