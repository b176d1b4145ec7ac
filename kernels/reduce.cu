// reduce.cu - sum of n floats, in teaching order: from a divergent shared-memory
// tree to a single-pass, vectorized kernel, with CUB as the library baseline.
//
// Rungs 1-5 reduce one tile per block into a partial sum and are run in passes
// (partials of partials) until one value is left; rung 6 needs one launch
// (reduce_vectorized.cu).
#include <cub/device/device_reduce.cuh>

#include <stdint.h>

#include "reduce.cuh"

#define REDUCE_THREADS 256u

// ---- 1. interleaved addressing, divergent branch ---------------------------
// One element per thread; at step s only threads whose index is a multiple of
// 2s work, scattered over every warp.  blockDim.x: a power of two; shared
// memory: blockDim.x floats.
__global__ void reduce_interleaved_divergent_kernel(const float *in, float *out, long long n)
{
    extern __shared__ float sdata[];
    const unsigned tid = threadIdx.x;
    const size_t i = (size_t)blockIdx.x * blockDim.x + tid;
    sdata[tid] = i < (size_t)n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = sdata[0];
}

// ---- 2. interleaved addressing, strided index --------------------------------
// The active threads are packed into the first warps, but thread tid touches
// word 2*s*tid: many threads of a warp hit the same bank.
__global__ void reduce_interleaved_strided_kernel(const float *in, float *out, long long n)
{
    extern __shared__ float sdata[];
    const unsigned tid = threadIdx.x;
    const size_t i = (size_t)blockIdx.x * blockDim.x + tid;
    sdata[tid] = i < (size_t)n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        const unsigned index = 2 * s * tid;
        if (index < blockDim.x) sdata[index] += sdata[index + s];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = sdata[0];
}

// ---- 3. sequential addressing --------------------------------------------------
// Thread tid adds word tid + s: consecutive threads, consecutive banks.
__global__ void reduce_sequential_kernel(const float *in, float *out, long long n)
{
    extern __shared__ float sdata[];
    const unsigned tid = threadIdx.x;
    const size_t i = (size_t)blockIdx.x * blockDim.x + tid;
    sdata[tid] = i < (size_t)n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = sdata[0];
}

// ---- 4. first add during the global load ----------------------------------------
// Each block covers 2 * blockDim.x elements: half the blocks, no idle threads
// in the first step.
__global__ void reduce_first_add_kernel(const float *in, float *out, long long n)
{
    extern __shared__ float sdata[];
    const unsigned tid = threadIdx.x;
    const size_t i = (size_t)blockIdx.x * (2 * blockDim.x) + tid;
    float v = i < (size_t)n ? in[i] : 0.0f;
    if (i + blockDim.x < (size_t)n) v += in[i + blockDim.x];
    sdata[tid] = v;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = sdata[0];
}

// ---- 5. warp shuffles ---------------------------------------------------------------
// Two elements per thread as in rung 4, then registers only: each warp folds
// its 32 values with __shfl_down_sync, the first warp folds the warp sums
// (block_sum, reduce.cuh).
// blockDim.x: a multiple of 32; no dynamic shared memory.
__global__ void reduce_warp_shuffle_kernel(const float *in, float *out, long long n)
{
    const unsigned tid = threadIdx.x;
    const size_t i = (size_t)blockIdx.x * (2 * blockDim.x) + tid;
    float v = i < (size_t)n ? in[i] : 0.0f;
    if (i + blockDim.x < (size_t)n) v += in[i + blockDim.x];
    v = block_sum(v);
    if (tid == 0) out[blockIdx.x] = v;
}

// ---- launchers -----------------------------------------------------------------------
typedef void (*tree_kernel)(const float *, float *, long long);

static size_t multipass_floats(size_t n)
{
    const size_t first = k_ceil_div(n, REDUCE_THREADS);
    return first + k_ceil_div(first, REDUCE_THREADS) + 2;
}

