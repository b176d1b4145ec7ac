// matmul_wt_lean.cu - rung 7's lean kernel, the one shipped where the sizes
// are whole tiles (16-byte rows): two stages, A transposed in shared
// memory, fragments double-buffered in registers, and an inner loop with
// little besides the multiply-adds (no bounds checks, pointer increments,
// two slices a trip so that the stages' addresses are constants).  Other
// sizes are handed to the two-stage kernel (matmul_wt.cuh: the rung's files).
#include "matmul_wt.cuh"

// The two-stage kernel (matmul_wt_twostage.cu) with what the inner loop
// does besides the multiply-adds cut down, for sizes that are whole tiles
// (M % BM, N % BN, K % BK all zero, 16-byte rows): no bounds checks, the
// global addresses moved on by one pointer increment a slice, the last
// slice's step (nothing more to fetch) apart from the loop, and with
// UNROLL2 two slices a trip, so that which stage is in use is known at
// compile time and the shared-memory addresses are immediates (without
// it, an offset swapped each slice).  Warps, thread tiles and shared-memory
// layout as in sgemm_warptile_kernel (A transposed, fragments
// double-buffered in registers).  A's slice travels one of three ways (AMODE):
//   0  cp.async, 16 bytes, into a staging tile; each thread transposes its
//      own 16 bytes into the A stage at the end of the step;
//   1  cp.async, 4 bytes at a time, straight to the transposed places;
//   2  16-byte loads into registers at the top of the step, stored
//      transposed at its end.
// B always travels by 16-byte cp.async straight into its stage.  SWZ > 1
// hands out the blocks in groups of SWZ block rows, column by column, so
// that the blocks resident at once share fewer panels of A and B (L2).
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN>
struct wtlean_shape : warptile_shape<BM, BN, BK, WM, WN, TM, TN> {
    using S = warptile_shape<BM, BN, BK, WM, WN, TM, TN>;
    static constexpr int A_BUF = BK * S::A_LD, B_BUF = BK * BN;
    static constexpr int A_ROWSTEP = S::THREADS / (BK / 4);  // rows between a thread's A pieces
    static constexpr int B_ROWSTEP = S::THREADS / (BN / 4);  // k rows between its B pieces
    static_assert(S::THREADS % (BK / 4) == 0 && S::THREADS % (BN / 4) == 0,
                  "a thread's pieces share their column");
};

__device__ __forceinline__ void cp_async4_ca(void *smem, const void *gmem)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const unsigned dst = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(dst), "l"(gmem));
#else
    *reinterpret_cast<float *>(smem) = *reinterpret_cast<const float *>(gmem);
#endif
}

// What the inner loop does besides the multiply-adds is this kernel's
// whole point: the lambdas (issue, complete, fload, step) are inlined into
// the unrolled k loops, with two slices a trip so that the stages'
// addresses are immediates.  That instruction mix is what makes it 0.995x
// of cuBLAS, so it stays one function.
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int MINB, int AMODE, int SWZ,
          bool UNROLL2>
