// matmul_warptile.cu - rung 7: warp tiles.  The block tile sits in shared
// memory, each warp owns a part of it, each thread a few 4-wide pieces of
// that part in registers; the next K slices are copied (cp.async) while the
// warps multiply out of the current one.  Three kernels:
//
//  - sgemm_wtlean_kernel, the shipped one where the sizes are whole tiles
//    (16-byte rows): two stages, A transposed in shared memory, fragments
//    double-buffered in registers, and an inner loop with little besides
//    the multiply-adds (no bounds checks, pointer increments, two slices a
//    trip so that the stages' addresses are constants);
//  - sgemm_warptile_kernel, the same two stages with bounds checks: its
//    16-byte form serves the other 16-byte-aligned sizes, its element-load
//    form every other size (and the raw table);
//  - sgemm_wtpipe_kernel: a pipeline of STAGES slices in shared memory, A
//    and B both copied with cp.async as they lie in memory (A row-major, no
//    transposition), one barrier a slice; shipped on 64x64 tiles for grids
//    that would leave multiprocessors idle.
//
// All take any M, N, K >= 1 through their launchers; the tuning variants
// (ktune.h) are the same kernels in other shapes, named
// "sgemm_warptile[<how>,<block tile>,w<warp tile>,t<thread tile>,...]".
#include "matmul.cuh"

// Two blocks a multiprocessor cap registers at 128 a thread; tuned on
// Hopper, where that fits.  Older GPUs' compilers spill under that cap, so
// there the cap is lifted.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#define WARPTILE_MINB(m) 1
#else
#define WARPTILE_MINB(m) (m)
#endif

// ---- two stages, A transposed -----------------------------------------------------------
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

template <bool ASYNC, int BM, int BK> struct warptile_staging {
    __device__ float (*tile())[BK] { return nullptr; }
};
template <int BM, int BK> struct warptile_staging<true, BM, BK> {
    float a[BM][BK];
    __device__ float (*tile())[BK] { return a; }
};

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


// ---- STAGES stages, A as it lies in memory (the 16-byte path) ----------------------------
// Warps and thread tiles as above, except that a thread's TM rows are
// TROWS apart (rows tr, tr + TROWS, ...): the A tile stays row-major in
// shared memory with rows of BK + 4 floats, and a thread reads four k
// values of one row as a 16-byte word, so eight neighbouring rows fall in
// eight different bank groups.  B is read as in the kernel above.
//
// The pipeline: slices 0 .. STAGES-2 are requested before the loop; at
// step t the thread waits for its copies of slice t, the barrier makes
// everyone's visible (and says everyone is done with slice t-1), then
// slice t + STAGES - 1 is requested into the stage slice t-1 used, and the
// warps multiply out of slice t.  One barrier a slice; STAGES - 1 slices
// in flight while one is used.
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int STAGES>
struct wtpipe_shape {
    static constexpr int WARPS_N = BN / WN;
    static constexpr int THREADS = (BM / WM) * WARPS_N * 32;
    static constexpr int TROWS = WM / TM, TCOLS = WN / TN;
    static constexpr int NCH = TN / 4, NSTR = WN / NCH;
    static constexpr int A_LD = BK + 4;
    static constexpr int A_STAGE = BM * A_LD, B_STAGE = BK * BN;
    static constexpr size_t SMEM = (size_t)STAGES * (A_STAGE + B_STAGE) * sizeof(float);
    static_assert(BM % WM == 0 && BN % WN == 0 && WM % TM == 0 && WN % TN == 0, "tiles nest");
    static_assert(TROWS * TCOLS == 32, "a warp's threads must cover its tile");
    static_assert(BK % 4 == 0 && TN % 4 == 0, "16-byte words along k and n");
    static_assert((A_LD / 4) % 2 == 1, "rows of the A tile an odd number of 16-byte words apart");
    static_assert(STAGES >= 2, "at least two stages");
};

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int STAGES, int MINB>
__global__ void __launch_bounds__(wtpipe_shape<BM, BN, BK, WM, WN, TM, TN, STAGES>::THREADS,
                                  WARPTILE_MINB(MINB))
