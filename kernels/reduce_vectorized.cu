// reduce_vectorized.cu - rung 6 of the reduction: one pass, 16-byte loads,
// the block that finishes last adding the partial sums; its tuning variants
// (reduce.cuh: what the reduce files share).
#include <mutex>
#include <stdint.h>

#include "reduce.cuh"

// ---- 6. vectorized, single pass ----------------------------------------------------
// Each thread sums many elements with 16-byte loads, UNROLL of them in flight.
// The input splits into a head (the elements before the first 16-byte
// boundary), a body of float4s and a tail (fewer than 4 elements); the first
// threads of block 0 add the head and the tail, so the main loop has no
// element-wise work.  Who reads which part of the body (SCHED):
//   VEC_DYNAMIC      one block per resident slot; the body is cut into tiles
//                    of THREADS x UNROLL contiguous float4s and each block takes
//                    its next tile from a counter (one atomicAdd a tile, asked
//                    one tile ahead), so a multiprocessor that gets more
//                    bandwidth does more tiles and all of them finish together;
//   VEC_EVEN_SHARE   several blocks per resident slot, each a contiguous run of
//                    whole tiles, the hardware handing out blocks as slots free;
//   VEC_GRID_STRIDE  one block per resident slot; thread i reads float4 i,
//                    i + stride, ... over the whole body.
// Every block writes its sum to partials[] and takes a ticket (one atomicAdd);
// the block that takes the last ticket adds the partials and sets both counter
// words back to zero for the next launch.

// 16-byte read-only load; NO_L1: the line is not kept in L1.
template <bool NO_L1>
__device__ __forceinline__ float4 vec_load(const float4 *p)
{
    if (NO_L1) {
        float4 v;
        asm("ld.global.nc.L1::no_allocate.v4.f32 {%0, %1, %2, %3}, [%4];"
            : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
            : "l"(p));
        return v;
    }
    return __ldg(p);
}

__device__ __forceinline__ float sum4(float4 v) { return (v.x + v.y) + (v.z + v.w); }

// Registers allowed: 32 for UNROLL <= 4 (2048 threads a multiprocessor), else 64.
// Resident threads a multiprocessor holds: 2048 on A100, H100/H200 and B200,
// 1536 on the other Ampere/Ada/Blackwell parts, 1024 on Turing.
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 800 || __CUDA_ARCH__ == 900 || __CUDA_ARCH__ == 1000
#define VEC_SM_THREADS 2048u
#elif __CUDA_ARCH__ < 800
#define VEC_SM_THREADS 1024u
#else
#define VEC_SM_THREADS 1536u
#endif
#define VEC_MIN_BLOCKS(T, U) \
    (((U) <= 4 ? VEC_SM_THREADS : VEC_SM_THREADS / 2) / (T) > 0 \
         ? ((U) <= 4 ? VEC_SM_THREADS : VEC_SM_THREADS / 2) / (T) : 1u)

