// matmul_wmma.cu - the tensor-core rungs: C = A x B with the multiply on the
// tensor cores through WMMA (nvcuda::wmma), FP32 accumulation, FP32 output.
//
//   8. gemm_wmma_tf32   A and B in FP32, rounded to TF32 (10 fraction bits)
//                       as they are stored to shared memory; 16x16x8 per
//                       warp-wide multiply;
//   9. gemm_wmma_bf16   A and B already in BF16 (the engine converts the
//                       problem's inputs before timing); 16x16x16 per
//                       multiply, twice TF32's rate on the same hardware;
//  10. gemm_wmma_async  as 9, with the tiles copied by cp.async into a ring of
//                       STAGES shared-memory slices, so the copies of later
//                       slices overlap the multiplies of the current one.
//
// Rungs 8 and 9 stage the tiles through registers (load, store to shared
// memory, barrier, multiply, barrier), as rung 6 does.  A block of 8 warps
// owns a 128x128 tile of C, each warp 64x32 of it: 4 x 2 accumulator
// fragments of 16x16 floats.  Shared-memory rows are padded by 16 bytes so
// that the fragment loads spread over the banks.
//
// WMMA in TF32 and BF16 needs compute capability 8.0 (Ampere) or newer: on
// older GPUs these kernels compile to nothing and the launchers refuse to
// run (cudaErrorNotSupported).  Every rung takes any M, N, K >= 1: rows that
// are not whole 16-byte words load element by element, and fragments that
// cross the edge of C are written through shared memory.
//
// WMMA is the portable path to the tensor cores.  Hopper's fastest one is
// wgmma (warp-group, asynchronous, operands straight from shared memory),
// which WMMA cannot emit; cuBLAS uses it there, which bounds how close these
// rungs come on an H100 (bench/KERNELS.md).  Rung 11, gemm_wgmma
// (matmul_wgmma.cu), takes that path on Hopper.
#include <cuda_bf16.h>
#include <mma.h>
#include <type_traits>

#include "matmul.cuh"

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
#define K_TC_BODY 1
#else
#define K_TC_BODY 0
#endif

// Blocks a multiprocessor asked of the compiler: the shapes were sized on
// Hopper; older compilers spill under the same cap, so there it is lifted.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#define TC_MINB(m) 1
#else
#define TC_MINB(m) (m)
#endif

// What each precision keeps in memory and feeds the tensor cores.
struct tc_tf32 {
    typedef float raw;                   // element as stored in memory
    static constexpr bool TF32 = true;
    static constexpr int KSTEP = 8;      // k of one 16x16xk multiply
    static constexpr int VEC = 4;        // elements in 16 bytes
    static constexpr int BK_SYNC = 16;   // K slice of rung 8
};
struct tc_bf16 {
    typedef unsigned short raw;          // bfloat16 bits
    static constexpr bool TF32 = false;
    static constexpr int KSTEP = 16;
    static constexpr int VEC = 8;
    static constexpr int BK_SYNC = 32;
};

// 16 bytes of a row: whole (MODE 1) or element by element (MODE 2), zeros
// past rows x cols.
template <typename T> union tc_chunk {
    uint4 u;
    typename T::raw e[T::VEC];
};

template <typename T, int MODE>
__device__ __forceinline__ tc_chunk<T> tc_load(const typename T::raw *base, int ld, int r, int c,
                                               int rows, int cols)
{
    tc_chunk<T> v;
    v.u = make_uint4(0u, 0u, 0u, 0u);
    if (r >= rows) return v;
    const typename T::raw *p = base + (size_t)r * ld + c;
    if (MODE == 1) {
        if (c < cols) v.u = __ldg(reinterpret_cast<const uint4 *>(p));
    } else {
#pragma unroll
        for (int q = 0; q < T::VEC; ++q)
            if (c + q < cols) v.e[q] = __ldg(p + q);
    }
    return v;
}

#if K_TC_BODY
namespace wmma = nvcuda::wmma;