sgemm_wtpipe_kernel(int M, int N, int K, const float *__restrict__ A, const float *__restrict__ B,
                    float *__restrict__ C)
{
    using P = wtpipe_shape<BM, BN, BK, WM, WN, TM, TN, STAGES>;
    extern __shared__ float4 wtpipe_smem[];
    float *const smem = reinterpret_cast<float *>(wtpipe_smem);
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int wm0 = (warp / P::WARPS_N) * WM, wn0 = (warp % P::WARPS_N) * WN;
    const int tr = lane / P::TCOLS, tc = lane % P::TCOLS;
    const int bm0 = blockIdx.y * BM, bn0 = blockIdx.x * BN;
    const float *Ab = A + (size_t)bm0 * K;
    const float *Bb = B + bn0;
    const int mrows = M - bm0, ncols = N - bn0;

    // Requests the K slice at k0 into stage st; what lies past M, N or K
    // arrives as zeros.
    auto request = [&](int k0, int st) {
        float *as = smem + st * (P::A_STAGE + P::B_STAGE);
        float *bs = as + P::A_STAGE;
        cp_async_tile<BM, BK, P::A_LD, P::THREADS>(as, Ab, K, 0, k0, mrows, K, A, tid);
        cp_async_tile<BK, BN, BN, P::THREADS>(bs, Bb, N, k0, 0, K, ncols, B, tid);
    };

    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;

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

        const float *as = smem + use * (P::A_STAGE + P::B_STAGE);
        const float *bs = as + P::A_STAGE;
        use = use == STAGES - 1 ? 0 : use + 1;
#pragma unroll
        for (int kg = 0; kg < BK; kg += 4) {
            float4 a[TM];
#pragma unroll
            for (int i = 0; i < TM; ++i)
                a[i] = *reinterpret_cast<const float4 *>(as + (wm0 + tr + i * P::TROWS) * P::A_LD + kg);
#pragma unroll
            for (int kk = 0; kk < 4; ++kk) {
                float b[TN];
#pragma unroll
                for (int ch = 0; ch < P::NCH; ++ch) {
                    const float4 v = *reinterpret_cast<const float4 *>(
                        bs + (kg + kk) * BN + wn0 + ch * P::NSTR + tc * 4);
                    b[ch * 4 + 0] = v.x;
                    b[ch * 4 + 1] = v.y;
                    b[ch * 4 + 2] = v.z;
                    b[ch * 4 + 3] = v.w;
                }
#pragma unroll
                for (int i = 0; i < TM; ++i) {
                    const float av = kk == 0 ? a[i].x : kk == 1 ? a[i].y : kk == 2 ? a[i].z : a[i].w;
#pragma unroll
                    for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(av, b[j], acc[i][j]);
                }
            }
        }
    }

    float *Cb = C + (size_t)bm0 * N + bn0;
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int r = wm0 + tr + i * P::TROWS;
#pragma unroll
        for (int ch = 0; ch < P::NCH; ++ch) {
            const int c = wn0 + ch * P::NSTR + tc * 4;
            store4<1>(Cb, N, r, c, mrows, ncols,
                      make_float4(acc[i][ch * 4], acc[i][ch * 4 + 1], acc[i][ch * 4 + 2],
                                  acc[i][ch * 4 + 3]));
        }
    }
}

// ---- full tiles, lean loop ---------------------------------------------------------------
// The two-stage kernel above with what the inner loop does besides the
// multiply-adds cut down, for sizes that are whole tiles (M % BM, N % BN,
// K % BK all zero, 16-byte rows): no bounds checks, the global addresses
// moved on by one pointer increment a slice, the last slice's step
// (nothing more to fetch) apart from the loop, and with UNROLL2 two slices
// a trip, so that which stage is in use is known at compile time and the
// shared-memory addresses are immediates (without it, an offset swapped
// each slice).  Warps, thread tiles and shared-memory layout as in
// sgemm_warptile_kernel (A transposed, fragments double-buffered in
// registers).  A's slice travels one of three ways (AMODE):
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
// Element loads, any sizes: the two-stage kernel in the shape below.  Every
// launcher of this file takes it where the 16-byte path cannot go.
#define WT_RAW 128, 128, 8, 64, 32, 8, 8, 2, 2, false