// One function, not helpers per schedule: this is the shipped kernel tuned
// against CUB (bench/KERNELS.md, "Reduction"), and its main loops'
// instruction mix (UNROLL 16-byte loads in flight, no element-wise work, the
// accumulators in registers) is the point.  Moving the schedules into
// __device__ helpers compiles to different machine code (ptxas allocates
// the accumulators differently), so it stays whole.
template <unsigned THREADS, int UNROLL, int SCHED, bool NO_L1>
__global__ void __launch_bounds__(THREADS, VEC_MIN_BLOCKS(THREADS, UNROLL))
reduce_vectorized_kernel(const float *__restrict__ in, long long n_, float *out,
                         float *partials, unsigned *counters)
{
    constexpr unsigned TILE = THREADS * UNROLL;
    const size_t n = (size_t)n_;
    size_t head = ((16u - ((size_t)in & 15u)) & 15u) / 4u;
    if (head > n) head = n;
    const float4 *body = reinterpret_cast<const float4 *>(in + head);
    const size_t nv = (n - head) / 4;
    const size_t tail = head + nv * 4;
    const unsigned tid = threadIdx.x;

    float acc[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) acc[u] = 0.0f;
    if (blockIdx.x == 0) {
        if (tid < head) acc[0] += in[tid];
        if (tid < n - tail) acc[0] += in[tail + tid];
    }

    if (SCHED == VEC_GRID_STRIDE) {
        const size_t stride = (size_t)gridDim.x * THREADS;
        size_t i = (size_t)blockIdx.x * THREADS + tid;
        for (; i + (UNROLL - 1) * stride < nv; i += UNROLL * stride) {
            float4 v[UNROLL];
#pragma unroll
            for (int u = 0; u < UNROLL; ++u) v[u] = vec_load<NO_L1>(body + i + u * stride);
#pragma unroll
            for (int u = 0; u < UNROLL; ++u) acc[u] += sum4(v[u]);
        }
        for (; i < nv; i += stride) acc[0] += sum4(vec_load<NO_L1>(body + i));
    } else if (SCHED == VEC_EVEN_SHARE) {
        const size_t nfull = nv / TILE;
        const size_t first = nfull * blockIdx.x / gridDim.x;
        const size_t end = nfull * (blockIdx.x + 1) / gridDim.x;
        for (size_t t = first; t < end; ++t) {
            const float4 *p = body + t * TILE + tid;
            float4 v[UNROLL];
#pragma unroll
            for (int u = 0; u < UNROLL; ++u) v[u] = vec_load<NO_L1>(p + u * THREADS);
#pragma unroll
            for (int u = 0; u < UNROLL; ++u) acc[u] += sum4(v[u]);
        }
        if (blockIdx.x == gridDim.x - 1) {
#pragma unroll
            for (int u = 0; u < UNROLL; ++u) {
                const size_t i = nfull * TILE + u * THREADS + tid;
                if (i < nv) acc[u] += sum4(vec_load<NO_L1>(body + i));
            }
        }
    } else {
        // Tiles 0 .. nfull-1 are whole; tile nfull, if any, is the rest.
        // Block b starts with tiles b and b + G; every later tile comes from
        // counters[1]: thread 0 asks one tile ahead and publishes the answer
        // in next_tile[] an iteration later, when it has surely arrived.
        __shared__ unsigned next_tile[2];
        const size_t nfull = nv / TILE;
        const unsigned ntiles = (unsigned)(nfull + (nv % TILE != 0));
        const unsigned G = gridDim.x;
        unsigned t = blockIdx.x, t_next = blockIdx.x + G, asked = 2 * G;
        if (tid == 0 && asked < ntiles) asked += atomicAdd(counters + 1, 1u);
        for (unsigned k = 0; t < ntiles; ++k) {
            const float4 *p = body + (size_t)t * TILE + tid;
            float4 v[UNROLL];
            if (t < nfull) {
#pragma unroll
                for (int u = 0; u < UNROLL; ++u) v[u] = vec_load<NO_L1>(p + u * THREADS);
            } else {
                const size_t left = nv - (size_t)t * TILE;
#pragma unroll
                for (int u = 0; u < UNROLL; ++u)
                    v[u] = u * THREADS + tid < left ? vec_load<NO_L1>(p + u * THREADS)
                                                    : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            }
            if (tid == 0) {
                next_tile[k & 1] = asked;
                if (asked < ntiles) asked = 2 * G + atomicAdd(counters + 1, 1u);
            }
#pragma unroll
            for (int u = 0; u < UNROLL; ++u) acc[u] += sum4(v[u]);
            __syncthreads();
            t = t_next;
            t_next = next_tile[k & 1];
        }
    }

    float sum = 0.0f;
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) sum += acc[u];
    sum = block_sum(sum);

    __shared__ bool last;
    if (tid == 0) {
        partials[blockIdx.x] = sum;
        __threadfence();
        last = atomicAdd(counters, 1u) + 1u == gridDim.x;
    }
    __syncthreads();
    if (!last) return;
    __threadfence();
    float p0 = 0.0f, p1 = 0.0f, p2 = 0.0f, p3 = 0.0f;
    unsigned b = tid;
    for (; b + 3 * THREADS < gridDim.x; b += 4 * THREADS) {
        p0 += __ldcg(partials + b);
        p1 += __ldcg(partials + b + THREADS);
        p2 += __ldcg(partials + b + 2 * THREADS);
        p3 += __ldcg(partials + b + 3 * THREADS);
    }
    for (; b < gridDim.x; b += THREADS) p0 += __ldcg(partials + b);
    const float total = block_sum((p0 + p1) + (p2 + p3));
    if (tid == 0) {
        *out = total;
        counters[0] = 0u;
        counters[1] = 0u;
    }
}

