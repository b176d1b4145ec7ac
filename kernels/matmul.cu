// matmul.cu - FP32 C = A x B (row-major; A is M x K, B is K x N), in teaching
// order: one thread per output, coalescing, shared-memory tiles, more outputs
// per thread (1-D, then 2-D), 16-byte loads, warp tiling with a prefetched
// double buffer; cuBLAS SGEMM as the library baseline.
//
// Every rung takes any M, N, K >= 1.  Rungs 6 and 7 use 16-byte global loads
// when K and N are multiples of 4 and the matrices are 16-byte aligned, and
// element loads otherwise.
#include <cublas_v2.h>
#include <dlfcn.h>

#include "kcommon.cuh"
#include "ktune.h"

static bool sizes_ok(int M, int N, int K, const float *A, const float *B, const float *C)
{
    return M >= 1 && N >= 1 && K >= 1 && A && B && C;
}

// ---- 1. naive: one thread per output, threadIdx.x walks down a column ------------
// Neighbouring threads read rows of A that lie K floats apart and write C with
// a stride of N: no access is coalesced.  block (32, 32), grid (ceil(M/32), ceil(N/32)).
__global__ void sgemm_naive_kernel(int M, int N, int K, const float *A, const float *B, float *C)
{
    const int row = blockIdx.x * blockDim.x + threadIdx.x;
    const int col = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[(size_t)row * K + k] * B[(size_t)k * N + col];
    C[(size_t)row * N + col] = acc;
}

// ---- 2. coalesced: threadIdx.x walks along a row ----------------------------------
// A warp reads one element of A (a broadcast) and 32 neighbouring elements of
// B, and writes 32 neighbouring outputs.  block (32, 32), grid (ceil(N/32), ceil(M/32)).
__global__ void sgemm_coalesced_kernel(int M, int N, int K, const float *A, const float *B, float *C)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[(size_t)row * K + k] * B[(size_t)k * N + col];
    C[(size_t)row * N + col] = acc;
}

// ---- 3. shared-memory tiles ----------------------------------------------------------
// The block stages a 32x32 tile of A and of B in shared memory, then every
// thread reads its row and column from there: each global element is read
// once per block instead of 32 times.  block (32, 32), grid (ceil(N/32), ceil(M/32)).
#define SMEM_TILE 32
__global__ void sgemm_smem_tiled_kernel(int M, int N, int K, const float *A, const float *B, float *C)
{
    __shared__ float As[SMEM_TILE][SMEM_TILE];
    __shared__ float Bs[SMEM_TILE][SMEM_TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * SMEM_TILE + ty;
    const int col = blockIdx.x * SMEM_TILE + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += SMEM_TILE) {
        As[ty][tx] = row < M && k0 + tx < K ? A[(size_t)row * K + k0 + tx] : 0.0f;
        Bs[ty][tx] = k0 + ty < K && col < N ? B[(size_t)(k0 + ty) * N + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < SMEM_TILE; ++k) acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    if (row < M && col < N) C[(size_t)row * N + col] = acc;
}

// ---- 4. 1-D block tiling: 8 outputs of one column per thread ------------------------
// A 64x64 output tile, K in steps of 8; each thread keeps one B value in a
// register and reuses it for 8 rows.  block 512, grid (ceil(N/64), ceil(M/64)).
#define BT1_BM 64
#define BT1_BN 64
#define BT1_BK 8
#define BT1_TM 8
__global__ void __launch_bounds__(512)
sgemm_blocktile_1d_kernel(int M, int N, int K, const float *A, const float *B, float *C)
{
    __shared__ float As[BT1_BM * BT1_BK];
    __shared__ float Bs[BT1_BK * BT1_BN];
    const int tid = threadIdx.x;
    const int bm0 = blockIdx.y * BT1_BM, bn0 = blockIdx.x * BT1_BN;
    const int tcol = tid % BT1_BN, trow = tid / BT1_BN;
    const int a_row = tid / BT1_BK, a_col = tid % BT1_BK;
    const int b_row = tid / BT1_BN, b_col = tid % BT1_BN;
    float acc[BT1_TM] = {};
    for (int k0 = 0; k0 < K; k0 += BT1_BK) {
        const int ar = bm0 + a_row, ak = k0 + a_col;
        As[a_row * BT1_BK + a_col] = ar < M && ak < K ? A[(size_t)ar * K + ak] : 0.0f;
        const int bk = k0 + b_row, bc = bn0 + b_col;
        Bs[b_row * BT1_BN + b_col] = bk < K && bc < N ? B[(size_t)bk * N + bc] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BT1_BK; ++k) {
            const float b = Bs[k * BT1_BN + tcol];
#pragma unroll
            for (int r = 0; r < BT1_TM; ++r) acc[r] += As[(trow * BT1_TM + r) * BT1_BK + k] * b;
        }
        __syncthreads();
    }
    const int col = bn0 + tcol;
#pragma unroll
    for (int r = 0; r < BT1_TM; ++r) {
        const int row = bm0 + trow * BT1_TM + r;
        if (row < M && col < N) C[(size_t)row * N + col] = acc[r];
    }
}

