// matmul_wt_twostage.cu - rung 7's two-stage kernel: A transposed in
// shared memory, bounds checked (matmul_wt.cuh: the rung's files).  Its
// 16-byte form serves the 16-byte-aligned sizes that are not whole tiles
// of the lean kernel, its element-load form every other size and the raw
// table.
#include "matmul_wt.cuh"

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
//
// warptile_shape (matmul_wt.cuh) holds the sizes that follow from the tiles.
template <bool ASYNC, int BM, int BK> struct warptile_staging {
    __device__ float (*tile())[BK] { return nullptr; }
};
template <int BM, int BK> struct warptile_staging<true, BM, BK> {
    float a[BM][BK];
    __device__ float (*tile())[BK] { return a; }
};

// The lambdas below (gload, sstore, fload) are inlined into one unrolled
// k loop, where the loads of the next slice, the fragment reads of step
// k+1 and the multiply-adds of step k interleave; they share the kernel's
// registers (fragments, staged values) by capture.  That instruction mix
// is the point of the kernel, so it stays one function.
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

// ---- launching ----------------------------------------------------------------------------
cudaError_t wt_raw_run(int M, int N, int K, const float *A, const float *B, float *C,
                       cudaStream_t s)
{
    dim3 grid;
    if (!k_mm_grid(M, N, 128, 128, &grid)) return cudaErrorInvalidValue;
    sgemm_warptile_kernel<WT_RAW><<<grid, 256, 0, s>>>(M, N, K, A, B, C);
    KCHECK_LAUNCH();
    return cudaSuccess;
}

const void *k_warptile_raw_kernel(void) { return (const void *)sgemm_warptile_kernel<WT_RAW>; }

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int MINB, bool ASYNC>
static cudaError_t warptile_run(int M, int N, int K, const float *A, const float *B, float *C,
                                cudaStream_t s)
{
    if (!k_mm_sizes_ok(M, N, K, A, B, C)) return cudaErrorInvalidValue;
    if (!k_mm_vec_ok(N, K, A, B, C)) return wt_raw_run(M, N, K, A, B, C, s);
    using P = warptile_shape<BM, BN, BK, WM, WN, TM, TN>;
    dim3 grid;
    if (!k_mm_grid(M, N, BM, BN, &grid)) return cudaErrorInvalidValue;
    sgemm_warptile_kernel<BM, BN, BK, WM, WN, TM, TN, MINB, 1, ASYNC><<<grid, P::THREADS, 0, s>>>(
        M, N, K, A, B, C);
    KCHECK_LAUNCH();
    return cudaSuccess;
}

cudaError_t wt_edge_run(int M, int N, int K, const float *A, const float *B, float *C,
                        cudaStream_t s)
{
    return warptile_run<WT_EDGE>(M, N, K, A, B, C, s);
}

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int MINB, bool ASYNC>
static bool warptile_resources(kernel_resources *out)
{
    using P = warptile_shape<BM, BN, BK, WM, WN, TM, TN>;
    const void *f = (const void *)sgemm_warptile_kernel<BM, BN, BK, WM, WN, TM, TN, MINB, 1, ASYNC>;
    return k_kernel_resources(f, P::THREADS, 0, out) == cudaSuccess;
}

bool wt_edge_resources(kernel_resources *out) { return warptile_resources<WT_EDGE>(out); }

// ---- tuning variants ----------------------------------------------------------------------------
#define WT_OLD(label, ...)                                                                     \
    {.name = label, .launch = warptile_run<__VA_ARGS__>, .resources = warptile_resources<__VA_ARGS__>}

static const wt_variant twostage_variants[] = {
    // Two stages, A transposed: registers or cp.async (the kernel the rung
    // shipped before the pipelined one; runs 1-3 in bench/KERNELS.md).
    WT_OLD("sgemm_warptile[reg,128x128x8,w64x32,t8x8]", 128, 128, 8, 64, 32, 8, 8, 2, false),
    WT_OLD("sgemm_warptile[async,128x128x8,w64x32,t8x8]", 128, 128, 8, 64, 32, 8, 8, 2, true),
    WT_OLD(WT_EDGE_NAME, WT_EDGE),
    WT_OLD("sgemm_warptile[async,128x128x16,w64x32,t8x8]", 128, 128, 16, 64, 32, 8, 8, 2, true),
    WT_OLD("sgemm_warptile[async,128x128x8,w64x64,t8x16]", 128, 128, 8, 64, 64, 8, 16, 2, true),
};

const wt_variant *wt_twostage_variants(size_t *count)
{
    *count = sizeof twostage_variants / sizeof twostage_variants[0];
    return twostage_variants;
}