const void *k_reduce_vectorized_kernel(void)
{
    return (const void *)reduce_vectorized_kernel<VEC_SHIPPED>;
}

// ---- launching ---------------------------------------------------------------------------
// The counters of rung 6 (two words a launch: the ticket and the next tile)
// live in a small pool of device words owned by this file, zeroed once per
// device and left at zero by every launch that completes.  Scratch cannot
// hold them: its contents are unknown when a caller hands it over.  Launches
// take consecutive slots, so launches in flight at the same time on different
// streams (fewer than COUNTER_SLOTS of them) never share one.
#define COUNTER_SLOTS 1024u
#define COUNTER_WORDS 2u
#define COUNTER_DEVICES 64

static std::mutex counter_mutex;
static unsigned *counter_pool[COUNTER_DEVICES];
static unsigned counter_next;

static cudaError_t counters_take(int dev, unsigned **out)
{
    if (dev < 0 || dev >= COUNTER_DEVICES) return cudaErrorInvalidDevice;
    std::lock_guard<std::mutex> lock(counter_mutex);
    if (!counter_pool[dev]) {
        const size_t bytes = COUNTER_SLOTS * COUNTER_WORDS * sizeof(unsigned);
        unsigned *p = nullptr;
        KCHECK(cudaMalloc((void **)&p, bytes));
        cudaError_t e = cudaMemset(p, 0, bytes);
        if (e == cudaSuccess) e = cudaDeviceSynchronize();
        if (e != cudaSuccess) {
            cudaFree(p);
            return e;
        }
        counter_pool[dev] = p;
    }
    *out = counter_pool[dev] + (counter_next++ % COUNTER_SLOTS) * COUNTER_WORDS;
    return cudaSuccess;
}

void k_reduce_shutdown(void)
{
    std::lock_guard<std::mutex> lock(counter_mutex);
    for (int d = 0; d < COUNTER_DEVICES; ++d) {
        if (counter_pool[d]) cudaFree(counter_pool[d]);
        counter_pool[d] = nullptr;
    }
}

// Blocks: `waves` times as many as fit on the device at once (one wave for
// the dynamic and grid-stride schedules), no more than there are tiles.
template <unsigned THREADS, int UNROLL, int SCHED, bool NO_L1>
static cudaError_t vectorized_run(const float *in, size_t n, float *out, void *scratch,
                                  size_t scratch_bytes, cudaStream_t s, unsigned waves)
{
    if (!in || !out || n == 0 || n > (size_t)INT64_MAX) return cudaErrorInvalidValue;
    if (!scratch || ((size_t)scratch & 3u) || scratch_bytes < VEC_MAX_BLOCKS * sizeof(float))
        return cudaErrorInvalidValue;
    const size_t tiles = k_ceil_div(n, (size_t)THREADS * 4u * UNROLL);
    if (tiles > 0x7fffffffu) return cudaErrorInvalidValue;
    int dev = 0, sms = 0;
    KCHECK(cudaGetDevice(&dev));
    KCHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    static int cached_dev = -1, cached_occ = 0;
    {
        std::lock_guard<std::mutex> lock(counter_mutex);
        if (cached_dev != dev) {
            KCHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                &cached_occ, reduce_vectorized_kernel<THREADS, UNROLL, SCHED, NO_L1>, (int)THREADS,
                0));
            cached_dev = dev;
        }
    }
    size_t blocks = (size_t)sms * (size_t)(cached_occ > 0 ? cached_occ : 1) * (waves ? waves : 1);
    if (blocks > tiles) blocks = tiles;
    if (blocks > VEC_MAX_BLOCKS) blocks = VEC_MAX_BLOCKS;
    if (blocks < 1) blocks = 1;
    unsigned *counters = nullptr;
    KCHECK(counters_take(dev, &counters));
    reduce_vectorized_kernel<THREADS, UNROLL, SCHED, NO_L1><<<(unsigned)blocks, THREADS, 0, s>>>(
        in, (long long)n, out, (float *)scratch, counters);
    KCHECK_LAUNCH();
    return cudaSuccess;
}