// ---- 5. 2-D block tiling: an 8x8 patch of outputs per thread ----------------------------
// A 128x128 output tile; per k step a thread loads 8 values of A and 8 of B
// into registers and does 64 multiply-adds with them.  block 256, grid
// (ceil(N/128), ceil(M/128)).
#define BT_BM 128
#define BT_BN 128
#define BT_BK 8
#define BT_T 8
__global__ void __launch_bounds__(256)
sgemm_blocktile_2d_kernel(int M, int N, int K, const float *A, const float *B, float *C)
{
    __shared__ float As[BT_BM * BT_BK];
    __shared__ float Bs[BT_BK * BT_BN];
    const int tid = threadIdx.x;
    const int bm0 = blockIdx.y * BT_BM, bn0 = blockIdx.x * BT_BN;
    const int tcol = tid % (BT_BN / BT_T), trow = tid / (BT_BN / BT_T);
    float acc[BT_T][BT_T] = {};
    float rm[BT_T], rn[BT_T];
    for (int k0 = 0; k0 < K; k0 += BT_BK) {
#pragma unroll
        for (int e = tid; e < BT_BM * BT_BK; e += 256) {
            const int r = e / BT_BK, c = e % BT_BK;
            const int gr = bm0 + r, gk = k0 + c;
            As[e] = gr < M && gk < K ? A[(size_t)gr * K + gk] : 0.0f;
        }
#pragma unroll
        for (int e = tid; e < BT_BK * BT_BN; e += 256) {
            const int r = e / BT_BN, c = e % BT_BN;
            const int gk = k0 + r, gc = bn0 + c;
            Bs[e] = gk < K && gc < N ? B[(size_t)gk * N + gc] : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BT_BK; ++k) {
#pragma unroll
            for (int i = 0; i < BT_T; ++i) rm[i] = As[(trow * BT_T + i) * BT_BK + k];
#pragma unroll
            for (int j = 0; j < BT_T; ++j) rn[j] = Bs[k * BT_BN + tcol * BT_T + j];
#pragma unroll
            for (int i = 0; i < BT_T; ++i)
#pragma unroll
                for (int j = 0; j < BT_T; ++j) acc[i][j] += rm[i] * rn[j];
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < BT_T; ++i) {
        const int row = bm0 + trow * BT_T + i;
        if (row >= M) break;
#pragma unroll
        for (int j = 0; j < BT_T; ++j) {
            const int col = bn0 + tcol * BT_T + j;
            if (col < N) C[(size_t)row * N + col] = acc[i][j];
        }
    }
}

// ---- shared load helpers for rungs 6 and 7 ----------------------------------------------
// MODE 1: 16-byte loads, rows and columns checked (cols a multiple of 4).
// MODE 2: element loads, every element checked.  Out-of-range elements read
// as zero; stores skip them.
template <int MODE>
__device__ __forceinline__ float4 load4(const float *base, int ld, int r, int c, int rows, int cols)
{
    const float *p = base + (size_t)r * ld + c;
    if (MODE == 1) {
        if (r < rows && c < cols) return __ldg(reinterpret_cast<const float4 *>(p));
        return make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    }
    float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (r < rows) {
        if (c < cols) v.x = __ldg(p);
        if (c + 1 < cols) v.y = __ldg(p + 1);
        if (c + 2 < cols) v.z = __ldg(p + 2);
        if (c + 3 < cols) v.w = __ldg(p + 3);
    }
    return v;
}

template <int MODE>
__device__ __forceinline__ void store4(float *C, int ld, int r, int c, int rows, int cols, float4 v)
{
    float *p = C + (size_t)r * ld + c;
    if (MODE == 1) {
        if (r < rows && c < cols) *reinterpret_cast<float4 *>(p) = v;
    } else if (r < rows) {
        if (c < cols) p[0] = v.x;
        if (c + 1 < cols) p[1] = v.y;
        if (c + 2 < cols) p[2] = v.z;
        if (c + 3 < cols) p[3] = v.w;
    }
}

static bool vec_ok(int N, int K, const float *A, const float *B, const float *C)
{
    return K % 4 == 0 && N % 4 == 0 && k_aligned16(A) && k_aligned16(B) && k_aligned16(C);
}

// ---- 6. 16-byte loads, A stored transposed ------------------------------------------------
// As rung 5, but each thread fetches its share of the tiles with one 16-byte
// load per matrix, stores the A tile transposed (k-major), and reads its 8
// values of A and 8 of B from shared memory as two 16-byte words each.
// block 256, grid (ceil(N/128), ceil(M/128)).
template <int MODE>
__global__ void __launch_bounds__(256)
sgemm_vectorized_kernel(int M, int N, int K, const float *__restrict__ A,
                        const float *__restrict__ B, float *__restrict__ C)
{
    __shared__ __align__(16) float As[BT_BK][BT_BM];
    __shared__ __align__(16) float Bs[BT_BK][BT_BN];
    const int tid = threadIdx.x;
    const int bm0 = blockIdx.y * BT_BM, bn0 = blockIdx.x * BT_BN;
    const int tcol = tid % (BT_BN / BT_T), trow = tid / (BT_BN / BT_T);
    const int a_row = tid / (BT_BK / 4), a_k = (tid % (BT_BK / 4)) * 4;
    const int b_k = tid / (BT_BN / 4), b_col = (tid % (BT_BN / 4)) * 4;
    const float *Ab = A + (size_t)bm0 * K;
    const float *Bb = B + bn0;
    float acc[BT_T][BT_T] = {};
    float rm[BT_T], rn[BT_T];
    for (int k0 = 0; k0 < K; k0 += BT_BK) {
        const float4 a = load4<MODE>(Ab, K, a_row, k0 + a_k, M - bm0, K);
        As[a_k + 0][a_row] = a.x;
        As[a_k + 1][a_row] = a.y;
        As[a_k + 2][a_row] = a.z;
        As[a_k + 3][a_row] = a.w;
        *reinterpret_cast<float4 *>(&Bs[b_k][b_col]) =
            load4<MODE>(Bb, N, k0 + b_k, b_col, K, N - bn0);
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BT_BK; ++k) {
            const float4 m0 = *reinterpret_cast<const float4 *>(&As[k][trow * BT_T]);
            const float4 m1 = *reinterpret_cast<const float4 *>(&As[k][trow * BT_T + 4]);
            const float4 n0 = *reinterpret_cast<const float4 *>(&Bs[k][tcol * BT_T]);
            const float4 n1 = *reinterpret_cast<const float4 *>(&Bs[k][tcol * BT_T + 4]);
            rm[0] = m0.x; rm[1] = m0.y; rm[2] = m0.z; rm[3] = m0.w;
            rm[4] = m1.x; rm[5] = m1.y; rm[6] = m1.z; rm[7] = m1.w;
            rn[0] = n0.x; rn[1] = n0.y; rn[2] = n0.z; rn[3] = n0.w;
            rn[4] = n1.x; rn[5] = n1.y; rn[6] = n1.z; rn[7] = n1.w;
#pragma unroll
            for (int i = 0; i < BT_T; ++i)
#pragma unroll
                for (int j = 0; j < BT_T; ++j) acc[i][j] = fmaf(rm[i], rn[j], acc[i][j]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < BT_T; ++i) {
        const int r = trow * BT_T + i;
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const float4 v = make_float4(acc[i][4 * h], acc[i][4 * h + 1], acc[i][4 * h + 2],
                                         acc[i][4 * h + 3]);
            store4<MODE>(C + (size_t)bm0 * N + bn0, N, r, tcol * BT_T + 4 * h, M - bm0, N - bn0, v);
        }
    }
}

// ---- 7. warp tiling, prefetched double buffer -------------------------------------------------
// The block tile (BM x BN) is split among warps (WM x WN each); a warp's
// threads form a TROWS x TCOLS grid and each owns TM x TN outputs made of 4x4
// pieces spaced WM/(TM/4) rows and WN/(TN/4) columns apart, so a warp's
// 16-byte shared-memory reads touch few distinct words and no bank twice.
// Shared memory holds two stages: while the warps multiply out of one, the
// next K slice is on its way into the other, one barrier a step.  The
// fragments of A and B are double-buffered in registers too, so the reads
// for step k+1 are in flight during the multiply-adds of step k.
//
// The next slice travels one of two ways.  ASYNC false: 16-byte loads into
// registers at the top of the step, stored to shared memory (A transposed)
// at its end.  ASYNC true (16-byte path only): cp.async copies that need no
// registers, B straight into its stage, A into a staging tile that each
// thread transposes (its own 16 bytes) into the A stage at the end of the
// step.  The copies are issued at the top of the step whatever the
// compiler's register budget, where register loads may be moved later.
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN>
struct warptile_shape {
    static constexpr int WARPS_N = BN / WN;
    static constexpr int THREADS = (BM / WM) * WARPS_N * 32;
    static constexpr int TCOLS = WN / TN;
    static constexpr int MCH = TM / 4, NCH = TN / 4;
    static constexpr int MSTR = WM / MCH, NSTR = WN / NCH;
    static constexpr int A_LD = BM + 4;
    static constexpr int A_V4 = BM * BK / 4 / THREADS;
    static constexpr int B_V4 = BK * BN / 4 / THREADS;
    static_assert((WM / TM) * (WN / TN) == 32, "a warp's threads must cover its tile");
    static_assert(A_V4 >= 1 && A_V4 * THREADS * 4 == BM * BK, "A tile must split into float4 loads");
    static_assert(B_V4 >= 1 && B_V4 * THREADS * 4 == BK * BN, "B tile must split into float4 loads");
    static_assert(BK % 4 == 0 && TM % 4 == 0 && TN % 4 == 0, "tiles are made of 4-wide pieces");
};

// 16-byte asynchronous copy global -> shared; zero-fills when !valid.
// cp.async exists from sm_80 on; older GPUs (Turing) copy synchronously,
// which the barrier after the wait orders just the same.
__device__ __forceinline__ void cp_async16(void *smem, const float *gmem, bool valid)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const unsigned dst = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(gmem),
                 "r"(valid ? 16 : 0));