__global__ void __launch_bounds__(warptile_shape<BM, BN, BK, WM, WN, TM, TN>::THREADS, WARPTILE_MINB(MINB))
sgemm_wtlean_kernel(int M, int N, int K, const float *__restrict__ A, const float *__restrict__ B,
                    float *__restrict__ C)
{
    using P = wtlean_shape<BM, BN, BK, WM, WN, TM, TN>;
    constexpr int T = P::THREADS;
    __shared__ __align__(16) float As[2 * P::A_BUF];
    __shared__ __align__(16) float Bs[2 * P::B_BUF];
    __shared__ __align__(16) float Ast[AMODE == 0 ? BM * BK : 4];

    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int wm0 = (warp / P::WARPS_N) * WM, wn0 = (warp % P::WARPS_N) * WN;
    const int tr = lane / P::TCOLS, tc = lane % P::TCOLS;
    int bx = blockIdx.x, by = blockIdx.y;
    if constexpr (SWZ > 1) {
        const int gx = (int)gridDim.x, gy = (int)gridDim.y;
        const int id = by * gx + bx, width = SWZ * gx;
        const int first = (id / width) * SWZ, rows = min(gy - first, SWZ);
        by = first + (id % width) % rows;
        bx = (id % width) / rows;
    }
    (void)M;  // whole tiles: the grid covers M exactly
    const int bm0 = by * BM, bn0 = bx * BN;

    // This thread's pieces of a slice: A rows arow + r * A_ROWSTEP, k
    // columns akc .. akc+3; B k rows tid / (BN/4) + r * B_ROWSTEP.
    const int arow = tid / (BK / 4), akc = (tid % (BK / 4)) * 4;
    const float *ga = A + (size_t)(bm0 + arow) * K + akc;
    const float *gb = B + (size_t)(tid / (BN / 4)) * N + bn0 + (tid % (BN / 4)) * 4;
    const size_t a_rstep = (size_t)P::A_ROWSTEP * K, b_rstep = (size_t)P::B_ROWSTEP * N;
    const size_t b_kstep = (size_t)BK * N;

    float4 ra[AMODE == 2 ? P::A_V4 : 1];
    float fa[2][TM], fb[2][TN];
    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;

    // Starts the copy of the next slice into stage st (A into the staging
    // tile or registers for AMODE 0 and 2) and moves the pointers on.
    auto issue = [&](int st) {
#pragma unroll
        for (int r = 0; r < P::A_V4; ++r) {
            const float *g = ga + r * a_rstep;
            if constexpr (AMODE == 0) {
                cp_async16(&Ast[(tid + r * T) * 4], g, true);
            } else if constexpr (AMODE == 1) {
                float *d = &As[st * P::A_BUF + akc * P::A_LD + arow + r * P::A_ROWSTEP];
#pragma unroll
                for (int i = 0; i < 4; ++i) cp_async4_ca(d + i * P::A_LD, g + i);
            } else {
                ra[r] = __ldg(reinterpret_cast<const float4 *>(g));
            }
        }
#pragma unroll
        for (int r = 0; r < P::B_V4; ++r)
            cp_async16(&Bs[st * P::B_BUF + (tid + r * T) * 4], gb + r * b_rstep, true);
        cp_async_commit();
        ga += BK;
        gb += b_kstep;
    };
    // Completes stage st; a barrier must follow.
    auto complete = [&](int st) {
        cp_async_wait_all();
        if constexpr (AMODE != 1) {
#pragma unroll
            for (int r = 0; r < P::A_V4; ++r) {
                float4 a;
                if constexpr (AMODE == 0)
                    a = *reinterpret_cast<const float4 *>(&Ast[(tid + r * T) * 4]);
                else
                    a = ra[r];
                float *d = &As[st * P::A_BUF + akc * P::A_LD + arow + r * P::A_ROWSTEP];
                d[0] = a.x;
                d[P::A_LD] = a.y;
                d[2 * P::A_LD] = a.z;
                d[3 * P::A_LD] = a.w;
            }
        }
    };
    const float *fa_src = As + wm0 + tr * 4;
    const float *fb_src = Bs + wn0 + tc * 4;
    auto fload = [&](int st, int k, int slot) {
#pragma unroll
        for (int ch = 0; ch < P::MCH; ++ch) {
            const float4 v = *reinterpret_cast<const float4 *>(fa_src + st * P::A_BUF + k * P::A_LD + ch * P::MSTR);
            fa[slot][ch * 4 + 0] = v.x;
            fa[slot][ch * 4 + 1] = v.y;
            fa[slot][ch * 4 + 2] = v.z;
            fa[slot][ch * 4 + 3] = v.w;
        }
#pragma unroll
        for (int ch = 0; ch < P::NCH; ++ch) {
            const float4 v = *reinterpret_cast<const float4 *>(fb_src + st * P::B_BUF + k * BN + ch * P::NSTR);
            fb[slot][ch * 4 + 0] = v.x;
            fb[slot][ch * 4 + 1] = v.y;
            fb[slot][ch * 4 + 2] = v.z;
            fb[slot][ch * 4 + 3] = v.w;
        }
    };
    // One slice out of stage cur; with more, the next slice (issued at the
    // top) is completed into the other stage and its first fragments read.
    auto step = [&](int cur, bool more) {
        if (more) issue(cur ^ 1);
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            if (k < BK - 1) {
                fload(cur, k + 1, (k + 1) & 1);
            } else if (more) {
                complete(cur ^ 1);
                __syncthreads();
                fload(cur ^ 1, 0, 0);
            }
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(fa[k & 1][i], fb[k & 1][j], acc[i][j]);
        }
    };

    issue(0);
    complete(0);
    __syncthreads();
    fload(0, 0, 0);
    const int ktiles = K / BK;
    if constexpr (UNROLL2) {
        // Two slices a trip: the stages are constants, their addresses
        // immediates.
        int t = 0;
        for (; t + 2 < ktiles; t += 2) {
            step(0, true);
            step(1, true);
        }
        if (t + 2 == ktiles) {
            step(0, true);
            step(1, false);
        } else {
            step(0, false);
        }
    } else {
        int cur = 0;
        for (int t = 0; t < ktiles - 1; ++t) {
            step(cur, true);
            cur ^= 1;
        }
        step(cur, false);
    }

    float *Cb = C + (size_t)bm0 * N + bn0;
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        float *row = Cb + (size_t)(wm0 + (i / 4) * P::MSTR + tr * 4 + (i % 4)) * N + wn0 + tc * 4;
#pragma unroll
        for (int ch = 0; ch < P::NCH; ++ch)
            *reinterpret_cast<float4 *>(row + ch * P::NSTR) =
                make_float4(acc[i][ch * 4], acc[i][ch * 4 + 1], acc[i][ch * 4 + 2], acc[i][ch * 4 + 3]);
    }
}