static cudaError_t raw_run(int M, int N, int K, const float *A, const float *B, float *C,
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
    if (!k_mm_vec_ok(N, K, A, B, C)) return raw_run(M, N, K, A, B, C, s);
    using P = warptile_shape<BM, BN, BK, WM, WN, TM, TN>;
    dim3 grid;
    if (!k_mm_grid(M, N, BM, BN, &grid)) return cudaErrorInvalidValue;
    sgemm_warptile_kernel<BM, BN, BK, WM, WN, TM, TN, MINB, 1, ASYNC><<<grid, P::THREADS, 0, s>>>(
        M, N, K, A, B, C);
    KCHECK_LAUNCH();
    return cudaSuccess;
}

// The lean kernel where the sizes are whole tiles; otherwise the two-stage
// cp.async kernel in the shape below (WT_EDGE, the 16-byte path with
// edges), or the element-load form.
#define WT_EDGE 128, 128, 8, 32, 64, 8, 8, 2, true
#define WT_EDGE_NAME "sgemm_warptile[async,128x128x8,w32x64,t8x8]"

// Whether M x N x K is whole BM x BN x BK tiles (the lean kernel's sizes).
template <int BM, int BN, int BK> static bool wt_whole(int M, int N, int K)
{
    return M % BM == 0 && N % BN == 0 && K % BK == 0;
}

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int MINB, int AMODE, int SWZ,
          bool UNROLL2>
static cudaError_t wtlean_run(int M, int N, int K, const float *A, const float *B, float *C,
                              cudaStream_t s)
{
    if (!k_mm_sizes_ok(M, N, K, A, B, C)) return cudaErrorInvalidValue;
    if (!k_mm_vec_ok(N, K, A, B, C)) return raw_run(M, N, K, A, B, C, s);
    if (!wt_whole<BM, BN, BK>(M, N, K)) return warptile_run<WT_EDGE>(M, N, K, A, B, C, s);
    using P = warptile_shape<BM, BN, BK, WM, WN, TM, TN>;
    dim3 grid;
    if (!k_mm_grid(M, N, BM, BN, &grid)) return cudaErrorInvalidValue;
    sgemm_wtlean_kernel<BM, BN, BK, WM, WN, TM, TN, MINB, AMODE, SWZ, UNROLL2><<<grid, P::THREADS, 0, s>>>(
        M, N, K, A, B, C);
    KCHECK_LAUNCH();
    return cudaSuccess;
}

// Dynamic shared memory of the pipelined kernels: asks for more than the
// default 48 KB once per device (and for the largest shared-memory
// carveout, so that two blocks fit); *fits is false when this device
// cannot give a block that much.
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int STAGES, int MINB>
static cudaError_t wtpipe_prepare(bool *fits)
{
    using P = wtpipe_shape<BM, BN, BK, WM, WN, TM, TN, STAGES>;
    static int configured = -1;
    int dev = 0, optin = 0;
    KCHECK(cudaGetDevice(&dev));
    KCHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    *fits = P::SMEM <= (size_t)optin;
    if (!*fits || configured == dev) return cudaSuccess;
    const void *f = (const void *)sgemm_wtpipe_kernel<BM, BN, BK, WM, WN, TM, TN, STAGES, MINB>;
    KCHECK(cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)P::SMEM));
    KCHECK(cudaFuncSetAttribute(f, cudaFuncAttributePreferredSharedMemoryCarveout,
                                cudaSharedmemCarveoutMaxShared));
    configured = dev;
    return cudaSuccess;
}

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int STAGES, int MINB>
static cudaError_t wtpipe_run(int M, int N, int K, const float *A, const float *B, float *C,
                              cudaStream_t s)
{
    if (!k_mm_sizes_ok(M, N, K, A, B, C)) return cudaErrorInvalidValue;
    bool fits = false;
    if (k_mm_vec_ok(N, K, A, B, C)) KCHECK((wtpipe_prepare<BM, BN, BK, WM, WN, TM, TN, STAGES, MINB>(&fits)));
    if (!fits) return raw_run(M, N, K, A, B, C, s);
    using P = wtpipe_shape<BM, BN, BK, WM, WN, TM, TN, STAGES>;
    dim3 grid;
    if (!k_mm_grid(M, N, BM, BN, &grid)) return cudaErrorInvalidValue;
    sgemm_wtpipe_kernel<BM, BN, BK, WM, WN, TM, TN, STAGES, MINB>
        <<<grid, P::THREADS, P::SMEM, s>>>(M, N, K, A, B, C);
    KCHECK_LAUNCH();
    return cudaSuccess;
}