#else
    *reinterpret_cast<float4 *>(smem) =
        valid ? *reinterpret_cast<const float4 *>(gmem) : make_float4(0.f, 0.f, 0.f, 0.f);
#endif
}

__device__ __forceinline__ void cp_async_commit()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::);
#endif
}

__device__ __forceinline__ void cp_async_wait_all()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group 0;\n" ::: "memory");
#endif
}

template <bool ASYNC, int BM, int BK> struct warptile_staging {
    __device__ float (*tile())[BK] { return nullptr; }
};
template <int BM, int BK> struct warptile_staging<true, BM, BK> {
    float a[BM][BK];
    __device__ float (*tile())[BK] { return a; }
};

// Two blocks a multiprocessor caps registers at 128 a thread; tuned on
// Hopper, where that fits.  Older GPUs' compilers spill under that cap, so
// there the cap is lifted.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#define WARPTILE_MINB(m) 1
#else
#define WARPTILE_MINB(m) (m)
#endif

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int MINB, int MODE, bool ASYNC>
__global__ void __launch_bounds__(warptile_shape<BM, BN, BK, WM, WN, TM, TN>::THREADS, WARPTILE_MINB(MINB))
sgemm_warptile_kernel(int M, int N, int K, const float *__restrict__ A,
                      const float *__restrict__ B, float *__restrict__ C)
{
    using P = warptile_shape<BM, BN, BK, WM, WN, TM, TN>;
    static_assert(!ASYNC || MODE == 1, "cp.async needs the 16-byte path");
    __shared__ __align__(16) float As[2][BK][P::A_LD];
    __shared__ __align__(16) float Bs[2][BK][BN];
    __shared__ __align__(16) warptile_staging<ASYNC, BM, BK> stage;

    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int wm0 = (warp / P::WARPS_N) * WM, wn0 = (warp % P::WARPS_N) * WN;
    const int tr = lane / P::TCOLS, tc = lane % P::TCOLS;
    const int bm0 = blockIdx.y * BM, bn0 = blockIdx.x * BN;
    const float *Ab = A + (size_t)bm0 * K;
    const float *Bb = B + bn0;
    const int mrows = M - bm0, ncols = N - bn0;

    float4 ra[ASYNC ? 1 : P::A_V4], rb[ASYNC ? 1 : P::B_V4];
    float fa[2][TM], fb[2][TN];
    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;

    // Starts fetching the K slice at k0 (B into stage buf when ASYNC).
    auto gload = [&](int k0, int buf) {
#pragma unroll
        for (int r = 0; r < P::A_V4; ++r) {
            const int f = tid + r * P::THREADS;
            const int row = f / (BK / 4), kc = (f % (BK / 4)) * 4;
            if constexpr (ASYNC) {
                const bool ok = row < mrows && k0 + kc < K;
                cp_async16(&stage.tile()[row][kc], ok ? Ab + (size_t)row * K + k0 + kc : A, ok);
            } else {
                ra[r] = load4<MODE>(Ab, K, row, k0 + kc, mrows, K);
            }
        }
#pragma unroll
        for (int r = 0; r < P::B_V4; ++r) {
            const int f = tid + r * P::THREADS;
            const int kr = f / (BN / 4), nc = (f % (BN / 4)) * 4;
            if constexpr (ASYNC) {
                const bool ok = k0 + kr < K && nc < ncols;
                cp_async16(&Bs[buf][kr][nc], ok ? Bb + (size_t)(k0 + kr) * N + nc : B, ok);
            } else {
                rb[r] = load4<MODE>(Bb, N, k0 + kr, nc, K, ncols);
            }
        }
        if constexpr (ASYNC) cp_async_commit();
    };
    // Completes the slice into stage buf (A transposed); a barrier must follow.
    auto sstore = [&](int buf) {
        if constexpr (ASYNC) cp_async_wait_all();
#pragma unroll
        for (int r = 0; r < P::A_V4; ++r) {
            const int f = tid + r * P::THREADS;
            const int row = f / (BK / 4), kc = (f % (BK / 4)) * 4;
            float4 a;
            if constexpr (ASYNC)
                a = *reinterpret_cast<const float4 *>(&stage.tile()[row][kc]);
            else
                a = ra[r];
            As[buf][kc + 0][row] = a.x;
            As[buf][kc + 1][row] = a.y;
            As[buf][kc + 2][row] = a.z;
            As[buf][kc + 3][row] = a.w;
        }
        if constexpr (!ASYNC) {
#pragma unroll
            for (int r = 0; r < P::B_V4; ++r) {
                const int f = tid + r * P::THREADS;
                *reinterpret_cast<float4 *>(&Bs[buf][f / (BN / 4)][(f % (BN / 4)) * 4]) = rb[r];
            }
        }
    };
    auto fload = [&](int buf, int k, int slot) {
#pragma unroll
        for (int ch = 0; ch < P::MCH; ++ch) {
            const float4 v =
                *reinterpret_cast<const float4 *>(&As[buf][k][wm0 + ch * P::MSTR + tr * 4]);
            fa[slot][ch * 4 + 0] = v.x;
            fa[slot][ch * 4 + 1] = v.y;
            fa[slot][ch * 4 + 2] = v.z;
            fa[slot][ch * 4 + 3] = v.w;
        }
#pragma unroll
        for (int ch = 0; ch < P::NCH; ++ch) {
            const float4 v =
                *reinterpret_cast<const float4 *>(&Bs[buf][k][wn0 + ch * P::NSTR + tc * 4]);
            fb[slot][ch * 4 + 0] = v.x;
            fb[slot][ch * 4 + 1] = v.y;
            fb[slot][ch * 4 + 2] = v.z;
            fb[slot][ch * 4 + 3] = v.w;
        }
    };

    const int ktiles = (K + BK - 1) / BK;
    gload(0, 0);
    sstore(0);
    __syncthreads();
    fload(0, 0, 0);
    for (int t = 0; t < ktiles; ++t) {
        const int cur = t & 1;
        const bool more = t + 1 < ktiles;
        if (more) gload((t + 1) * BK, cur ^ 1);
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            if (k < BK - 1) {
                fload(cur, k + 1, (k + 1) & 1);
            } else if (more) {
                sstore(cur ^ 1);
                __syncthreads();
                fload(cur ^ 1, 0, 0);
            }
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j)
                    acc[i][j] = fmaf(fa[k & 1][i], fb[k & 1][j], acc[i][j]);
        }
    }

    float *Cb = C + (size_t)bm0 * N + bn0;
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int r = wm0 + (i / 4) * P::MSTR + tr * 4 + (i % 4);
#pragma unroll
        for (int ch = 0; ch < P::NCH; ++ch) {
            const int c = wn0 + ch * P::NSTR + tc * 4;
            const float4 v = make_float4(acc[i][ch * 4], acc[i][ch * 4 + 1], acc[i][ch * 4 + 2],
                                         acc[i][ch * 4 + 3]);
            store4<MODE>(Cb, N, r, c, mrows, ncols, v);
        }
    }
}