// Runs a one-tile-per-block kernel in passes until one value is left: pass 1
// reads in, later passes read the previous partials; the last writes out.
static cudaError_t multipass(tree_kernel k, unsigned per_thread, size_t smem_per_thread,
                             const float *in, size_t n, float *out, void *scratch,
                             size_t scratch_bytes, cudaStream_t s)
{
    if (!in || !out || n == 0) return cudaErrorInvalidValue;
    const size_t per_block = (size_t)REDUCE_THREADS * per_thread;
    const size_t first = k_ceil_div(n, per_block);
    if (first > 1 && (!scratch || scratch_bytes < multipass_floats(n) * sizeof(float)))
        return cudaErrorInvalidValue;
    float *bufs[2] = {(float *)scratch, (float *)scratch + first};
    const float *src = in;
    size_t count = n;
    for (int pass = 0;; ++pass) {
        const size_t blocks = k_ceil_div(count, per_block);
        if (blocks > 0x7fffffffu) return cudaErrorInvalidValue;
        float *dst = blocks == 1 ? out : bufs[pass & 1];
        k<<<(unsigned)blocks, REDUCE_THREADS, REDUCE_THREADS * smem_per_thread, s>>>(
            src, dst, (long long)count);
        KCHECK_LAUNCH();
        if (blocks == 1) return cudaSuccess;
        src = dst;
        count = blocks;
    }
}

extern "C" cudaError_t launch_reduce_interleaved_divergent(const float *in, size_t n, float *out,
                                                           void *scratch, size_t bytes, cudaStream_t s)
{
    return multipass(reduce_interleaved_divergent_kernel, 1, sizeof(float), in, n, out, scratch,
                     bytes, s);
}

extern "C" cudaError_t launch_reduce_interleaved_strided(const float *in, size_t n, float *out,
                                                         void *scratch, size_t bytes, cudaStream_t s)
{
    return multipass(reduce_interleaved_strided_kernel, 1, sizeof(float), in, n, out, scratch,
                     bytes, s);
}

extern "C" cudaError_t launch_reduce_sequential(const float *in, size_t n, float *out,
                                                void *scratch, size_t bytes, cudaStream_t s)
{
    return multipass(reduce_sequential_kernel, 1, sizeof(float), in, n, out, scratch, bytes, s);
}

extern "C" cudaError_t launch_reduce_first_add(const float *in, size_t n, float *out,
                                               void *scratch, size_t bytes, cudaStream_t s)
{
    return multipass(reduce_first_add_kernel, 2, sizeof(float), in, n, out, scratch, bytes, s);
}

extern "C" cudaError_t launch_reduce_warp_shuffle(const float *in, size_t n, float *out,
                                                  void *scratch, size_t bytes, cudaStream_t s)
{
    return multipass(reduce_warp_shuffle_kernel, 2, 0, in, n, out, scratch, bytes, s);
}

// CUB with 32-bit offsets where n allows (its usual instantiation), 64-bit beyond.
static cudaError_t cub_sum(void *tmp, size_t &bytes, const float *in, float *out, size_t n,
                           cudaStream_t s)
{
    if (n <= (size_t)INT32_MAX) return cub::DeviceReduce::Sum(tmp, bytes, in, out, (int)n, s);
    return cub::DeviceReduce::Sum(tmp, bytes, in, out, (int64_t)n, s);
}