// ---- launching ----------------------------------------------------------------------------
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int MINB, int AMODE, int SWZ,
          bool UNROLL2>
static cudaError_t wtlean_run(int M, int N, int K, const float *A, const float *B, float *C,
                              cudaStream_t s)
{
    if (!k_mm_sizes_ok(M, N, K, A, B, C)) return cudaErrorInvalidValue;
    if (!k_mm_vec_ok(N, K, A, B, C)) return wt_raw_run(M, N, K, A, B, C, s);
    if (!wt_whole<BM, BN, BK>(M, N, K)) return wt_edge_run(M, N, K, A, B, C, s);
    using P = warptile_shape<BM, BN, BK, WM, WN, TM, TN>;
    dim3 grid;
    if (!k_mm_grid(M, N, BM, BN, &grid)) return cudaErrorInvalidValue;
    sgemm_wtlean_kernel<BM, BN, BK, WM, WN, TM, TN, MINB, AMODE, SWZ, UNROLL2><<<grid, P::THREADS, 0, s>>>(
        M, N, K, A, B, C);
    KCHECK_LAUNCH();
    return cudaSuccess;
}

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int MINB, int AMODE, int SWZ,
          bool UNROLL2>
static bool wtlean_resources(kernel_resources *out)
{
    using P = warptile_shape<BM, BN, BK, WM, WN, TM, TN>;
    const void *f = (const void *)sgemm_wtlean_kernel<BM, BN, BK, WM, WN, TM, TN, MINB, AMODE, SWZ, UNROLL2>;
    return k_kernel_resources(f, P::THREADS, 0, out) == cudaSuccess;
}

cudaError_t wt_big_run(int M, int N, int K, const float *A, const float *B, float *C,
                       cudaStream_t s)
{
    return wtlean_run<WT_BIG>(M, N, K, A, B, C, s);
}

cudaError_t wt_small_run(int M, int N, int K, const float *A, const float *B, float *C,
                         cudaStream_t s)
{
    return wtlean_run<WT_SMALL>(M, N, K, A, B, C, s);
}

bool wt_big_resources(kernel_resources *out) { return wtlean_resources<WT_BIG>(out); }

bool wt_small_resources(kernel_resources *out) { return wtlean_resources<WT_SMALL>(out); }

// ---- tuning variants ----------------------------------------------------------------------------
#define WT_LEAN(label, ...)                                                                    \
    {.name = label, .launch = wtlean_run<__VA_ARGS__>, .resources = wtlean_resources<__VA_ARGS__>}