// The shipped configurations (bench/KERNELS.md: how they are chosen), as
// the sweep on an H100 picked them.  BIG (0.995x of cuBLAS at 4096 against
// 0.87x for the two-stage kernel it replaced): the lean loop on 128x128
// block tiles, K slices of 8, A by 16-byte cp.async through the staging
// tile, 8 warps of 32x64, 8x8 outputs a thread, two slices a trip, two
// blocks a multiprocessor; sizes that are not whole tiles take WT_EDGE (the
// same tiles with bounds checks).  SMALL, when BIG's tiles would leave
// multiprocessors without a block (1024 x 1024 on a GPU of more than 64
// multiprocessors; 1.01x of cuBLAS there against 0.77x for the pipelined
// kernel it replaced): the lean loop on 64x64 tiles, K slices of 16, 4
// warps of 32x32, 4x8 outputs a thread; sizes that are not whole tiles of
// it take SMALL_EDGE, the pipelined kernel on 64x64 tiles.
#define WT_BIG 128, 128, 8, 32, 64, 8, 8, 2, 0, 1, true
#define WT_BIG_TILE 128, 128, 8
#define WT_SMALL 64, 64, 16, 32, 32, 4, 8, 2, 0, 1, false
#define WT_SMALL_TILE 64, 64, 16
#define WT_SMALL_EDGE 64, 64, 8, 32, 32, 4, 8, 3, 2
// Their names among the tuning variants.
#define WT_BIG_NAME "sgemm_warptile[lean,a16,128x128x8,w32x64,t8x8,u2]"
#define WT_SMALL_NAME "sgemm_warptile[lean,a16,64x64x16,w32x32,t4x8]"
#define WT_SMALL_EDGE_NAME "sgemm_warptile[pipe,64x64x8,w32x32,t4x8,s3]"

cudaError_t launch_sgemm_warptile(int M, int N, int K, const float *A, const float *B, float *C,
                                  cudaStream_t s)
{
    if (!k_mm_sizes_ok(M, N, K, A, B, C)) return cudaErrorInvalidValue;
    bool small = false;
    KCHECK(k_mm_small_grid(M, N, &small));
    if (!small) return wtlean_run<WT_BIG>(M, N, K, A, B, C, s);
    if (k_mm_vec_ok(N, K, A, B, C) && wt_whole<WT_SMALL_TILE>(M, N, K))
        return wtlean_run<WT_SMALL>(M, N, K, A, B, C, s);
    return wtpipe_run<WT_SMALL_EDGE>(M, N, K, A, B, C, s);
}

