// canary.cu - what the canary repetition needs on the device (the engine's
// src/engine/engine_canary.c): two buffers exchanged in place, so that the
// inputs a row is timed on and the fresh ones staged for one repetition
// trade places without a third copy; and how many bytes of two buffers
// differ, so that a kernel that wrote into its inputs is seen; and the
// elements of an input moved in place (each paired with the one whose index
// differs from its own by a random XOR mask), so that no timed repetition
// sees the inputs of the one before it.

#include "kcommon.cuh"
#include "kernels.h"

__global__ void swap_words_kernel(uint32_t *a, uint32_t *b, size_t words)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < words; i += stride) {
        uint32_t t = a[i];
        a[i] = b[i];
        b[i] = t;
    }
}

__global__ void swap_tail_kernel(unsigned char *a, unsigned char *b, size_t bytes)
{
    for (size_t i = threadIdx.x; i < bytes; i += blockDim.x) {
        unsigned char t = a[i];
        a[i] = b[i];
        b[i] = t;
    }
}

__global__ void count_diff_kernel(const uint32_t *a, const uint32_t *b, size_t words,
                                  const unsigned char *ta, const unsigned char *tb, size_t tail,
                                  unsigned long long *count)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    const size_t first = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long n = 0;
    for (size_t i = first; i < words; i += stride) {
        uint32_t x = a[i] ^ b[i];
        n += (unsigned long long)(((x & 0xffu) != 0) + ((x & 0xff00u) != 0) +
                                  ((x & 0xff0000u) != 0) + ((x & 0xff000000u) != 0));
    }
    if (first == 0)
        for (size_t i = 0; i < tail; i++)
            n += ta[i] != tb[i];
    for (int off = 16; off > 0; off /= 2)
        n += __shfl_down_sync(0xffffffffu, n, off);
    if ((threadIdx.x & 31) == 0 && n)
        atomicAdd(count, n);
}

template <typename T>
__global__ void xor_pairs_kernel(T *v, size_t n, size_t mask)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const size_t j = i ^ mask;
        if (j < n && i < j) {
            T t = v[i];
            v[i] = v[j];
            v[j] = t;
        }
    }
}

// A grid for n items: enough blocks of 256 threads, at most 8 a multiprocessor.
static cudaError_t canary_grid(size_t n, unsigned *grid)
{
    int sms = 0;
    KCHECK(k_sm_count(&sms));
    const size_t blocks = k_ceil_div(n > 0 ? n : 1, 256);
    *grid = (unsigned)(blocks < (size_t)sms * 8 ? blocks : (size_t)sms * 8);
    return cudaSuccess;
}

extern "C" cudaError_t kernels_swap_bytes(void *a, void *b, size_t bytes, cudaStream_t stream)
{
    if (bytes == 0)
        return cudaSuccess;
    if (!a || !b || ((size_t)a & 3u) || ((size_t)b & 3u))
        return cudaErrorInvalidValue;
    const size_t words = bytes / 4, tail = bytes % 4;
    unsigned grid = 1;
    KCHECK(canary_grid(words, &grid));
    if (words) {
        swap_words_kernel<<<grid, 256, 0, stream>>>((uint32_t *)a, (uint32_t *)b, words);
        KCHECK_LAUNCH();
    }
    if (tail) {
        swap_tail_kernel<<<1, 32, 0, stream>>>((unsigned char *)a + 4 * words,
                                               (unsigned char *)b + 4 * words, tail);
        KCHECK_LAUNCH();
    }
    return cudaSuccess;
}

extern "C" cudaError_t kernels_count_diff(const void *a, const void *b, size_t bytes,
                                          unsigned long long *count, cudaStream_t stream)
{
    if (!count || (bytes && (!a || !b || ((size_t)a & 3u) || ((size_t)b & 3u))))
        return cudaErrorInvalidValue;
    KCHECK(cudaMemsetAsync(count, 0, sizeof *count, stream));
    if (bytes == 0)
        return cudaSuccess;
    const size_t words = bytes / 4, tail = bytes % 4;
    unsigned grid = 1;
    KCHECK(canary_grid(words, &grid));
    count_diff_kernel<<<grid, 256, 0, stream>>>(
        (const uint32_t *)a, (const uint32_t *)b, words, (const unsigned char *)a + 4 * words,
        (const unsigned char *)b + 4 * words, tail, count);
    KCHECK_LAUNCH();
    return cudaSuccess;
}

template <typename T>
static cudaError_t xor_pairs(void *v, size_t n, size_t mask, cudaStream_t stream)
{
    if ((size_t)v % sizeof(T))
        return cudaErrorInvalidValue;
    unsigned grid = 1;
    KCHECK(canary_grid(n, &grid));
    xor_pairs_kernel<T><<<grid, 256, 0, stream>>>((T *)v, n, mask);
    KCHECK_LAUNCH();
    return cudaSuccess;
}

extern "C" cudaError_t kernels_xor_pairs(void *v, size_t n, int elem_bytes, uint64_t mask,
                                         cudaStream_t stream)
{
    if (n < 2 || mask == 0)
        return cudaSuccess;
    if (!v)
        return cudaErrorInvalidValue;
    switch (elem_bytes) {
    case 1: return xor_pairs<uint8_t>(v, n, (size_t)mask, stream);
    case 2: return xor_pairs<uint16_t>(v, n, (size_t)mask, stream);
    case 4: return xor_pairs<uint32_t>(v, n, (size_t)mask, stream);
    case 8: return xor_pairs<uint64_t>(v, n, (size_t)mask, stream);
    default: return cudaErrorInvalidValue;
    }
}
