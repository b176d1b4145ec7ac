// reduce.cu - sum of n floats, in teaching order: from a divergent shared-memory
// tree to a single-pass, vectorized kernel, with CUB as the library baseline.
//
// Rungs 1-5 reduce one tile per block into a partial sum and are run in passes
// (partials of partials) until one value is left; rung 6 needs one launch.
#include <cub/device/device_reduce.cuh>

#include <mutex>
#include <stdint.h>

#include "kcommon.cuh"
#include "ktune.h"

#define REDUCE_THREADS 256u
#define VEC_MAX_BLOCKS 4096u
// The shipped configuration of rung 6: threads a block, loads in flight.
#define VEC_SHIPPED 1024, 4
#define VEC_SHIPPED_THREADS "1024"

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
__device__ __forceinline__ float warp_sum(float v)
{
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    return v;
}

// Sum over the block, valid in thread 0.  blockDim.x: a multiple of 32.
// Every thread must call it.  It opens with a barrier, so a second call may
// follow the first at once.
__device__ __forceinline__ float block_sum(float v)
{
    __shared__ float warp_sums[32];
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    v = warp_sum(v);
    __syncthreads();
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < (blockDim.x + 31) / 32 ? warp_sums[lane] : 0.0f;
        v = warp_sum(v);
    }
    return v;
}

// Two elements per thread as in rung 4, then registers only: each warp folds
// its 32 values with __shfl_down_sync, the first warp folds the warp sums.
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

// ---- 6. vectorized, grid-stride, single pass ---------------------------------------
// Each thread sums many elements with 16-byte loads, UNROLL of them in flight;
// the few elements before the first 16-byte boundary and after the last are
// added by the first threads.  Every block writes its sum to partials[] and
// takes a ticket (one atomicAdd); the block that takes the last ticket adds
// the partials and sets the ticket back to zero for the next launch.
template <unsigned THREADS, int UNROLL>
__global__ void __launch_bounds__(THREADS)
reduce_vectorized_kernel(const float *__restrict__ in, long long n_, float *out,
                         float *partials, unsigned *ticket)
{
    const size_t n = (size_t)n_;
    size_t head = ((16u - ((size_t)in & 15u)) & 15u) / 4u;
    if (head > n) head = n;
    const float4 *body = reinterpret_cast<const float4 *>(in + head);
    const size_t nv = (n - head) / 4;
    const size_t tail = head + nv * 4;
    const size_t gid = (size_t)blockIdx.x * THREADS + threadIdx.x;
    const size_t stride = (size_t)gridDim.x * THREADS;

    float acc[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) acc[u] = 0.0f;
    if (gid < head) acc[0] += in[gid];
    if (gid < n - tail) acc[0] += in[tail + gid];

    size_t i = gid;
    for (; i + (UNROLL - 1) * stride < nv; i += UNROLL * stride) {
        float4 v[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) v[u] = __ldg(body + i + u * stride);
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) acc[u] += (v[u].x + v[u].y) + (v[u].z + v[u].w);
    }
    for (; i < nv; i += stride) {
        const float4 v = __ldg(body + i);
        acc[0] += (v.x + v.y) + (v.z + v.w);
    }
    float sum = 0.0f;
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) sum += acc[u];
    sum = block_sum(sum);

    __shared__ bool last;
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = sum;
        __threadfence();
        last = atomicAdd(ticket, 1u) + 1u == gridDim.x;
    }
    __syncthreads();
    if (!last) return;
    __threadfence();
    float v = 0.0f;
    for (unsigned b = threadIdx.x; b < gridDim.x; b += THREADS) v += __ldcg(partials + b);
    v = block_sum(v);
    if (threadIdx.x == 0) {
        *out = v;
        *ticket = 0u;
    }
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

// The tickets live in a small pool of device words owned by this file, zeroed
// once per device and left at zero by every launch that completes.  Scratch
// cannot hold them: its contents are unknown when a caller hands it over.
// Launches take consecutive slots, so launches in flight at the same time on
// different streams (fewer than TICKET_SLOTS of them) never share one.
#define TICKET_SLOTS 1024u
#define TICKET_DEVICES 64

