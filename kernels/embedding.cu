// embedding.cu - embedding lookup, out[t, :] = W[idx[t], :], in teaching order:
// one thread per output element, one warp per row, 16-byte copies with many
// rows a block.  The library baseline is a device-to-device copy of the same
// number of output bytes (measured by the engine, not a launcher here).
//
// The engine checks the indices before a launch; the kernels still never read
// outside W: a row whose index is out of [0, V) is written as zeros.
#include "kcommon.cuh"
#include "ktune.h"

static bool embed_args_ok(const float *W, const int32_t *idx, const float *out, int T, int D, int V)
{
    return W && idx && out && T >= 1 && D >= 1 && V >= 1;
}

// ---- 1. one thread per output element ------------------------------------------------
// The element's token and column come from a division and a remainder.
// block 256, grid ceil(T*D/256).
__global__ void embed_naive_kernel(const float *W, const int32_t *idx, float *out, int T, int D, int V)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (size_t)T * (size_t)D) return;
    const size_t t = i / (size_t)D, d = i % (size_t)D;
    const int row = idx[t];
    out[i] = row >= 0 && row < V ? W[(size_t)row * D + d] : 0.0f;
}

// ---- 2. one warp per row -----------------------------------------------------------------
// The warp reads the index once and its lanes copy the row 32 floats at a time.
// block 256 (8 rows a block), grid ceil(T/8).
__global__ void embed_warp_row_kernel(const float *W, const int32_t *idx, float *out, int T, int D, int V)
{
    const int warps = blockDim.x / 32;
    const int t = blockIdx.x * warps + (int)(threadIdx.x / 32);
    const int lane = threadIdx.x & 31;
    if (t >= T) return;
    const int row = idx[t];
    const bool ok = row >= 0 && row < V;
    const float *src = W + (size_t)(ok ? row : 0) * D;
    float *dst = out + (size_t)t * D;
    for (int d = lane; d < D; d += 32) dst[d] = ok ? src[d] : 0.0f;
}

// ---- 3. vectorized: 16-byte copies, ROWS rows a block, UNROLL loads in flight -----------
// Each thread loads ROWS x UNROLL words before it stores any, so a thread has
// that many independent loads outstanding; stores bypass L1 and are marked as
// streaming (written once, not read again here).  VEC is 4 (float4) when D is
// a multiple of 4 and W and out are 16-byte aligned, 1 (float) otherwise; D
// below is then counted in those words.  block THREADS, grid ceil(T/ROWS).
template <int VEC> struct vec_word;
template <> struct vec_word<4> {
    typedef float4 type;
    static __device__ __forceinline__ type zero() { return make_float4(0.0f, 0.0f, 0.0f, 0.0f); }
};
template <> struct vec_word<1> {
    typedef float type;
    static __device__ __forceinline__ type zero() { return 0.0f; }
};

template <int VEC, int THREADS, int ROWS, int UNROLL>
__global__ void __launch_bounds__(THREADS)
embed_vectorized_kernel(const float *__restrict__ W, const int32_t *__restrict__ idx,
                        float *__restrict__ out, int T, int D, int V)
{
    typedef typename vec_word<VEC>::type word;
    const int words = D / VEC;
    const word *Wv = reinterpret_cast<const word *>(W);
    word *outv = reinterpret_cast<word *>(out);
    const int t0 = blockIdx.x * ROWS;

    const word *src[ROWS];
    word *dst[ROWS];
    bool live[ROWS], ok[ROWS];
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
        const int t = t0 + r;
        live[r] = t < T;
        const int row = live[r] ? __ldg(idx + t) : 0;
        ok[r] = row >= 0 && row < V;
        src[r] = Wv + (size_t)(ok[r] ? row : 0) * words;
        dst[r] = outv + (size_t)(live[r] ? t : 0) * words;
    }
    for (int c0 = 0; c0 < words; c0 += THREADS * UNROLL) {
        word v[ROWS][UNROLL];
#pragma unroll
        for (int r = 0; r < ROWS; ++r)
#pragma unroll
            for (int u = 0; u < UNROLL; ++u) {
                const int c = c0 + u * THREADS + (int)threadIdx.x;
                v[r][u] = live[r] && ok[r] && c < words ? __ldg(src[r] + c) : vec_word<VEC>::zero();
            }
#pragma unroll
        for (int r = 0; r < ROWS; ++r)
#pragma unroll
            for (int u = 0; u < UNROLL; ++u) {
                const int c = c0 + u * THREADS + (int)threadIdx.x;
                if (live[r] && c < words) __stcs(dst[r] + c, v[r][u]);
            }
    }
}

// ---- launchers ---------------------------------------------------------------------------
extern "C" cudaError_t launch_embed_naive(const float *W, const int32_t *idx, float *out, int T,
                                          int D, int V, cudaStream_t s)
{
    if (!embed_args_ok(W, idx, out, T, D, V)) return cudaErrorInvalidValue;
    const size_t blocks = k_ceil_div((size_t)T * (size_t)D, 256);
    if (blocks > 0x7fffffffu) return cudaErrorInvalidValue;
    embed_naive_kernel<<<(unsigned)blocks, 256, 0, s>>>(W, idx, out, T, D, V);
    KCHECK_LAUNCH();
    return cudaSuccess;
}