// The shipped configuration (see bench/KERNELS.md for how it was chosen): a
// 128x128 block tile, K slices of 8, 8 warps of 64x32, 8x8 outputs a thread,
// two blocks a multiprocessor, cp.async.  _RAW: its element-load form.
#define WT_SHIPPED 128, 128, 8, 64, 32, 8, 8, 2, true
#define WT_SHIPPED_RAW 128, 128, 8, 64, 32, 8, 8, 2, 2, false

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int MINB, bool ASYNC>
static cudaError_t warptile_run(int M, int N, int K, const float *A, const float *B, float *C,
                                cudaStream_t s)
{
    if (!sizes_ok(M, N, K, A, B, C)) return cudaErrorInvalidValue;
    using P = warptile_shape<BM, BN, BK, WM, WN, TM, TN>;
    const dim3 grid((unsigned)k_ceil_div((size_t)N, BN), (unsigned)k_ceil_div((size_t)M, BM));
    if (grid.y > 65535u) return cudaErrorInvalidValue;
    if (vec_ok(N, K, A, B, C)) {
        sgemm_warptile_kernel<BM, BN, BK, WM, WN, TM, TN, MINB, 1, ASYNC>
            <<<grid, P::THREADS, 0, s>>>(M, N, K, A, B, C);
    } else {
        // Every configuration falls back to the shipped shape's element-load kernel.
        const dim3 g128((unsigned)k_ceil_div((size_t)N, 128), (unsigned)k_ceil_div((size_t)M, 128));
        if (g128.y > 65535u) return cudaErrorInvalidValue;
        sgemm_warptile_kernel<WT_SHIPPED_RAW><<<g128, 256, 0, s>>>(M, N, K, A, B, C);
    }
    KCHECK_LAUNCH();
    return cudaSuccess;
}