template <typename T> struct tc_frags {
    typedef typename std::conditional<T::TF32, wmma::precision::tf32, __nv_bfloat16>::type elem;
    typedef typename std::conditional<T::TF32, float, __nv_bfloat16>::type ptr;
    typedef wmma::fragment<wmma::matrix_a, 16, 16, T::KSTEP, elem, wmma::row_major> a;
    typedef wmma::fragment<wmma::matrix_b, 16, 16, T::KSTEP, elem, wmma::row_major> b;
    typedef wmma::fragment<wmma::accumulator, 16, 16, T::KSTEP, float> c;
};

// TF32 rounding (to nearest, ties away from zero, as cvt.rna does) of a
// chunk on its way to shared memory; BF16 chunks pass unchanged.
template <typename T> __device__ __forceinline__ void tc_round(tc_chunk<T> &v)
{
    if constexpr (T::TF32) {
#pragma unroll
        for (int q = 0; q < T::VEC; ++q) v.e[q] = wmma::__float_to_tf32(v.e[q]);
    }
}

template <bool TF32, typename F> __device__ __forceinline__ void tc_round_frag(F &f)
{
    if constexpr (TF32) {
#pragma unroll
        for (int t = 0; t < f.num_elements; ++t) f.x[t] = wmma::__float_to_tf32(f.x[t]);
    }
}

// One warp's FM x FN accumulators into C at (r0, c0) of the output.  A
// fragment wholly inside C goes straight to global memory when C's rows
// allow it (direct); one on the edge is stored to the warp's 16x16 scratch
// in shared memory and copied element by element.
template <typename FC, int FM, int FN>
__device__ __forceinline__ void tc_store(FC (&acc)[FM][FN], float *C, int M, int N, int r0, int c0,
                                         float *scratch, bool direct)
{
    const int lane = threadIdx.x & 31;
#pragma unroll
    for (int i = 0; i < FM; ++i)
#pragma unroll
        for (int j = 0; j < FN; ++j) {
            const int r = r0 + 16 * i, c = c0 + 16 * j;
            if (r >= M || c >= N) continue;
            if (direct && r + 16 <= M && c + 16 <= N) {
                wmma::store_matrix_sync(C + (size_t)r * N + c, acc[i][j], N, wmma::mem_row_major);
                continue;
            }
            wmma::store_matrix_sync(scratch, acc[i][j], 16, wmma::mem_row_major);
            __syncwarp();
            for (int e = lane; e < 256; e += 32) {
                const int rr = r + e / 16, cc = c + e % 16;
                if (rr < M && cc < N) C[(size_t)rr * N + cc] = scratch[e];
            }
            __syncwarp();
        }
}
#endif

// Whether C can take whole fragments: 32-byte aligned, rows of whole
// 16-byte words.
__device__ __forceinline__ bool tc_direct_ok(const float *C, int N)
{
    return ((size_t)C & 31u) == 0 && N % 4 == 0;
}

// ---- 8 and 9: WMMA, tiles staged through registers ------------------------------------------
#define TC_BM 128
#define TC_BN 128
#define TC_WM 64
#define TC_WN 32