extern "C" cudaError_t launch_embed_warp_row(const float *W, const int32_t *idx, float *out, int T,
                                             int D, int V, cudaStream_t s)
{
    if (!embed_args_ok(W, idx, out, T, D, V)) return cudaErrorInvalidValue;
    embed_warp_row_kernel<<<(unsigned)k_ceil_div((size_t)T, 8), 256, 0, s>>>(W, idx, out, T, D, V);
    KCHECK_LAUNCH();
    return cudaSuccess;
}

template <int THREADS, int ROWS, int UNROLL>
static cudaError_t vectorized_run(const float *W, const int32_t *idx, float *out, int T, int D,
                                  int V, cudaStream_t s)
{
    if (!embed_args_ok(W, idx, out, T, D, V)) return cudaErrorInvalidValue;
    const unsigned blocks = (unsigned)k_ceil_div((size_t)T, ROWS);
    if (D % 4 == 0 && k_aligned16(W) && k_aligned16(out))
        embed_vectorized_kernel<4, THREADS, ROWS, UNROLL><<<blocks, THREADS, 0, s>>>(W, idx, out, T, D, V);
    else
        embed_vectorized_kernel<1, THREADS, ROWS, UNROLL><<<blocks, THREADS, 0, s>>>(W, idx, out, T, D, V);
    KCHECK_LAUNCH();
    return cudaSuccess;
}

#define EMBED_SHIPPED 512, 2, 2

extern "C" cudaError_t launch_embed_vectorized(const float *W, const int32_t *idx, float *out,
                                               int T, int D, int V, cudaStream_t s)
{
    return vectorized_run<EMBED_SHIPPED>(W, idx, out, T, D, V, s);
}

// ---- tables ---------------------------------------------------------------------------------
static const shipped_kernel embedding_rungs[] = {
    {.name = "embed_naive", .problem = "embedding", .embed = launch_embed_naive},
    {.name = "embed_warp_row", .problem = "embedding", .embed = launch_embed_warp_row},
    {.name = "embed_vectorized", .problem = "embedding", .embed = launch_embed_vectorized},
};

extern "C" const shipped_kernel *embedding_table(size_t *count)
{
    *count = sizeof embedding_rungs / sizeof embedding_rungs[0];
    return embedding_rungs;
}

static const raw_kernel embedding_raw[] = {
    {.name = "embed_naive", .func = (const void *)embed_naive_kernel, .sig = "pppiii",
     .doc = "(W, idx, out, T, D, V): one thread per element; block 256, grid ceil(T*D/256)"},
    {.name = "embed_warp_row", .func = (const void *)embed_warp_row_kernel, .sig = "pppiii",
     .doc = "(W, idx, out, T, D, V): one warp per row; block a multiple of 32, grid ceil(T/(block/32))"},
    {.name = "embed_vectorized", .func = (const void *)embed_vectorized_kernel<1, 512, 2, 2>,
     .sig = "pppiii",
     .doc = "(W, idx, out, T, D, V): element copies, 2 rows a block; block 512, grid ceil(T/2)"},
};

extern "C" const raw_kernel *embedding_raw_table(size_t *count)
{
    *count = sizeof embedding_raw / sizeof embedding_raw[0];
    return embedding_raw;
}

// ---- tuning variants ---------------------------------------------------------------------------
#define EMBED_VARIANT(T_, R_, U_)                                                                   \
    static cudaError_t embed_##T_##_##R_##_##U_(const float *W, const int32_t *idx, float *out,     \
                                                int T, int D, int V, cudaStream_t s)                \
    {                                                                                                \
        return vectorized_run<T_, R_, U_>(W, idx, out, T, D, V, s);                                  \
    }
EMBED_VARIANT(256, 1, 4)
EMBED_VARIANT(256, 2, 4)
EMBED_VARIANT(256, 4, 4)
EMBED_VARIANT(128, 2, 8)
EMBED_VARIANT(512, 2, 2)
EMBED_VARIANT(256, 4, 2)

static const shipped_kernel embedding_variants[] = {
    {.name = "embed_vectorized[256t,1r,4u]", .problem = "embedding", .embed = embed_256_1_4},
    {.name = "embed_vectorized[256t,2r,4u]", .problem = "embedding", .embed = embed_256_2_4},
    {.name = "embed_vectorized[256t,4r,4u]", .problem = "embedding", .embed = embed_256_4_4},
    {.name = "embed_vectorized[128t,2r,8u]", .problem = "embedding", .embed = embed_128_2_8},
    {.name = "embed_vectorized[512t,2r,2u]", .problem = "embedding", .embed = embed_512_2_2},
    {.name = "embed_vectorized[256t,4r,2u]", .problem = "embedding", .embed = embed_256_4_2},
};

extern "C" const shipped_kernel *embedding_tune_table(size_t *count)
{
    *count = sizeof embedding_variants / sizeof embedding_variants[0];
    return embedding_variants;
}