// ---- launchers -------------------------------------------------------------------------------
static cudaError_t grid32_launch(void (*k)(int, int, int, const float *, const float *, float *),
                                 bool rows_on_x, int M, int N, int K, const float *A,
                                 const float *B, float *C, cudaStream_t s)
{
    if (!sizes_ok(M, N, K, A, B, C)) return cudaErrorInvalidValue;
    const unsigned gm = (unsigned)k_ceil_div((size_t)M, 32), gn = (unsigned)k_ceil_div((size_t)N, 32);
    const dim3 grid = rows_on_x ? dim3(gm, gn) : dim3(gn, gm);
    if (grid.y > 65535u) return cudaErrorInvalidValue;
    k<<<grid, dim3(32, 32), 0, s>>>(M, N, K, A, B, C);
    KCHECK_LAUNCH();
    return cudaSuccess;
}

extern "C" cudaError_t launch_sgemm_naive(int M, int N, int K, const float *A, const float *B,
                                          float *C, cudaStream_t s)
{
    return grid32_launch(sgemm_naive_kernel, true, M, N, K, A, B, C, s);
}

extern "C" cudaError_t launch_sgemm_coalesced(int M, int N, int K, const float *A, const float *B,
                                              float *C, cudaStream_t s)
{
    return grid32_launch(sgemm_coalesced_kernel, false, M, N, K, A, B, C, s);
}

extern "C" cudaError_t launch_sgemm_smem_tiled(int M, int N, int K, const float *A, const float *B,
                                               float *C, cudaStream_t s)
{
    return grid32_launch(sgemm_smem_tiled_kernel, false, M, N, K, A, B, C, s);
}