// ---- resources ---------------------------------------------------------------------------
// Fills out for kernel f launched with threads and smem dynamic bytes.
cudaError_t k_kernel_resources(const void *f, int threads, size_t smem, kernel_resources *out)
{
    cudaFuncAttributes a;
    KCHECK(cudaFuncGetAttributes(&a, f));
    out->registers = a.numRegs;
    out->static_smem = (int)a.sharedSizeBytes;
    out->dynamic_smem = (int)smem;
    out->local_bytes = (int)a.localSizeBytes;
    out->threads = threads;
    int blocks = 0;
    KCHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, f, threads, smem));
    out->blocks_per_sm = blocks;
    return cudaSuccess;
}

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int STAGES, int MINB>
static bool wtpipe_resources(kernel_resources *out)
{
    using P = wtpipe_shape<BM, BN, BK, WM, WN, TM, TN, STAGES>;
    bool fits = false;
    if (wtpipe_prepare<BM, BN, BK, WM, WN, TM, TN, STAGES, MINB>(&fits) != cudaSuccess || !fits)
        return false;
    const void *f = (const void *)sgemm_wtpipe_kernel<BM, BN, BK, WM, WN, TM, TN, STAGES, MINB>;
    return k_kernel_resources(f, P::THREADS, P::SMEM, out) == cudaSuccess;
}

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int MINB, bool ASYNC>
static bool warptile_resources(kernel_resources *out)
{
    using P = warptile_shape<BM, BN, BK, WM, WN, TM, TN>;
    const void *f = (const void *)sgemm_warptile_kernel<BM, BN, BK, WM, WN, TM, TN, MINB, 1, ASYNC>;
    return k_kernel_resources(f, P::THREADS, 0, out) == cudaSuccess;
}

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int MINB, int AMODE, int SWZ,
          bool UNROLL2>
static bool wtlean_resources(kernel_resources *out)
{
    using P = warptile_shape<BM, BN, BK, WM, WN, TM, TN>;
    const void *f = (const void *)sgemm_wtlean_kernel<BM, BN, BK, WM, WN, TM, TN, MINB, AMODE, SWZ, UNROLL2>;
    return k_kernel_resources(f, P::THREADS, 0, out) == cudaSuccess;
}

// ---- tuning variants ----------------------------------------------------------------------------
typedef cudaError_t (*wt_launch_fn)(int, int, int, const float *, const float *, float *,
                                    cudaStream_t);

struct wt_variant {
    const char *name;
    wt_launch_fn launch;
    bool (*resources)(kernel_resources *out);
};

#define WT_OLD(label, ...) {label, warptile_run<__VA_ARGS__>, warptile_resources<__VA_ARGS__>}
#define WT_PIPE(label, ...) {label, wtpipe_run<__VA_ARGS__>, wtpipe_resources<__VA_ARGS__>}
#define WT_LEAN(label, ...) {label, wtlean_run<__VA_ARGS__>, wtlean_resources<__VA_ARGS__>}