static std::mutex ticket_mutex;
static unsigned *ticket_pool[TICKET_DEVICES];
static unsigned ticket_next;

static cudaError_t ticket_take(int dev, unsigned **out)
{
    if (dev < 0 || dev >= TICKET_DEVICES) return cudaErrorInvalidDevice;
    std::lock_guard<std::mutex> lock(ticket_mutex);
    if (!ticket_pool[dev]) {
        unsigned *p = nullptr;
        KCHECK(cudaMalloc((void **)&p, TICKET_SLOTS * sizeof(unsigned)));
        cudaError_t e = cudaMemset(p, 0, TICKET_SLOTS * sizeof(unsigned));
        if (e == cudaSuccess) e = cudaDeviceSynchronize();
        if (e != cudaSuccess) {
            cudaFree(p);
            return e;
        }
        ticket_pool[dev] = p;
    }
    *out = ticket_pool[dev] + ticket_next++ % TICKET_SLOTS;
    return cudaSuccess;
}

void k_reduce_shutdown(void)
{
    std::lock_guard<std::mutex> lock(ticket_mutex);
    for (int d = 0; d < TICKET_DEVICES; ++d) {
        if (ticket_pool[d]) cudaFree(ticket_pool[d]);
        ticket_pool[d] = nullptr;
    }
}

// blocks_per_sm <= 0: as many blocks as fit on a multiprocessor.
template <unsigned THREADS, int UNROLL>
static cudaError_t vectorized_run(const float *in, size_t n, float *out, void *scratch,
                                  size_t scratch_bytes, cudaStream_t s, int blocks_per_sm)
{
    if (!in || !out || n == 0 || n > (size_t)INT64_MAX) return cudaErrorInvalidValue;
    if (!scratch || ((size_t)scratch & 3u) || scratch_bytes < VEC_MAX_BLOCKS * sizeof(float))
        return cudaErrorInvalidValue;
    int dev = 0, sms = 0;
    KCHECK(cudaGetDevice(&dev));
    KCHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    int per_sm = blocks_per_sm;
    if (per_sm <= 0) {
        static int cached_dev = -1, cached_occ = 0;
        if (cached_dev != dev) {
            KCHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                &cached_occ, reduce_vectorized_kernel<THREADS, UNROLL>, (int)THREADS, 0));
            cached_dev = dev;
        }
        per_sm = cached_occ > 0 ? cached_occ : 1;
    }
    size_t blocks = (size_t)sms * (size_t)per_sm;
    const size_t useful = k_ceil_div(n, (size_t)THREADS * 4u * UNROLL);
    if (blocks > useful) blocks = useful;
    if (blocks > VEC_MAX_BLOCKS) blocks = VEC_MAX_BLOCKS;
    if (blocks < 1) blocks = 1;
    unsigned *ticket = nullptr;
    KCHECK(ticket_take(dev, &ticket));
    reduce_vectorized_kernel<THREADS, UNROLL><<<(unsigned)blocks, THREADS, 0, s>>>(
        in, (long long)n, out, (float *)scratch, ticket);
    KCHECK_LAUNCH();
    return cudaSuccess;
}

extern "C" cudaError_t launch_reduce_vectorized(const float *in, size_t n, float *out,
                                                void *scratch, size_t bytes, cudaStream_t s)
{
    return vectorized_run<VEC_SHIPPED>(in, n, out, scratch, bytes, s, 0);
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
    {"reduce_interleaved_divergent", "reduce_sum", 0, launch_reduce_interleaved_divergent, NULL, NULL},
    {"reduce_interleaved_strided", "reduce_sum", 0, launch_reduce_interleaved_strided, NULL, NULL},
    {"reduce_sequential", "reduce_sum", 0, launch_reduce_sequential, NULL, NULL},
    {"reduce_first_add", "reduce_sum", 0, launch_reduce_first_add, NULL, NULL},
    {"reduce_warp_shuffle", "reduce_sum", 0, launch_reduce_warp_shuffle, NULL, NULL},
    {"reduce_vectorized", "reduce_sum", 0, launch_reduce_vectorized, NULL, NULL},
    {"cub_sum", "reduce_sum", 1, launch_cub_sum, NULL, NULL},
};

