// matmul_wt_pipe.cu - rung 7's pipelined kernel: STAGES slices in shared
// memory, A and B copied with cp.async as they lie in memory, one barrier a
// slice (matmul_wt.cuh: the rung's files).  Shipped on 64x64 tiles for the
// grids that would leave multiprocessors idle, where the sizes are not
// whole tiles of the small lean kernel.
#include "matmul_wt.cuh"

// Warps and thread tiles as in the two-stage kernel (matmul_wt_twostage.cu),
// except that a thread's TM rows are TROWS apart (rows tr, tr + TROWS, ...):
// the A tile stays row-major in shared memory with rows of BK + 4 floats,
// and a thread reads four k values of one row as a 16-byte word, so eight
// neighbouring rows fall in eight different bank groups.  B is read as in
// the two-stage kernel.
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

// The request lambda and the loads of A's and B's words are inlined into
// one unrolled loop over the slice, where the copies of a later slice, the
// shared-memory reads and the multiply-adds interleave: that instruction
// mix is the point of the kernel, so it stays one function.
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

// ---- launching ----------------------------------------------------------------------------
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
    if (!fits) return wt_raw_run(M, N, K, A, B, C, s);
    using P = wtpipe_shape<BM, BN, BK, WM, WN, TM, TN, STAGES>;
    dim3 grid;
    if (!k_mm_grid(M, N, BM, BN, &grid)) return cudaErrorInvalidValue;
    sgemm_wtpipe_kernel<BM, BN, BK, WM, WN, TM, TN, STAGES, MINB>
        <<<grid, P::THREADS, P::SMEM, s>>>(M, N, K, A, B, C);
    KCHECK_LAUNCH();
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

cudaError_t wt_small_edge_run(int M, int N, int K, const float *A, const float *B, float *C,
                              cudaStream_t s)
{
    return wtpipe_run<WT_SMALL_EDGE>(M, N, K, A, B, C, s);
}

bool wt_small_edge_resources(kernel_resources *out) { return wtpipe_resources<WT_SMALL_EDGE>(out); }

// ---- tuning variants ----------------------------------------------------------------------------
#define WT_PIPE(label, ...)                                                                    \
    {.name = label, .launch = wtpipe_run<__VA_ARGS__>, .resources = wtpipe_resources<__VA_ARGS__>}

static const wt_variant pipe_variants[] = {
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
};

const wt_variant *wt_pipe_variants(size_t *count)
{
    *count = sizeof pipe_variants / sizeof pipe_variants[0];
    return pipe_variants;
}