static const wt_variant lean_variants[] = {
    // Lean loop, whole tiles only (other sizes take the two-stage kernel):
    // how A travels (a16 staged 16-byte cp.async, a4 4-byte cp.async,
    // areg registers), warp and thread tiles, u2 two slices a trip of the
    // loop, g8 blocks handed out in groups of 8 block rows.  The 4-byte
    // copies of A measured 0.81-0.86x of cuBLAS in every shape (H100, run
    // of bench/results/2026-11-24-h100-*-fp32); most of them are left out.
    WT_LEAN("sgemm_warptile[lean,a16,128x128x8,w32x64,t8x8]", 128, 128, 8, 32, 64, 8, 8, 2, 0, 1, false),
    WT_LEAN("sgemm_warptile[lean,a4,128x128x8,w32x64,t8x8]", 128, 128, 8, 32, 64, 8, 8, 2, 1, 1, false),
    WT_LEAN("sgemm_warptile[lean,areg,128x128x8,w32x64,t8x8]", 128, 128, 8, 32, 64, 8, 8, 2, 2, 1, false),
    WT_LEAN("sgemm_warptile[lean,a16,128x128x8,w64x32,t8x8]", 128, 128, 8, 64, 32, 8, 8, 2, 0, 1, false),
    WT_LEAN("sgemm_warptile[lean,a16,128x128x8,w32x64,t8x8,g8]", 128, 128, 8, 32, 64, 8, 8, 2, 0, 8, false),
    WT_LEAN("sgemm_warptile[lean,a16,128x128x16,w32x64,t8x8]", 128, 128, 16, 32, 64, 8, 8, 2, 0, 1, false),
    WT_LEAN("sgemm_warptile[lean,areg,128x128x16,w32x64,t8x8]", 128, 128, 16, 32, 64, 8, 8, 2, 2, 1, false),
    WT_LEAN("sgemm_warptile[lean,a16,128x128x8,w64x64,t8x16]", 128, 128, 8, 64, 64, 8, 16, 2, 0, 1, false),
    WT_LEAN("sgemm_warptile[lean,a16,128x256x8,w64x64,t8x16]", 128, 256, 8, 64, 64, 8, 16, 1, 0, 1, false),
    WT_LEAN("sgemm_warptile[lean,a4,128x256x8,w64x64,t8x16]", 128, 256, 8, 64, 64, 8, 16, 1, 1, 1, false),
    WT_LEAN("sgemm_warptile[lean,a16,256x128x8,w64x64,t16x8]", 256, 128, 8, 64, 64, 16, 8, 1, 0, 1, false),
    WT_LEAN(WT_BIG_NAME, WT_BIG),
    WT_LEAN("sgemm_warptile[lean,a4,128x128x8,w32x64,t8x8,u2]", 128, 128, 8, 32, 64, 8, 8, 2, 1, 1, true),
    WT_LEAN("sgemm_warptile[lean,areg,128x128x8,w32x64,t8x8,u2]", 128, 128, 8, 32, 64, 8, 8, 2, 2, 1, true),
    WT_LEAN("sgemm_warptile[lean,a16,128x128x8,w64x32,t8x8,u2]", 128, 128, 8, 64, 32, 8, 8, 2, 0, 1, true),
    WT_LEAN("sgemm_warptile[lean,a16,128x128x8,w32x64,t8x8,u2,g8]", 128, 128, 8, 32, 64, 8, 8, 2, 0, 8, true),
    WT_LEAN("sgemm_warptile[lean,a16,128x256x8,w64x64,t8x16,u2]", 128, 256, 8, 64, 64, 8, 16, 1, 0, 1, true),
    WT_LEAN("sgemm_warptile[lean,a16,256x128x8,w64x64,t16x8,u2]", 256, 128, 8, 64, 64, 16, 8, 1, 0, 1, true),
    // Smaller tiles for grids that leave multiprocessors idle.
    WT_LEAN("sgemm_warptile[lean,a16,128x64x8,w64x32,t8x8,u2]", 128, 64, 8, 64, 32, 8, 8, 2, 0, 1, true),
    WT_LEAN("sgemm_warptile[lean,a16,64x64x8,w32x32,t4x8,u2]", 64, 64, 8, 32, 32, 4, 8, 2, 0, 1, true),
    WT_LEAN(WT_SMALL_NAME, WT_SMALL),
};

const wt_variant *wt_lean_variants(size_t *count)
{
    *count = sizeof lean_variants / sizeof lean_variants[0];
    return lean_variants;
}
