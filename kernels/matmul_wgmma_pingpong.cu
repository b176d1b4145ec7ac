// matmul_wgmma_pingpong.cu - rung 14, gemm_wgmma_pingpong: the persistent
// kernel of rung 12 with its two consumer warpgroups taking turns instead of
// sharing a tile.
//
// In rungs 11 to 13 both consumers multiply halves of one 128x256 tile and
// finish it together, so they also write it out together: for as long as the
// 128 KB of FP32 results take to leave the multiprocessor, its tensor cores
// idle.  Timed at K = 1024 to 8192 (4096 x 4096 outputs, H100), rung 12 pays
// about 21 us that does not grow with K, cuBLAS about 15.
//
// Here each consumer owns whole 64x256 tiles: consumer 0 takes the block's
// tiles 0, 2, 4, ..., consumer 1 tiles 1, 3, 5, ...  Their main loops run one
// after the other, in order: a consumer starts multiplying its next tile only
// when the other has finished its main loop (an "order" barrier a consumer),
// and then the other writes its results while this one multiplies.  The
// producer fills one ring of slices, tile after tile, as before; a slice is
// read by one consumer, so four warps hand it back.
//
// The order is also what makes the ring's barriers safe to share: a
// consumer waits on a stage's barrier by the parity of the round it wants,
// which is only unambiguous when that stage's previous round is already
// complete - and the previous round of a consumer's first slices belongs to
// the tile the other consumer has just finished.
//
// A 64x256 tile has half the rows of rung 12's, so per multiply the slices
// bring a larger share of B (40 KB a slice for 2 MFLOP against 48 KB for 4):
// the ring has 5 stages of 40 KB.  Shapes the TMA path cannot take go to rung
// 10's launcher, as rung 11's do.
#include "hopper.cuh"

#define PP_BM 64
#define PP_BN 256
#define PP_STAGES 5
#define PP_A_BYTES (PP_BM * WG_BK * 2)
#define PP_B_BYTES (WG_BK * PP_BN * 2)
#define PP_SMEM ((size_t)PP_STAGES * (PP_A_BYTES + PP_B_BYTES) + 1024)
// Tile rows one group of the tile order spans: with 132 main loops running,
// about 24 rows of A (64 each) and 6 columns of B (256 each).
#define PP_GROUP_ROWS 24

#if defined(CUDALAB_WGMMA)

#if K_WG_BODY
// The producer (one thread): every K slice of every tile of this block, in
// the order the consumers take them (block b's tile j is tile b + j x grid
// of the whole order).
__device__ __forceinline__ void pp_produce(const CUtensorMap *mapA, const CUtensorMap *mapB,
                                           uint32_t a_base, uint32_t b_base, uint64_t *full,
                                           uint64_t *empty, int tiles_m, int tiles_n, int ktiles)
{
    uint32_t it = 0;
    for (int g = (int)blockIdx.x; g < tiles_m * tiles_n; g += (int)gridDim.x) {
        int tm, tn;
        wg_tile_at(g, tiles_m, tiles_n, PP_GROUP_ROWS, &tm, &tn);
        for (int t = 0; t < ktiles; ++t, ++it) {
            const uint32_t s = it % PP_STAGES, round = it / PP_STAGES;
            if (round > 0) wg_mbar_wait(wg_smem_addr(&empty[s]), (round - 1) & 1);
            const uint32_t bar = wg_smem_addr(&full[s]);
            wg_mbar_expect_tx(bar, PP_A_BYTES + PP_B_BYTES);
            const int k0 = t * WG_BK;
            wg_tma_2d(a_base + s * PP_A_BYTES, mapA, k0, tm * PP_BM, bar);
#pragma unroll
            for (int q = 0; q < PP_BN / WG_B_BOX; ++q)
                wg_tma_2d(b_base + s * PP_B_BYTES + q * (WG_BK * 128), mapB,
                          tn * PP_BN + q * WG_B_BOX, k0, bar);
        }
    }
}

// Consumer c: its tiles j = c, c + 2, ... of the block, each main loop after
// the other consumer's (turn[c] completes a phase each time the other one
// finishes a main loop), then its epilogue while the other multiplies.
__device__ __forceinline__ void pp_consume(int c, uint32_t a_base, uint32_t b_base, uint64_t *full,
                                           uint64_t *empty, uint64_t *turn, int M, int N,
                                           int tiles_m, int tiles_n, int ktiles, float *C)
{
    uint32_t waits = 0;
    for (int j = c;; j += 2) {
        const int g = (int)blockIdx.x + j * (int)gridDim.x;
        if (g >= tiles_m * tiles_n) break;
        int tm, tn;
        wg_tile_at(g, tiles_m, tiles_n, PP_GROUP_ROWS, &tm, &tn);
        if (j > 0) wg_mbar_wait(wg_smem_addr(&turn[c]), waits++ & 1);
        float d[PP_BN / 2];
#pragma unroll
        for (int i = 0; i < PP_BN / 2; ++i) d[i] = 0.0f;
        wg_consume<PP_STAGES, PP_A_BYTES, PP_B_BYTES, 1>(d, a_base, b_base, full, empty, ktiles,
                                                         (uint32_t)j * (uint32_t)ktiles);
        if ((threadIdx.x & 31) == 0) wg_mbar_arrive(wg_smem_addr(&turn[1 - c]));
        wg_store_tile(d, C, M, N, tm * PP_BM, tn * PP_BN);
    }
}
#endif