extern "C" cudaError_t launch_sgemm_blocktile_1d(int M, int N, int K, const float *A,
                                                 const float *B, float *C, cudaStream_t s)
{
    if (!sizes_ok(M, N, K, A, B, C)) return cudaErrorInvalidValue;
    const dim3 grid((unsigned)k_ceil_div((size_t)N, BT1_BN), (unsigned)k_ceil_div((size_t)M, BT1_BM));
    if (grid.y > 65535u) return cudaErrorInvalidValue;
    sgemm_blocktile_1d_kernel<<<grid, 512, 0, s>>>(M, N, K, A, B, C);
    KCHECK_LAUNCH();
    return cudaSuccess;
}

extern "C" cudaError_t launch_sgemm_blocktile_2d(int M, int N, int K, const float *A,
                                                 const float *B, float *C, cudaStream_t s)
{
    if (!sizes_ok(M, N, K, A, B, C)) return cudaErrorInvalidValue;
    const dim3 grid((unsigned)k_ceil_div((size_t)N, BT_BN), (unsigned)k_ceil_div((size_t)M, BT_BM));
    if (grid.y > 65535u) return cudaErrorInvalidValue;
    sgemm_blocktile_2d_kernel<<<grid, 256, 0, s>>>(M, N, K, A, B, C);
    KCHECK_LAUNCH();
    return cudaSuccess;
}

extern "C" cudaError_t launch_sgemm_vectorized(int M, int N, int K, const float *A,
                                               const float *B, float *C, cudaStream_t s)
{
    if (!sizes_ok(M, N, K, A, B, C)) return cudaErrorInvalidValue;
    const dim3 grid((unsigned)k_ceil_div((size_t)N, BT_BN), (unsigned)k_ceil_div((size_t)M, BT_BM));
    if (grid.y > 65535u) return cudaErrorInvalidValue;
    if (vec_ok(N, K, A, B, C))
        sgemm_vectorized_kernel<1><<<grid, 256, 0, s>>>(M, N, K, A, B, C);
    else
        sgemm_vectorized_kernel<2><<<grid, 256, 0, s>>>(M, N, K, A, B, C);
    KCHECK_LAUNCH();
    return cudaSuccess;
}

extern "C" cudaError_t launch_sgemm_warptile(int M, int N, int K, const float *A, const float *B,
                                             float *C, cudaStream_t s)
{
    return warptile_run<WT_SHIPPED>(M, N, K, A, B, C, s);
}

// ---- cuBLAS --------------------------------------------------------------------------------------
// cuBLAS is loaded when the baseline first runs, not when cudalab starts:
// linking it costs every process about 0.3 s and 200 MB at start-up (its
// initialisers), and only the worker running the matmul baseline needs it.
#define K_STR2(x) #x
#define K_STR(x) K_STR2(x)
#define CUBLAS_SONAME "libcublas.so." K_STR(CUBLAS_VER_MAJOR)

struct blas_api {
    decltype(&cublasCreate_v2) create;
    decltype(&cublasDestroy_v2) destroy;
    decltype(&cublasSetStream_v2) set_stream;
    decltype(&cublasSetMathMode) set_math_mode;
    decltype(&cublasSgemm_v2) sgemm;
    decltype(&cublasGetStatusName) status_name;
    decltype(&cublasGetStatusString) status_string;
};
static blas_api blas;
static void *blas_lib;
static cublasHandle_t blas_handle;
static int blas_device = -1;

template <typename F> static bool blas_sym(F *fn, const char *name)
{
    *fn = reinterpret_cast<F>(dlsym(blas_lib, name));
    if (!*fn) k_set_library_error("%s has no symbol %s", CUBLAS_SONAME, name);
    return *fn != nullptr;
}

static bool blas_load(void)
{
    if (blas_lib) return true;
    blas_lib = dlopen(CUBLAS_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!blas_lib) {
        const char *why = dlerror();
        k_set_library_error("cannot load cuBLAS (%s): %s", CUBLAS_SONAME, why ? why : "not found");
        return false;
    }
    if (blas_sym(&blas.create, "cublasCreate_v2") && blas_sym(&blas.destroy, "cublasDestroy_v2") &&
        blas_sym(&blas.set_stream, "cublasSetStream_v2") &&
        blas_sym(&blas.set_math_mode, "cublasSetMathMode") &&
        blas_sym(&blas.sgemm, "cublasSgemm_v2") &&
        blas_sym(&blas.status_name, "cublasGetStatusName") &&
        blas_sym(&blas.status_string, "cublasGetStatusString"))
        return true;
    dlclose(blas_lib);
    blas_lib = nullptr;
    return false;
}

static cudaError_t blas_error(const char *what, cublasStatus_t st)
{
    k_set_library_error("%s: %s (%s)", what, blas.status_name(st), blas.status_string(st));
    switch (st) {
    case CUBLAS_STATUS_NOT_INITIALIZED: return cudaErrorInitializationError;
    case CUBLAS_STATUS_ALLOC_FAILED: return cudaErrorMemoryAllocation;
    case CUBLAS_STATUS_INVALID_VALUE: return cudaErrorInvalidValue;
    case CUBLAS_STATUS_ARCH_MISMATCH: return cudaErrorInvalidDeviceFunction;
    case CUBLAS_STATUS_EXECUTION_FAILED: return cudaErrorLaunchFailure;
    case CUBLAS_STATUS_NOT_SUPPORTED: return cudaErrorNotSupported;
    default: return cudaErrorUnknown;
    }
}