template <typename T, int MODE>
__global__ void __launch_bounds__(256)
gemm_wmma_kernel(int M, int N, int K, const typename T::raw *__restrict__ A,
                 const typename T::raw *__restrict__ B, float *__restrict__ C)
{
#if K_TC_BODY
    typedef tc_frags<T> F;
    constexpr int BK = T::BK_SYNC, V = T::VEC;
    constexpr int LDA = BK + V, LDB = TC_BN + V;
    constexpr int FM = TC_WM / 16, FN = TC_WN / 16;
    constexpr int A_CH = TC_BM * BK / V / 256, B_CH = BK * TC_BN / V / 256;
    static_assert(A_CH * 256 * V == TC_BM * BK && B_CH * 256 * V == BK * TC_BN, "whole chunks");
    static_assert(TC_BM * LDA * sizeof(typename T::raw) >= 8 * 256 * sizeof(float), "scratch fits");
    __shared__ __align__(128) typename T::raw As[TC_BM * LDA];
    __shared__ __align__(128) typename T::raw Bs[BK * LDB];

    const int tid = threadIdx.x, warp = tid >> 5;
    const int wm0 = (warp / (TC_BN / TC_WN)) * TC_WM, wn0 = (warp % (TC_BN / TC_WN)) * TC_WN;
    const int bm0 = blockIdx.y * TC_BM, bn0 = blockIdx.x * TC_BN;
    const typename T::raw *Ab = A + (size_t)bm0 * K;
    const typename T::raw *Bb = B + bn0;
    const int mrows = M - bm0, ncols = N - bn0;
    const typename F::ptr *as = reinterpret_cast<const typename F::ptr *>(As);
    const typename F::ptr *bs = reinterpret_cast<const typename F::ptr *>(Bs);

    typename F::c acc[FM][FN];
#pragma unroll
    for (int i = 0; i < FM; ++i)
#pragma unroll
        for (int j = 0; j < FN; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

    for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
        for (int r = 0; r < A_CH; ++r) {
            const int f = tid + r * 256, row = f / (BK / V), kc = (f % (BK / V)) * V;
            tc_chunk<T> v = tc_load<T, MODE>(Ab, K, row, k0 + kc, mrows, K);
            tc_round<T>(v);
            *reinterpret_cast<uint4 *>(&As[row * LDA + kc]) = v.u;
        }
#pragma unroll
        for (int r = 0; r < B_CH; ++r) {
            const int f = tid + r * 256, kr = f / (TC_BN / V), nc = (f % (TC_BN / V)) * V;
            tc_chunk<T> v = tc_load<T, MODE>(Bb, N, k0 + kr, nc, K, ncols);
            tc_round<T>(v);
            *reinterpret_cast<uint4 *>(&Bs[kr * LDB + nc]) = v.u;
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; kk += T::KSTEP) {
            typename F::a a[FM];
            typename F::b b[FN];
#pragma unroll
            for (int i = 0; i < FM; ++i) wmma::load_matrix_sync(a[i], as + (wm0 + 16 * i) * LDA + kk, LDA);
#pragma unroll
            for (int j = 0; j < FN; ++j) wmma::load_matrix_sync(b[j], bs + kk * LDB + wn0 + 16 * j, LDB);
#pragma unroll
            for (int i = 0; i < FM; ++i)
#pragma unroll
                for (int j = 0; j < FN; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }
    float *scratch = reinterpret_cast<float *>(As) + warp * 256;
    tc_store(acc, C, M, N, bm0 + wm0, bn0 + wn0, scratch, tc_direct_ok(C, N));
#endif
}

// ---- 10. WMMA with a cp.async pipeline ----------------------------------------------------------
// A block of (BM/WM) x (BN/WN) warps, K slices of BK, STAGES slices in
// shared memory (dynamic: more than 48 KB for the larger shapes).  The
// pipeline is the one of sgemm_wtpipe_kernel (matmul_wt_pipe.cu): slices
// 0..STAGES-2 requested before the loop; at step t wait for slice t, one
// barrier, request slice t+STAGES-1 into the stage slice t-1 used, multiply.
// TF32 fragments are rounded after loading (the copies cannot round).
// 16-byte path only: the launcher takes rung 9's element-load kernel for
// other sizes.
template <typename T, int BM, int BN, int BK, int WM, int WN, int STAGES>
struct tcpipe_shape {
    static constexpr int WARPS_N = BN / WN;
    static constexpr int THREADS = (BM / WM) * WARPS_N * 32;
    static constexpr int FM = WM / 16, FN = WN / 16;
    static constexpr int V = T::VEC;
    static constexpr int LDA = BK + V, LDB = BN + V;
    static constexpr int A_STAGE = BM * LDA, B_STAGE = BK * LDB;
    static constexpr size_t SMEM = (size_t)STAGES * (A_STAGE + B_STAGE) * sizeof(typename T::raw);
    static_assert(BM % WM == 0 && BN % WN == 0 && WM % 16 == 0 && WN % 16 == 0, "tiles nest");
    static_assert(BK % T::KSTEP == 0, "whole multiplies along k");
    static_assert((A_STAGE * sizeof(typename T::raw)) % 32 == 0 &&
                      ((A_STAGE + B_STAGE) * sizeof(typename T::raw)) % 128 == 0,
                  "fragments start on 32-byte boundaries in every stage");
    static_assert(STAGES >= 2, "at least two stages");
};

template <typename T, int BM, int BN, int BK, int WM, int WN, int STAGES, int MINB>
__global__ void __launch_bounds__(tcpipe_shape<T, BM, BN, BK, WM, WN, STAGES>::THREADS, TC_MINB(MINB))
gemm_wmma_async_kernel(int M, int N, int K, const typename T::raw *__restrict__ A,
                       const typename T::raw *__restrict__ B, float *__restrict__ C)
{
#if K_TC_BODY
    typedef tcpipe_shape<T, BM, BN, BK, WM, WN, STAGES> P;
    typedef tc_frags<T> F;
    typedef typename T::raw raw;
    extern __shared__ __align__(128) unsigned char tcpipe_smem[];
    raw *const smem = reinterpret_cast<raw *>(tcpipe_smem);

    const int tid = threadIdx.x, warp = tid >> 5;
    const int wm0 = (warp / P::WARPS_N) * WM, wn0 = (warp % P::WARPS_N) * WN;
    const int bm0 = blockIdx.y * BM, bn0 = blockIdx.x * BN;
    const raw *Ab = A + (size_t)bm0 * K;
    const raw *Bb = B + bn0;
    const int mrows = M - bm0, ncols = N - bn0;

    auto request = [&](int k0, int st) {
        raw *as = smem + st * (P::A_STAGE + P::B_STAGE);
        raw *bs = as + P::A_STAGE;
        cp_async_tile<BM, BK, P::LDA, P::THREADS>(as, Ab, K, 0, k0, mrows, K, A, tid);
        cp_async_tile<BK, BN, P::LDB, P::THREADS>(bs, Bb, N, k0, 0, K, ncols, B, tid);
    };

    typename F::c acc[P::FM][P::FN];
#pragma unroll
    for (int i = 0; i < P::FM; ++i)
#pragma unroll
        for (int j = 0; j < P::FN; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

    const int ktiles = (K + BK - 1) / BK;
#pragma unroll
    for (int st = 0; st < STAGES - 1; ++st) {
        if (st < ktiles) request(st * BK, st);
        cp_async_commit();
    }
    int use = 0, fill = STAGES - 1;
    for (int t = 0; t < ktiles; ++t) {
        cp_async_wait<STAGES - 2>();
        __syncthreads();
        if (t + STAGES - 1 < ktiles) request((t + STAGES - 1) * BK, fill);
        cp_async_commit();
        fill = fill == STAGES - 1 ? 0 : fill + 1;

        const typename F::ptr *as =
            reinterpret_cast<const typename F::ptr *>(smem + use * (P::A_STAGE + P::B_STAGE));
        const typename F::ptr *bs = as + P::A_STAGE;
        use = use == STAGES - 1 ? 0 : use + 1;
#pragma unroll
        for (int kk = 0; kk < BK; kk += T::KSTEP) {
            typename F::a a[P::FM];
            typename F::b b[P::FN];
#pragma unroll
            for (int i = 0; i < P::FM; ++i) {
                wmma::load_matrix_sync(a[i], as + (wm0 + 16 * i) * P::LDA + kk, P::LDA);
                tc_round_frag<T::TF32>(a[i]);
            }
#pragma unroll
            for (int j = 0; j < P::FN; ++j) {
                wmma::load_matrix_sync(b[j], bs + kk * P::LDB + wn0 + 16 * j, P::LDB);
                tc_round_frag<T::TF32>(b[j]);
            }
#pragma unroll
            for (int i = 0; i < P::FM; ++i)
#pragma unroll
                for (int j = 0; j < P::FN; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
        }
    }
    cp_async_wait<0>();
    __syncthreads();
    float *scratch = reinterpret_cast<float *>(tcpipe_smem) + warp * 256;
    tc_store(acc, C, M, N, bm0 + wm0, bn0 + wn0, scratch, tc_direct_ok(C, N));
#endif
}

// ---- FP32 to BF16 -------------------------------------------------------------------------------
__global__ void f32_to_bf16_kernel(const float *__restrict__ in, unsigned short *__restrict__ out,
                                   size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        out[i] = __bfloat16_as_ushort(__float2bfloat16_rn(in[i]));
}

extern "C" cudaError_t kernels_f32_to_bf16(const float *in, uint16_t *out, size_t n, cudaStream_t stream)
{
    if (!in || !out) return cudaErrorInvalidValue;
    if (n == 0) return cudaSuccess;
    int sms = 0;
    KCHECK(k_sm_count(&sms));
    const size_t blocks = k_ceil_div(n, 256);
    const unsigned grid = (unsigned)(blocks < (size_t)sms * 8 ? blocks : (size_t)sms * 8);
    f32_to_bf16_kernel<<<grid, 256, 0, stream>>>(in, out, n);
    KCHECK_LAUNCH();
    return cudaSuccess;
}

// ---- launchers -------------------------------------------------------------------------------------
// cudaErrorNotSupported on GPUs without TF32 and BF16 tensor cores (before 8.0).
static cudaError_t tc_supported(void)
{
    int cc = 0;
    KCHECK(k_device_cc(&cc));
    return cc >= 80 ? cudaSuccess : cudaErrorNotSupported;
}

template <typename T>
static bool tc_vec_ok(int N, int K, const void *A, const void *B)
{
    return K % T::VEC == 0 && N % T::VEC == 0 && k_aligned16(A) && k_aligned16(B);
}

template <typename T>
static cudaError_t wmma_run(int M, int N, int K, const typename T::raw *A, const typename T::raw *B,
                            float *C, cudaStream_t s)
{
    if (!k_mm_sizes_ok(M, N, K, A, B, C)) return cudaErrorInvalidValue;
    KCHECK(tc_supported());
    dim3 grid;
    if (!k_mm_grid(M, N, TC_BM, TC_BN, &grid)) return cudaErrorInvalidValue;
    if (tc_vec_ok<T>(N, K, A, B))
        gemm_wmma_kernel<T, 1><<<grid, 256, 0, s>>>(M, N, K, A, B, C);
    else
        gemm_wmma_kernel<T, 2><<<grid, 256, 0, s>>>(M, N, K, A, B, C);
    KCHECK_LAUNCH();
    return cudaSuccess;
}

cudaError_t launch_wmma_tf32(int M, int N, int K, const float *A, const float *B, float *C,
                             cudaStream_t stream)
{
    return wmma_run<tc_tf32>(M, N, K, A, B, C, stream);
}

cudaError_t launch_wmma_bf16(int M, int N, int K, const uint16_t *A, const uint16_t *B, float *C,
                             cudaStream_t stream)
{
    return wmma_run<tc_bf16>(M, N, K, A, B, C, stream);
}

// Asks once per device for the pipeline's dynamic shared memory (and the
// largest carveout); *fits false when this device cannot give that much.
template <typename T, int BM, int BN, int BK, int WM, int WN, int STAGES, int MINB>
static cudaError_t tcpipe_prepare(bool *fits)
{
    typedef tcpipe_shape<T, BM, BN, BK, WM, WN, STAGES> P;
    static int configured = -1;
    int dev = 0, optin = 0;
    KCHECK(cudaGetDevice(&dev));
    KCHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    *fits = P::SMEM <= (size_t)optin;
    if (!*fits || configured == dev) return cudaSuccess;
    const void *f = (const void *)gemm_wmma_async_kernel<T, BM, BN, BK, WM, WN, STAGES, MINB>;
    KCHECK(cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)P::SMEM));
    KCHECK(cudaFuncSetAttribute(f, cudaFuncAttributePreferredSharedMemoryCarveout,
                                cudaSharedmemCarveoutMaxShared));
    configured = dev;
    return cudaSuccess;
}

template <typename T, int BM, int BN, int BK, int WM, int WN, int STAGES, int MINB>
static cudaError_t tcpipe_run(int M, int N, int K, const typename T::raw *A,
                              const typename T::raw *B, float *C, cudaStream_t s)
{
    if (!k_mm_sizes_ok(M, N, K, A, B, C)) return cudaErrorInvalidValue;
    KCHECK(tc_supported());
    bool fits = false;
    if (tc_vec_ok<T>(N, K, A, B)) KCHECK((tcpipe_prepare<T, BM, BN, BK, WM, WN, STAGES, MINB>(&fits)));
    if (!fits) return wmma_run<T>(M, N, K, A, B, C, s);
    typedef tcpipe_shape<T, BM, BN, BK, WM, WN, STAGES> P;
    dim3 grid;
    if (!k_mm_grid(M, N, BM, BN, &grid)) return cudaErrorInvalidValue;
    gemm_wmma_async_kernel<T, BM, BN, BK, WM, WN, STAGES, MINB><<<grid, P::THREADS, P::SMEM, s>>>(
        M, N, K, A, B, C);
    KCHECK_LAUNCH();
    return cudaSuccess;
}

// The shipped configurations (bench/KERNELS.md: how they are chosen; the
// sweep on an H100 at 4096 put 128x128 tiles of 64x64 warps first, 0.32x
// of cuBLAS BF16 against 0.29x for 128x256).  BIG: 128x128 block tiles in K
// slices of 32, 4 warps of 64x64 (4 x 4 fragments), three stages.  SMALL,
// when BIG's tiles would leave multiprocessors idle: 128x128 tiles, 8 warps
// of 64x32, two blocks a multiprocessor.
#define TCP_BIG 128, 128, 32, 64, 64, 3, 1
#define TCP_SMALL 128, 128, 32, 64, 32, 3, 2
// Their names among the tuning variants.
#define TCP_BIG_NAME "gemm_wmma_async[bf16,128x128x32,w64x64,s3]"
#define TCP_SMALL_NAME "gemm_wmma_async[bf16,128x128x32,w64x32,s3]"

cudaError_t launch_wmma_async(int M, int N, int K, const uint16_t *A, const uint16_t *B, float *C,
                              cudaStream_t stream)
{
    if (!k_mm_sizes_ok(M, N, K, A, B, C)) return cudaErrorInvalidValue;
    bool small = false;
    KCHECK(k_mm_small_grid(M, N, &small));
    return small ? tcpipe_run<tc_bf16, TCP_SMALL>(M, N, K, A, B, C, stream)
                 : tcpipe_run<tc_bf16, TCP_BIG>(M, N, K, A, B, C, stream);
}

// ---- tuning variants and resources -----------------------------------------------------------------
template <typename T, int BM, int BN, int BK, int WM, int WN, int STAGES, int MINB>
static bool tcpipe_resources(kernel_resources *out)
{
    typedef tcpipe_shape<T, BM, BN, BK, WM, WN, STAGES> P;
    bool fits = false;
    if (tc_supported() != cudaSuccess ||
        tcpipe_prepare<T, BM, BN, BK, WM, WN, STAGES, MINB>(&fits) != cudaSuccess || !fits)
        return false;
    const void *f = (const void *)gemm_wmma_async_kernel<T, BM, BN, BK, WM, WN, STAGES, MINB>;
    return k_kernel_resources(f, P::THREADS, P::SMEM, out) == cudaSuccess;
}

template <typename T> static bool wmma_resources(kernel_resources *out)
{
    if (tc_supported() != cudaSuccess) return false;
    return k_kernel_resources((const void *)gemm_wmma_kernel<T, 1>, 256, 0, out) == cudaSuccess;
}

template <int BM, int BN, int BK, int WM, int WN, int STAGES, int MINB>
static cudaError_t tcpipe_tf32(int M, int N, int K, const float *A, const float *B, float *C,
                               cudaStream_t s)
{
    return tcpipe_run<tc_tf32, BM, BN, BK, WM, WN, STAGES, MINB>(M, N, K, A, B, C, s);
}

template <int BM, int BN, int BK, int WM, int WN, int STAGES, int MINB>
static cudaError_t tcpipe_bf16(int M, int N, int K, const uint16_t *A, const uint16_t *B, float *C,
                               cudaStream_t s)
{
    return tcpipe_run<tc_bf16, BM, BN, BK, WM, WN, STAGES, MINB>(M, N, K, A, B, C, s);
}

#define TC_TF32(label, ...)                                                                          \
    {.k = {.name = label, .problem = "sgemm", .sgemm = tcpipe_tf32<__VA_ARGS__>,                     \
           .precision = "tf32", .min_cc = 80},                                                       \
     .resources = tcpipe_resources<tc_tf32, __VA_ARGS__>}
#define TC_BF16(label, ...)                                                                          \
    {.k = {.name = label, .problem = "sgemm", .gemm_bf16 = tcpipe_bf16<__VA_ARGS__>,                 \
           .precision = "bf16", .min_cc = 80},                                                       \
     .resources = tcpipe_resources<tc_bf16, __VA_ARGS__>}

static const k_tune_variant tc_variants[] = {
    TC_BF16("gemm_wmma_async[bf16,128x128x32,w64x32,s2]", 128, 128, 32, 64, 32, 2, 1),
    TC_BF16(TCP_SMALL_NAME, TCP_SMALL),
    TC_BF16("gemm_wmma_async[bf16,128x128x32,w64x32,s4]", 128, 128, 32, 64, 32, 4, 2),
    TC_BF16("gemm_wmma_async[bf16,128x128x64,w64x32,s3]", 128, 128, 64, 64, 32, 3, 2),
    TC_BF16(TCP_BIG_NAME, TCP_BIG),
    TC_BF16("gemm_wmma_async[bf16,128x256x32,w64x64,s3]", 128, 256, 32, 64, 64, 3, 1),
    TC_BF16("gemm_wmma_async[bf16,128x256x32,w64x64,s4]", 128, 256, 32, 64, 64, 4, 1),
    TC_BF16("gemm_wmma_async[bf16,256x128x32,w64x64,s3]", 256, 128, 32, 64, 64, 3, 1),
    TC_TF32("gemm_wmma_async[tf32,128x128x16,w64x32,s3]", 128, 128, 16, 64, 32, 3, 2),
    TC_TF32("gemm_wmma_async[tf32,128x128x32,w64x32,s3]", 128, 128, 32, 64, 32, 3, 1),
    TC_TF32("gemm_wmma_async[tf32,128x256x16,w64x64,s3]", 128, 256, 16, 64, 64, 3, 1),
    TC_TF32("gemm_wmma_async[tf32,128x256x32,w64x64,s3]", 128, 256, 32, 64, 64, 3, 1),
};

#define TC_NVARIANTS (sizeof tc_variants / sizeof tc_variants[0])

const shipped_kernel *k_wmma_tune(size_t *count)
{
    static shipped_kernel t[TC_NVARIANTS];
    static bool made = false;
    *count = TC_NVARIANTS;
    return k_tune_entries(tc_variants, TC_NVARIANTS, t, &made);
}

bool k_wmma_resources(const char *name, int M, int N, kernel_resources *out)
{
    if (strcmp(name, "gemm_wmma_tf32") == 0) return wmma_resources<tc_tf32>(out);
    if (strcmp(name, "gemm_wmma_bf16") == 0) return wmma_resources<tc_bf16>(out);
    if (strcmp(name, "gemm_wmma_async") == 0) {
        bool small = false;
        if (k_mm_small_grid(M, N, &small) != cudaSuccess) return false;
        return small ? tcpipe_resources<tc_bf16, TCP_SMALL>(out)
                     : tcpipe_resources<tc_bf16, TCP_BIG>(out);
    }
    return k_tune_variant_resources(tc_variants, TC_NVARIANTS, name, out);
}

const char *k_wmma_shipped_as(const char *rung, int M, int N)
{
    bool small = false;
    if (strcmp(rung, "gemm_wmma_async") != 0 || k_mm_small_grid(M, N, &small) != cudaSuccess)
        return NULL;
    return small ? TCP_SMALL_NAME : TCP_BIG_NAME;
}