// 0 when CUB cannot answer (no device): the error it met is cleared so that
// it does not surface at the caller's next cudaGetLastError.
static size_t cub_bytes(size_t n)
{
    size_t bytes = 0;
    if (cub_sum(nullptr, bytes, nullptr, nullptr, n, 0) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return bytes;
}

extern "C" cudaError_t launch_cub_sum(const float *in, size_t n, float *out, void *scratch,
                                      size_t scratch_bytes, cudaStream_t s)
{
    k_set_library_error("");
    if (!in || !out || n == 0) return cudaErrorInvalidValue;
    size_t need = 0;
    cudaError_t err = cub_sum(nullptr, need, in, out, n, s);
    if (err != cudaSuccess) {
        k_set_library_error("cub::DeviceReduce::Sum (size query): %s", cudaGetErrorString(err));
        return err;
    }
    if (!scratch || scratch_bytes < need) {
        k_set_library_error("cub::DeviceReduce::Sum needs %zu bytes of scratch, got %zu", need,
                            scratch_bytes);
        return cudaErrorInvalidValue;
    }
    err = cub_sum(scratch, need, in, out, n, s);
    if (err != cudaSuccess) {
        k_set_library_error("cub::DeviceReduce::Sum: %s", cudaGetErrorString(err));
        return err;
    }
    KCHECK_LAUNCH();
    return cudaSuccess;
}

size_t k_reduce_scratch_bytes(size_t n)
{
    size_t bytes = multipass_floats(n) * sizeof(float);
    const size_t vec = VEC_MAX_BLOCKS * sizeof(float);
    if (bytes < vec) bytes = vec;
    const size_t cub = cub_bytes(n);
    if (bytes < cub) bytes = cub;
    return (bytes + 255u) & ~(size_t)255u;
}

// ---- tables -----------------------------------------------------------------------------
static const shipped_kernel reduce_rungs[] = {
    {.name = "reduce_interleaved_divergent", .problem = "reduce_sum",
     .reduce = launch_reduce_interleaved_divergent},
    {.name = "reduce_interleaved_strided", .problem = "reduce_sum",
     .reduce = launch_reduce_interleaved_strided},
    {.name = "reduce_sequential", .problem = "reduce_sum", .reduce = launch_reduce_sequential},
    {.name = "reduce_first_add", .problem = "reduce_sum", .reduce = launch_reduce_first_add},
    {.name = "reduce_warp_shuffle", .problem = "reduce_sum", .reduce = launch_reduce_warp_shuffle},
    {.name = "reduce_vectorized", .problem = "reduce_sum", .reduce = launch_reduce_vectorized},
    {.name = "cub_sum", .problem = "reduce_sum", .library = 1, .reduce = launch_cub_sum},
};

extern "C" const shipped_kernel *reduce_table(size_t *count)
{
    *count = sizeof reduce_rungs / sizeof reduce_rungs[0];
    return reduce_rungs;
}

#define TREE_DOC(what, grid) \
    "(in, out, n): " what "; grid " grid ", block a power of two <= 1024, shared memory block*4 bytes; out[blockIdx.x] = the block's sum"

static const raw_kernel reduce_raw[] = {
    {.name = "reduce_interleaved_divergent",
     .func = (const void *)reduce_interleaved_divergent_kernel, .sig = "ppl",
     .doc = TREE_DOC("one element per thread", "ceil(n/block)")},
    {.name = "reduce_interleaved_strided", .func = (const void *)reduce_interleaved_strided_kernel,
     .sig = "ppl", .doc = TREE_DOC("one element per thread", "ceil(n/block)")},
    {.name = "reduce_sequential", .func = (const void *)reduce_sequential_kernel, .sig = "ppl",
     .doc = TREE_DOC("one element per thread", "ceil(n/block)")},
    {.name = "reduce_first_add", .func = (const void *)reduce_first_add_kernel, .sig = "ppl",
     .doc = TREE_DOC("two elements per thread", "ceil(n/(2*block))")},
    {.name = "reduce_warp_shuffle", .func = (const void *)reduce_warp_shuffle_kernel, .sig = "ppl",
     .doc = "(in, out, n): two elements per thread; grid ceil(n/(2*block)), block a multiple of "
            "32 <= 1024, no shared memory; out[blockIdx.x] = the block's sum"},
    // .func: rung 6's kernel, set by reduce_raw_table.
    {.name = "reduce_vectorized", .sig = "plppp",
     .doc = "(in, n, out, partials, counters): block " VEC_SHIPPED_THREADS
            ", any grid <= partials' length; counters: two 32-bit words, zero before the launch "
            "and zero again after it; *out = the sum of all n"},
};

extern "C" const raw_kernel *reduce_raw_table(size_t *count)
{
    static raw_kernel t[sizeof reduce_raw / sizeof reduce_raw[0]];
    static bool made = false;
    if (!made) {
        for (size_t i = 0; i < sizeof t / sizeof t[0]; ++i) t[i] = reduce_raw[i];
        t[sizeof t / sizeof t[0] - 1].func = k_reduce_vectorized_kernel();
        made = true;
    }
    *count = sizeof t / sizeof t[0];
    return t;
}