// Row-major C = A x B is column-major C^T = B^T x A^T: hand cuBLAS B first.
// Default math mode: plain FP32, no TF32 tensor cores.
extern "C" cudaError_t launch_cublas_sgemm(int M, int N, int K, const float *A, const float *B,
                                           float *C, cudaStream_t s)
{
    k_set_library_error("");
    if (!sizes_ok(M, N, K, A, B, C)) return cudaErrorInvalidValue;
    if (!blas_load()) return cudaErrorSharedObjectInitFailed;
    int dev = 0;
    KCHECK(cudaGetDevice(&dev));
    if (blas_handle && blas_device != dev) k_matmul_shutdown();
    if (!blas_handle) {
        cublasStatus_t st = blas.create(&blas_handle);
        if (st != CUBLAS_STATUS_SUCCESS) {
            blas_handle = NULL;
            return blas_error("cublasCreate", st);
        }
        blas_device = dev;
        st = blas.set_math_mode(blas_handle, CUBLAS_DEFAULT_MATH);
        if (st != CUBLAS_STATUS_SUCCESS) return blas_error("cublasSetMathMode", st);
    }
    cublasStatus_t st = blas.set_stream(blas_handle, s);
    if (st != CUBLAS_STATUS_SUCCESS) return blas_error("cublasSetStream", st);
    const float one = 1.0f, zero = 0.0f;
    st = blas.sgemm(blas_handle, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B, N, A, K, &zero, C, N);
    if (st != CUBLAS_STATUS_SUCCESS) return blas_error("cublasSgemm", st);
    KCHECK_LAUNCH();
    return cudaSuccess;
}

// Column-major C (m x n, leading dimension ldc) = A (m x k, lda) x B (k x n,
// ldb) in plain FP32: the pipeline lab's hand-off to a linear layer
// (kernels/pipeline.cu), through the same handle as the baseline above.
cudaError_t k_cublas_sgemm_cm(int m, int n, int k, const float *A, int lda, const float *B,
                              int ldb, float *C, int ldc, cudaStream_t s)
{
    k_set_library_error("");
    if (m < 1 || n < 1 || k < 1 || !A || !B || !C || lda < m || ldb < k || ldc < m)
        return cudaErrorInvalidValue;
    if (!blas_load()) return cudaErrorSharedObjectInitFailed;
    int dev = 0;
    KCHECK(cudaGetDevice(&dev));
    if (blas_handle && blas_device != dev) k_matmul_shutdown();
    if (!blas_handle) {
        cublasStatus_t st = blas.create(&blas_handle);
        if (st != CUBLAS_STATUS_SUCCESS) {
            blas_handle = NULL;
            return blas_error("cublasCreate", st);
        }
        blas_device = dev;
        st = blas.set_math_mode(blas_handle, CUBLAS_DEFAULT_MATH);
        if (st != CUBLAS_STATUS_SUCCESS) return blas_error("cublasSetMathMode", st);
    }
    cublasStatus_t st = blas.set_stream(blas_handle, s);
    if (st != CUBLAS_STATUS_SUCCESS) return blas_error("cublasSetStream", st);
    const float one = 1.0f, zero = 0.0f;
    st = blas.sgemm(blas_handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, A, lda, B, ldb, &zero, C,
                    ldc);
    if (st != CUBLAS_STATUS_SUCCESS) return blas_error("cublasSgemm", st);
    KCHECK_LAUNCH();
    return cudaSuccess;
}

void k_matmul_shutdown(void)
{
    if (blas_handle) blas.destroy(blas_handle);
    blas_handle = NULL;
    blas_device = -1;
}

// ---- tables --------------------------------------------------------------------------------------
static const shipped_kernel matmul_rungs[] = {
    {"sgemm_naive", "sgemm", 0, NULL, launch_sgemm_naive, NULL},
    {"sgemm_coalesced", "sgemm", 0, NULL, launch_sgemm_coalesced, NULL},
    {"sgemm_smem_tiled", "sgemm", 0, NULL, launch_sgemm_smem_tiled, NULL},
    {"sgemm_blocktile_1d", "sgemm", 0, NULL, launch_sgemm_blocktile_1d, NULL},
    {"sgemm_blocktile_2d", "sgemm", 0, NULL, launch_sgemm_blocktile_2d, NULL},
    {"sgemm_vectorized", "sgemm", 0, NULL, launch_sgemm_vectorized, NULL},
    {"sgemm_warptile", "sgemm", 0, NULL, launch_sgemm_warptile, NULL},
    {"cublas_sgemm", "sgemm", 1, NULL, launch_cublas_sgemm, NULL},
};

extern "C" const shipped_kernel *matmul_table(size_t *n)
{
    *n = sizeof matmul_rungs / sizeof matmul_rungs[0];
    return matmul_rungs;
}