extern "C" cudaError_t launch_reduce_vectorized(const float *in, size_t n, float *out,
                                                void *scratch, size_t bytes, cudaStream_t s)
{
    return vectorized_run<VEC_SHIPPED>(in, n, out, scratch, bytes, s, 1);
}

// ---- tuning variants -----------------------------------------------------------------------
#define VEC_VARIANT(ID, T, U, SCHED, NO_L1, WAVES)                                        \
    static cudaError_t vec_##ID(const float *in, size_t n, float *out, void *sc, size_t bytes, \
                                cudaStream_t s)                                               \
    {                                                                                         \
        return vectorized_run<T, U, SCHED, NO_L1>(in, n, out, sc, bytes, s, WAVES);           \
    }
VEC_VARIANT(gs_1024_4, 1024, 4, VEC_GRID_STRIDE, false, 1)
VEC_VARIANT(gs_1024_4_nol1, 1024, 4, VEC_GRID_STRIDE, true, 1)
VEC_VARIANT(dyn_1024_4, 1024, 4, VEC_DYNAMIC, false, 1)
VEC_VARIANT(dyn_512_4, 512, 4, VEC_DYNAMIC, false, 1)
VEC_VARIANT(dyn_256_4, 256, 4, VEC_DYNAMIC, false, 1)
VEC_VARIANT(dyn_512_8, 512, 8, VEC_DYNAMIC, false, 1)
VEC_VARIANT(dyn_256_8, 256, 8, VEC_DYNAMIC, false, 1)
VEC_VARIANT(dyn_512_4_nol1, 512, 4, VEC_DYNAMIC, true, 1)
VEC_VARIANT(even_256_4_w4, 256, 4, VEC_EVEN_SHARE, false, 4)
VEC_VARIANT(even_256_8_w4, 256, 8, VEC_EVEN_SHARE, false, 4)
VEC_VARIANT(even_512_4_w2, 512, 4, VEC_EVEN_SHARE, false, 2)

static const shipped_kernel reduce_variants[] = {
    {.name = "reduce_vectorized[stride,1024x4]", .problem = "reduce_sum", .reduce = vec_gs_1024_4},
    {.name = "reduce_vectorized[stride,1024x4,noL1]", .problem = "reduce_sum",
     .reduce = vec_gs_1024_4_nol1},
    {.name = "reduce_vectorized[dynamic,1024x4]", .problem = "reduce_sum",
     .reduce = vec_dyn_1024_4},
    {.name = "reduce_vectorized[dynamic,512x4]", .problem = "reduce_sum", .reduce = vec_dyn_512_4},
    {.name = "reduce_vectorized[dynamic,256x4]", .problem = "reduce_sum", .reduce = vec_dyn_256_4},
    {.name = "reduce_vectorized[dynamic,512x8]", .problem = "reduce_sum", .reduce = vec_dyn_512_8},
    {.name = "reduce_vectorized[dynamic,256x8]", .problem = "reduce_sum", .reduce = vec_dyn_256_8},
    {.name = "reduce_vectorized[dynamic,512x4,noL1]", .problem = "reduce_sum",
     .reduce = vec_dyn_512_4_nol1},
    {.name = "reduce_vectorized[even,256x4,4 waves]", .problem = "reduce_sum",
     .reduce = vec_even_256_4_w4},
    {.name = "reduce_vectorized[even,256x8,4 waves]", .problem = "reduce_sum",
     .reduce = vec_even_256_8_w4},
    {.name = "reduce_vectorized[even,512x4,2 waves]", .problem = "reduce_sum",
     .reduce = vec_even_512_4_w2},
};

extern "C" const shipped_kernel *reduce_tune_table(size_t *count)
{
    *count = sizeof reduce_variants / sizeof reduce_variants[0];
    return reduce_variants;
}