// ---- the kernel -------------------------------------------------------------------------------
// block WG_THREADS, grid one block a multiprocessor (or one a tile when there
// are fewer), PP_SMEM bytes of dynamic shared memory: PP_STAGES slices of A
// (64 rows of 128 bytes) then the B slices (four boxes of 64 k-rows x 64
// columns, 8 KB apart), as in rung 11.
__global__ void __launch_bounds__(WG_THREADS, 1)
gemm_wgmma_pingpong_kernel(const __grid_constant__ CUtensorMap mapA,
                           const __grid_constant__ CUtensorMap mapB, int M, int N, int K,
                           float *__restrict__ C)
{
#if K_WG_BODY
    extern __shared__ __align__(1024) unsigned char wg_smem[];
    __shared__ __align__(8) uint64_t full[PP_STAGES], empty[PP_STAGES], turn[2];
    const uint32_t base = (wg_smem_addr(wg_smem) + 1023u) & ~1023u;
    const uint32_t a_base = base, b_base = base + PP_STAGES * PP_A_BYTES;
    const int wg = threadIdx.x / 128;
    const int tiles_m = (M + PP_BM - 1) / PP_BM, tiles_n = (N + PP_BN - 1) / PP_BN;
    const int ktiles = (K + WG_BK - 1) / WG_BK;

    if (threadIdx.x == 0) {
        for (int s = 0; s < PP_STAGES; ++s) {
            wg_mbar_init(wg_smem_addr(&full[s]), 1);
            wg_mbar_init(wg_smem_addr(&empty[s]), 4);   // the warps of one consumer
        }
        wg_mbar_init(wg_smem_addr(&turn[0]), 4);
        wg_mbar_init(wg_smem_addr(&turn[1]), 4);
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    }
    __syncthreads();

    if (wg == 0) {
        wg_setmaxnreg_dec<40>();
        if (threadIdx.x == 0)
            pp_produce(&mapA, &mapB, a_base, b_base, full, empty, tiles_m, tiles_n, ktiles);
    } else {
        wg_setmaxnreg_inc<232>();
        pp_consume(wg - 1, a_base, b_base, full, empty, turn, M, N, tiles_m, tiles_n, ktiles, C);
    }
#else
    (void)mapA; (void)mapB; (void)M; (void)N; (void)K; (void)C;
#endif
}

// ---- launcher -----------------------------------------------------------------------------------
static cudaError_t pp_prepare(void)
{
    static int configured = -1;
    return k_wg_smem((const void *)gemm_wgmma_pingpong_kernel, PP_SMEM, &configured);
}

cudaError_t launch_wgmma_pingpong(int M, int N, int K, const uint16_t *A, const uint16_t *B,
                                  float *C, cudaStream_t stream)
{
    if (!k_mm_sizes_ok(M, N, K, A, B, C)) return cudaErrorInvalidValue;
    KCHECK(k_wg_supported());
    if (K % 8 != 0 || N % 8 != 0 || !k_aligned16(A) || !k_aligned16(B))
        return launch_wmma_async(M, N, K, A, B, C, stream);
    KCHECK(pp_prepare());
    int sms = 0;
    KCHECK(k_sm_count(&sms));
    const size_t tiles = k_ceil_div((size_t)M, PP_BM) * k_ceil_div((size_t)N, PP_BN);
    const unsigned grid = (unsigned)(tiles < (size_t)sms ? tiles : (size_t)sms);
    CUtensorMap mapA, mapB;
    KCHECK(k_wg_map(&mapA, A, M, K, PP_BM, WG_BK));
    KCHECK(k_wg_map(&mapB, B, K, N, WG_BK, WG_B_BOX));
    gemm_wgmma_pingpong_kernel<<<grid, WG_THREADS, PP_SMEM, stream>>>(mapA, mapB, M, N, K, C);
    KCHECK_LAUNCH();
    return cudaSuccess;
}

bool k_wgmma_pingpong_resources(const char *name, int M, int N, kernel_resources *out)
{
    (void)M; (void)N;
    if (strcmp(name, "gemm_wgmma_pingpong") != 0 || k_wg_supported() != cudaSuccess ||
        pp_prepare() != cudaSuccess)
        return false;
    return k_kernel_resources((const void *)gemm_wgmma_pingpong_kernel, WG_THREADS, PP_SMEM,
                              out) == cudaSuccess;
}

#else  // !CUDALAB_WGMMA: the build does not target Hopper

cudaError_t launch_wgmma_pingpong(int M, int N, int K, const uint16_t *A, const uint16_t *B,
                                  float *C, cudaStream_t stream)
{
    return launch_wgmma(M, N, K, A, B, C, stream);
}

bool k_wgmma_pingpong_resources(const char *name, int M, int N, kernel_resources *out)
{
    (void)name; (void)M; (void)N; (void)out;
    return false;
}

#endif