extern "C" const shipped_kernel *reduce_table(size_t *n)
{
    *n = sizeof reduce_rungs / sizeof reduce_rungs[0];
    return reduce_rungs;
}

#define TREE_DOC(what, grid) \
    "(in, out, n): " what "; grid " grid ", block a power of two <= 1024, shared memory block*4 bytes; out[blockIdx.x] = the block's sum"

static const raw_kernel reduce_raw[] = {
    {"reduce_interleaved_divergent", (const void *)reduce_interleaved_divergent_kernel, "ppl",
     TREE_DOC("one element per thread", "ceil(n/block)")},
    {"reduce_interleaved_strided", (const void *)reduce_interleaved_strided_kernel, "ppl",
     TREE_DOC("one element per thread", "ceil(n/block)")},
    {"reduce_sequential", (const void *)reduce_sequential_kernel, "ppl",
     TREE_DOC("one element per thread", "ceil(n/block)")},
    {"reduce_first_add", (const void *)reduce_first_add_kernel, "ppl",
     TREE_DOC("two elements per thread", "ceil(n/(2*block))")},
    {"reduce_warp_shuffle", (const void *)reduce_warp_shuffle_kernel, "ppl",
     "(in, out, n): two elements per thread; grid ceil(n/(2*block)), block a multiple of 32 <= 1024, "
     "no shared memory; out[blockIdx.x] = the block's sum"},
    {"reduce_vectorized", (const void *)reduce_vectorized_kernel<VEC_SHIPPED>, "plppp",
     "(in, n, out, partials, ticket): block " VEC_SHIPPED_THREADS ", any grid <= partials' length; ticket: "
     "4 bytes, zero before the launch and zero again after it; *out = the sum of all n"},
};

extern "C" const raw_kernel *reduce_raw_table(size_t *n)
{
    *n = sizeof reduce_raw / sizeof reduce_raw[0];
    return reduce_raw;
}

// ---- tuning variants -----------------------------------------------------------------------
#define VEC_VARIANT(T, U, B)                                                                  \
    static cudaError_t vec_##T##_##U##_##B(const float *in, size_t n, float *out, void *sc,   \
                                           size_t bytes, cudaStream_t s)                      \
    {                                                                                         \
        return vectorized_run<T, U>(in, n, out, sc, bytes, s, B);                             \
    }
VEC_VARIANT(256, 4, 0)
VEC_VARIANT(256, 8, 0)
VEC_VARIANT(512, 4, 0)
VEC_VARIANT(512, 8, 0)
VEC_VARIANT(1024, 4, 0)
VEC_VARIANT(1024, 2, 0)
VEC_VARIANT(512, 2, 0)

static const shipped_kernel reduce_variants[] = {
    {"reduce_vectorized[256x4,full]", "reduce_sum", 0, vec_256_4_0, NULL, NULL},
    {"reduce_vectorized[256x8,full]", "reduce_sum", 0, vec_256_8_0, NULL, NULL},
    {"reduce_vectorized[512x4,full]", "reduce_sum", 0, vec_512_4_0, NULL, NULL},
    {"reduce_vectorized[512x8,full]", "reduce_sum", 0, vec_512_8_0, NULL, NULL},
    {"reduce_vectorized[1024x4,full]", "reduce_sum", 0, vec_1024_4_0, NULL, NULL},
    {"reduce_vectorized[1024x2,full]", "reduce_sum", 0, vec_1024_2_0, NULL, NULL},
    {"reduce_vectorized[512x2,full]", "reduce_sum", 0, vec_512_2_0, NULL, NULL},
};

extern "C" const shipped_kernel *reduce_tune_table(size_t *n)
{
    *n = sizeof reduce_variants / sizeof reduce_variants[0];
    return reduce_variants;
}