static const raw_kernel matmul_raw[] = {
    {"sgemm_naive", (const void *)sgemm_naive_kernel, "iiippp",
     "(M, N, K, A, B, C): block (32,32), grid (ceil(M/32), ceil(N/32)); x indexes rows"},
    {"sgemm_coalesced", (const void *)sgemm_coalesced_kernel, "iiippp",
     "(M, N, K, A, B, C): block (32,32), grid (ceil(N/32), ceil(M/32)); x indexes columns"},
    {"sgemm_smem_tiled", (const void *)sgemm_smem_tiled_kernel, "iiippp",
     "(M, N, K, A, B, C): block (32,32), grid (ceil(N/32), ceil(M/32))"},
    {"sgemm_blocktile_1d", (const void *)sgemm_blocktile_1d_kernel, "iiippp",
     "(M, N, K, A, B, C): block 512, grid (ceil(N/64), ceil(M/64))"},
    {"sgemm_blocktile_2d", (const void *)sgemm_blocktile_2d_kernel, "iiippp",
     "(M, N, K, A, B, C): block 256, grid (ceil(N/128), ceil(M/128))"},
    {"sgemm_vectorized", (const void *)sgemm_vectorized_kernel<2>, "iiippp",
     "(M, N, K, A, B, C): block 256, grid (ceil(N/128), ceil(M/128)); element loads, any sizes"},
    {"sgemm_warptile", (const void *)sgemm_warptile_kernel<WT_SHIPPED_RAW>, "iiippp",
     "(M, N, K, A, B, C): block 256, grid (ceil(N/128), ceil(M/128)); element loads, any sizes"},
};

extern "C" const raw_kernel *matmul_raw_table(size_t *n)
{
    *n = sizeof matmul_raw / sizeof matmul_raw[0];
    return matmul_raw;
}

// ---- tuning variants -------------------------------------------------------------------------------
#define WT_VARIANT(fn, ...)                                                                     \
    static cudaError_t fn(int M, int N, int K, const float *A, const float *B, float *C,        \
                          cudaStream_t s)                                                        \
    {                                                                                           \
        return warptile_run<__VA_ARGS__>(M, N, K, A, B, C, s);                                  \
    }
WT_VARIANT(wt_r_128x128x8_64x32_8x8, 128, 128, 8, 64, 32, 8, 8, 2, false)
WT_VARIANT(wt_r_128x128x8_32x64_8x8, 128, 128, 8, 32, 64, 8, 8, 2, false)
WT_VARIANT(wt_r_128x128x8_64x64_8x16, 128, 128, 8, 64, 64, 8, 16, 2, false)
WT_VARIANT(wt_a_128x128x8_64x32_8x8, 128, 128, 8, 64, 32, 8, 8, 2, true)
WT_VARIANT(wt_a_128x128x8_32x64_8x8, 128, 128, 8, 32, 64, 8, 8, 2, true)
WT_VARIANT(wt_a_128x128x16_64x32_8x8, 128, 128, 16, 64, 32, 8, 8, 2, true)
WT_VARIANT(wt_a_128x128x8_64x64_8x16, 128, 128, 8, 64, 64, 8, 16, 2, true)
WT_VARIANT(wt_a_128x128x16_64x64_8x16, 128, 128, 16, 64, 64, 8, 16, 2, true)
WT_VARIANT(wt_a_128x256x8_64x64_8x16, 128, 256, 8, 64, 64, 8, 16, 1, true)
WT_VARIANT(wt_a_256x128x8_64x64_16x8, 256, 128, 8, 64, 64, 16, 8, 1, true)

static const shipped_kernel matmul_variants[] = {
    {"sgemm_warptile[reg,128x128x8,w64x32,t8x8]", "sgemm", 0, NULL, wt_r_128x128x8_64x32_8x8, NULL},
    {"sgemm_warptile[reg,128x128x8,w32x64,t8x8]", "sgemm", 0, NULL, wt_r_128x128x8_32x64_8x8, NULL},
    {"sgemm_warptile[reg,128x128x8,w64x64,t8x16]", "sgemm", 0, NULL, wt_r_128x128x8_64x64_8x16, NULL},
    {"sgemm_warptile[async,128x128x8,w64x32,t8x8]", "sgemm", 0, NULL, wt_a_128x128x8_64x32_8x8, NULL},
    {"sgemm_warptile[async,128x128x8,w32x64,t8x8]", "sgemm", 0, NULL, wt_a_128x128x8_32x64_8x8, NULL},
    {"sgemm_warptile[async,128x128x16,w64x32,t8x8]", "sgemm", 0, NULL, wt_a_128x128x16_64x32_8x8, NULL},
    {"sgemm_warptile[async,128x128x8,w64x64,t8x16]", "sgemm", 0, NULL, wt_a_128x128x8_64x64_8x16, NULL},
    {"sgemm_warptile[async,128x128x16,w64x64,t8x16]", "sgemm", 0, NULL, wt_a_128x128x16_64x64_8x16, NULL},
    {"sgemm_warptile[async,128x256x8,w64x64,t8x16]", "sgemm", 0, NULL, wt_a_128x256x8_64x64_8x16, NULL},
    {"sgemm_warptile[async,256x128x8,w64x64,t16x8]", "sgemm", 0, NULL, wt_a_256x128x8_64x64_16x8, NULL},
};

extern "C" const shipped_kernel *matmul_tune_table(size_t *n)
{
    *n = sizeof matmul_variants / sizeof matmul_variants[0];
    return matmul_variants;
}