static const wt_variant wt_variants[] = {
    // Two stages, A transposed: registers or cp.async (the kernel the rung
    // shipped before the pipelined one; runs 1-3 in bench/KERNELS.md).
    WT_OLD("sgemm_warptile[reg,128x128x8,w64x32,t8x8]", 128, 128, 8, 64, 32, 8, 8, 2, false),
    WT_OLD("sgemm_warptile[async,128x128x8,w64x32,t8x8]", 128, 128, 8, 64, 32, 8, 8, 2, true),
    WT_OLD(WT_EDGE_NAME, WT_EDGE),
    WT_OLD("sgemm_warptile[async,128x128x16,w64x32,t8x8]", 128, 128, 16, 64, 32, 8, 8, 2, true),
    WT_OLD("sgemm_warptile[async,128x128x8,w64x64,t8x16]", 128, 128, 8, 64, 64, 8, 16, 2, true),
    // Pipelined, A row-major: stages, slice depth, warp and thread tiles.
    WT_PIPE("sgemm_warptile[pipe,128x128x8,w64x32,t8x8,s2]", 128, 128, 8, 64, 32, 8, 8, 2, 2),
    WT_PIPE("sgemm_warptile[pipe,128x128x8,w64x32,t8x8,s3]", 128, 128, 8, 64, 32, 8, 8, 3, 2),
    WT_PIPE("sgemm_warptile[pipe,128x128x8,w64x32,t8x8,s4]", 128, 128, 8, 64, 32, 8, 8, 4, 2),
    WT_PIPE("sgemm_warptile[pipe,128x128x16,w64x32,t8x8,s2]", 128, 128, 16, 64, 32, 8, 8, 2, 2),
    WT_PIPE("sgemm_warptile[pipe,128x128x16,w64x32,t8x8,s3]", 128, 128, 16, 64, 32, 8, 8, 3, 2),
    WT_PIPE("sgemm_warptile[pipe,128x128x8,w32x64,t8x8,s3]", 128, 128, 8, 32, 64, 8, 8, 3, 2),
    WT_PIPE("sgemm_warptile[pipe,128x128x8,w64x64,t8x16,s3]", 128, 128, 8, 64, 64, 8, 16, 3, 2),
    WT_PIPE("sgemm_warptile[pipe,128x128x8,w64x64,t8x16,s4]", 128, 128, 8, 64, 64, 8, 16, 4, 2),
    WT_PIPE("sgemm_warptile[pipe,128x128x16,w64x64,t8x16,s3]", 128, 128, 16, 64, 64, 8, 16, 3, 2),
    WT_PIPE("sgemm_warptile[pipe,128x256x8,w64x64,t8x16,s3]", 128, 256, 8, 64, 64, 8, 16, 3, 1),
    WT_PIPE("sgemm_warptile[pipe,256x128x8,w64x64,t8x16,s3]", 256, 128, 8, 64, 64, 8, 16, 3, 1),
    // Smaller tiles, for sizes whose 128x128 grid leaves multiprocessors idle.
    WT_PIPE("sgemm_warptile[pipe,128x64x8,w64x32,t8x8,s3]", 128, 64, 8, 64, 32, 8, 8, 3, 2),
    WT_PIPE(WT_SMALL_EDGE_NAME, WT_SMALL_EDGE),
    WT_PIPE("sgemm_warptile[pipe,64x64x16,w32x32,t4x8,s3]", 64, 64, 16, 32, 32, 4, 8, 3, 2),
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

#define WT_NVARIANTS (sizeof wt_variants / sizeof wt_variants[0])

const shipped_kernel *k_warptile_tune(size_t *n)
{
    static shipped_kernel t[WT_NVARIANTS];
    static bool made = false;
    if (!made) {
        for (size_t i = 0; i < WT_NVARIANTS; ++i)
            t[i] = {wt_variants[i].name, "sgemm", 0, NULL, wt_variants[i].launch, NULL, NULL, NULL, 0};
        made = true;
    }
    *n = WT_NVARIANTS;
    return t;
}

bool k_warptile_resources(const char *name, int M, int N, kernel_resources *out)
{
    if (strcmp(name, "sgemm_warptile") == 0) {
        bool small = false;
        if (k_mm_small_grid(M, N, &small) != cudaSuccess) return false;
        // Whole tiles in M and N: the lean kernels (K is taken to be whole too).
        if (small)
            return wt_whole<WT_SMALL_TILE>(M, N, 16) ? wtlean_resources<WT_SMALL>(out)
                                                     : wtpipe_resources<WT_SMALL_EDGE>(out);
        return wt_whole<WT_BIG_TILE>(M, N, 8) ? wtlean_resources<WT_BIG>(out)
                                              : warptile_resources<WT_EDGE>(out);
    }
    for (size_t i = 0; i < WT_NVARIANTS; ++i)
        if (strcmp(name, wt_variants[i].name) == 0) return wt_variants[i].resources(out);
    return false;
}

const char *k_warptile_shipped_as(const char *rung, int M, int N)
{
    bool small = false;
    if (strcmp(rung, "sgemm_warptile") != 0 || k_mm_small_grid(M, N, &small) != cudaSuccess)
        return NULL;
    if (small) return wt_whole<WT_SMALL_TILE>(M, N, 16) ? WT_SMALL_NAME : WT_SMALL_EDGE_NAME;
    return wt_whole<WT_BIG_TILE>(M, N, 8) ? WT_BIG_NAME : WT_EDGE_NAME;
}
