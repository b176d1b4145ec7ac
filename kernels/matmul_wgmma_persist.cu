// matmul_wgmma_persist.cu - rungs 12 to 14: rung 11's warpgroups, made
// persistent, then paired into clusters that share B, then with their output
// written by the copy engine.
//
// gemm_wgmma_persist (rung 12): one block a multiprocessor, for the whole
// run.  Each block walks a list of 128x256 output tiles (tile scheduler:
// block b takes tiles b, b + grid, b + 2 grid, ...), in an order that keeps
// the tiles running at one time on a few rows of A and columns of B, so that
// they come from L2 rather than from DRAM.  The producer does not stop at a
// tile's end: its ring of slices runs on into the next tile, so while the
// consumers write one tile's accumulators to C, the next tile's first slices
// are already arriving.  Rung 11 starts a new block per tile and pays, per
// tile, for the block's start, for filling the ring, and for an epilogue
// during which the tensor cores of that multiprocessor idle.
//
// gemm_wgmma_cluster (rung 13): the same, with the blocks in clusters of two
// (thread-block clusters: blocks of one cluster run at the same time on
// multiprocessors of one GPC and can reach each other's shared memory).  The
// two blocks of a cluster compute two tiles one above the other: the same
// columns of B.  Each producer loads its own A and half of the B slice, and
// the copy engine writes that half into both blocks' shared memory at once
// (TMA multicast), so B crosses from L2 once for two tiles: each block asks
// L2 for 32 KB a slice instead of 48.  A slice's stage may be written again
// only when the consumers of both blocks are done with it, so each consumer
// warp arrives on the "empty" barrier of both blocks.
//
// gemm_wgmma_tmastore (rung 14): rung 12 (its blocks alone: see below)
// with a different epilogue.  In
// rungs 11 to 13 the consumers store their accumulators to C themselves, 128
// KB of FP32 a tile; until the last store has left, they start no multiply.
// Timed at K from 1024 to 8192 (4096 x 4096 outputs, H100), rung 12 paid
// about 21 us that did not grow with K, cuBLAS about 15.  Here the consumers
// write each 64 x 32 piece of their results into shared memory (two 8 KB
// buffers a consumer, 128-byte swizzled, so the writes meet no bank
// conflicts) and one thread hands it to the copy engine (a TMA store); the
// consumers go on to the next tile while the copy engine writes C.
//
// Rung 14 does not pair its blocks into clusters.  Measured on an H100 with
// the descriptors in uniform registers (Nsight Compute, 4096^3, clock held):
// 298,400 cycles alone, 300,900 in clusters, cuBLAS BF16 299,300; the pair's
// remote arrivals and its lockstep (a stage is free only when both blocks
// are done with it) cost more than the L2 traffic the shared B saves, and
// in one wave of tiles (2048^3) clusters ran at 0.95x of cuBLAS, alone 1.00x.
//
// Shapes the TMA path cannot take (K or N not a multiple of 8, A or B not
// 16-byte aligned) go to rung 10's launcher, as rung 11's do; outputs of
// fewer 128x256 tiles than half the multiprocessors go to rung 11, whose
// 128x128 tiles use more of them (a persistent block gains nothing there).
#include "hopper.cuh"

// The shipped tile is 128x256 (BN 256) with a ring of 4 slices; the
// variants of 128x128 tiles (BN 128) keep 6, in about the same shared memory.
#define WP_BN 256
template <int BN> struct wp_shape {
    static constexpr int stages = BN == 256 ? 4 : 6;
    static constexpr int b_bytes = WG_BK * BN * 2;
    static constexpr size_t ring = (size_t)stages * (WG_A_BYTES + b_bytes) + 1024;
};
// Tile rows that one group of the tile order spans: the 132 tiles in flight
// on an H100 then cover 16 rows of A and about 8 columns of B.
#define WP_GROUP_ROWS 16

#if defined(CUDALAB_WGMMA)

#if K_WG_BODY
// Where block `rank` of a cluster puts unit u (in the tile order): the
// first row *bm0 and column *bn0 of its 128x256 tile.  Producer and
// consumers walk the same units: block b's are b / CL, + grid / CL, ...
template <int CL, int BN>
__device__ __forceinline__ void wp_tile_origin(int u, int units_m, int tiles_n, uint32_t rank,
                                               int *bm0, int *bn0)
{
    int um, tn;
    wg_tile_at(u, units_m, tiles_n, WP_GROUP_ROWS / CL, &um, &tn);
    *bm0 = (um * CL + (int)rank) * WG_BM;
    *bn0 = tn * BN;
}

// The producer (one thread): for every unit of this block, every K slice
// into the ring; its own 128 rows of A, and of B all four boxes (CL 1) or
// its share of them, multicast to the whole cluster (CL 2).
template <int CL, int BN>
__device__ __forceinline__ void wp_produce(const CUtensorMap *mapA, const CUtensorMap *mapB,
                                           uint32_t a_base, uint32_t b_base, uint64_t *full,
                                           uint64_t *empty, int units_m, int tiles_n, int ktiles,
                                           uint32_t rank)
{
    using S = wp_shape<BN>;
    constexpr int BOXES = BN / WG_B_BOX, SHARE = BOXES / CL;
    const int units = units_m * tiles_n, step = (int)gridDim.x / CL;
    uint32_t it = 0;
    for (int u = (int)blockIdx.x / CL; u < units; u += step) {
        int bm0, bn0;
        wp_tile_origin<CL, BN>(u, units_m, tiles_n, rank, &bm0, &bn0);
        for (int t = 0; t < ktiles; ++t, ++it) {
            const uint32_t s = it % S::stages, round = it / S::stages;
            if (round > 0) wg_mbar_sleep(wg_smem_addr(&empty[s]), (round - 1) & 1);
            const uint32_t bar = wg_smem_addr(&full[s]);
            wg_mbar_expect_tx(bar, WG_A_BYTES + S::b_bytes);
            const int k0 = t * WG_BK;
            wg_tma_2d(a_base + s * WG_A_BYTES, mapA, k0, bm0, bar);
            const uint32_t b = b_base + s * S::b_bytes;
#pragma unroll
            for (int q = 0; q < SHARE; ++q) {
                const int box = (int)rank * SHARE + q;
                if (CL == 1)
                    wg_tma_2d(b + box * (WG_BK * 128), mapB, bn0 + box * WG_B_BOX, k0, bar);
                else
                    wg_tma_2d_multicast(b + box * (WG_BK * 128), mapB, bn0 + box * WG_B_BOX, k0,
                                        bar, (uint16_t)((1u << CL) - 1u));
            }
        }
    }
}

// Consumer CI (0 or 1: its 64 rows of each tile): for every unit of this
// block, the tile's multiplies, then its results out to C, by its own
// stores or through the copy engine (TMA_C).
template <int CL, bool TMA_C, int BN, int CI>
__device__ __forceinline__ void wp_consume_tiles(const CUtensorMap *mapC, float *C, int M, int N,
                                                 uint32_t a_base, uint32_t b_base, uint64_t *full,
                                                 uint64_t *empty, int units_m, int tiles_n,
                                                 int ktiles, uint32_t rank)
{
    using S = wp_shape<BN>;
    const int units = units_m * tiles_n, step = (int)gridDim.x / CL;
    uint32_t it = 0;
    for (int u = (int)blockIdx.x / CL; u < units; u += step) {
        int bm0, bn0;
        wp_tile_origin<CL, BN>(u, units_m, tiles_n, rank, &bm0, &bn0);
        float d[BN / 2];
#pragma unroll
        for (int i = 0; i < BN / 2; ++i) d[i] = 0.0f;
        wg_consume<S::stages, WG_A_BYTES, S::b_bytes, CL>(d, a_base + CI * (64 * 128), b_base,
                                                          full, empty, ktiles, it);
        it += (uint32_t)ktiles;
        if (TMA_C)
            wg_store_tile_tma(d, mapC, b_base + S::stages * S::b_bytes + CI * WG_EPI_BYTES,
                              bm0 + CI * 64, bn0, 1 + CI);
        else
            wg_store_tile(d, C, M, N, bm0 + CI * 64, bn0);
    }
    if (TMA_C && (threadIdx.x & 127) == 0) wg_tma_store_drain();
}
#endif

// ---- the kernel -------------------------------------------------------------------------------
// block WG_THREADS, a grid of whole clusters of CL blocks, no more blocks
// than fit at once; wp_smem<TMA_C, BN>() bytes of dynamic shared memory,
// laid out as rung 11's 128x256 shape (or its 128x128 one, BN 128).  The roles are rung 11's: warpgroup 0 produces,
// warpgroups 1 and 2 each multiply 64 rows of the current tile.
template <int CL, bool TMA_C, int BN>
__global__ void __launch_bounds__(WG_THREADS, 1)
gemm_wgmma_persist_kernel(const __grid_constant__ CUtensorMap mapA,
                          const __grid_constant__ CUtensorMap mapB,
                          const __grid_constant__ CUtensorMap mapC, int M, int N, int K,
                          float *__restrict__ C)
{
#if K_WG_BODY
    extern __shared__ __align__(1024) unsigned char wg_smem[];
    using S = wp_shape<BN>;
    __shared__ __align__(8) uint64_t full[S::stages], empty[S::stages];
    const uint32_t base = (wg_smem_addr(wg_smem) + 1023u) & ~1023u;
    const uint32_t a_base = base, b_base = base + S::stages * WG_A_BYTES;
    // The warpgroup's index, broadcast from lane 0: the compiler then knows
    // it is the same in every thread of a warp, so the branches on it below
    // do not split warps and what each role computes from values common to
    // the warp may live in the warp's uniform registers.  The descriptors
    // that every wgmma reads from uniform registers are then built there,
    // not in each thread's registers and moved over (R2UR) before each one.
    const int wg = __shfl_sync(0xffffffffu, (int)threadIdx.x / 128, 0);
    const uint32_t rank = CL > 1 ? wg_cluster_rank() : 0u;
    const int tiles_m = (M + WG_BM - 1) / WG_BM, tiles_n = (N + BN - 1) / BN;
    const int units_m = (tiles_m + CL - 1) / CL;
    const int ktiles = (K + WG_BK - 1) / WG_BK;

    if (threadIdx.x == 0) {
        wg_prefetch_map(&mapA);
        wg_prefetch_map(&mapB);
        if (TMA_C) wg_prefetch_map(&mapC);
        for (int s = 0; s < S::stages; ++s) {
            wg_mbar_init(wg_smem_addr(&full[s]), 1);
            wg_mbar_init(wg_smem_addr(&empty[s]), 8 * CL);   // every consumer warp of the cluster
        }
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    }
    __syncthreads();
    if (CL > 1) wg_cluster_sync();   // no block arrives on a barrier not yet set up

    if (wg == 0) {
        wg_setmaxnreg_dec<40>();
        if (threadIdx.x == 0)
            wp_produce<CL, BN>(&mapA, &mapB, a_base, b_base, full, empty, units_m, tiles_n, ktiles,
                           rank);
    } else {
        wg_setmaxnreg_inc<232>();
        // one copy of the loop a consumer, so that everything it computes
        // from its index is the same across the warp, known to the compiler
        if (wg == 1)
            wp_consume_tiles<CL, TMA_C, BN, 0>(&mapC, C, M, N, a_base, b_base, full, empty, units_m,
                                           tiles_n, ktiles, rank);
        else
            wp_consume_tiles<CL, TMA_C, BN, 1>(&mapC, C, M, N, a_base, b_base, full, empty, units_m,
                                           tiles_n, ktiles, rank);
    }
    // A block leaves only when its partner no longer writes into its shared
    // memory or arrives on its barriers.
    __syncwarp();
    if (CL > 1) wg_cluster_sync();
#else
    (void)mapA; (void)mapB; (void)mapC; (void)M; (void)N; (void)K; (void)C;
#endif
}

// ---- launcher -----------------------------------------------------------------------------------
// Shared memory: the ring, then (when C leaves through the copy engine) the
// two consumers' output buffers.
template <bool TMA_C, int BN> static constexpr size_t wp_smem()
{
    return wp_shape<BN>::ring + (TMA_C ? 2 * WG_EPI_BYTES : 0);
}

template <int CL, bool TMA_C, int BN> static cudaError_t wp_prepare(void)
{
    static int configured = -1;
    return k_wg_smem((const void *)gemm_wgmma_persist_kernel<CL, TMA_C, BN>, wp_smem<TMA_C, BN>(),
                     &configured);
}

// The launch: a grid of as many whole clusters as the device holds at once
// (CL 1: one block a multiprocessor), or fewer when there are fewer units.
template <int CL, bool TMA_C, int BN>
static cudaError_t wp_config(int M, int N, cudaLaunchConfig_t *cfg, cudaLaunchAttribute *attr)
{
    KCHECK((wp_prepare<CL, TMA_C, BN>()));
    const size_t units = k_ceil_div(k_ceil_div((size_t)M, WG_BM), CL) * k_ceil_div((size_t)N, BN);
    memset(cfg, 0, sizeof *cfg);
    cfg->blockDim = dim3(WG_THREADS);
    cfg->dynamicSmemBytes = wp_smem<TMA_C, BN>();
    attr->id = cudaLaunchAttributeClusterDimension;
    attr->val.clusterDim.x = CL;
    attr->val.clusterDim.y = 1;
    attr->val.clusterDim.z = 1;
    cfg->attrs = attr;
    cfg->numAttrs = CL > 1 ? 1 : 0;
    // How many clusters fit at once, asked once per device.
    static int slots = 0, asked = -1;
    int dev = 0;
    KCHECK(cudaGetDevice(&dev));
    if (asked != dev) {
        if (CL == 1) {
            KCHECK(k_sm_count(&slots));
        } else {
            cfg->gridDim = dim3((unsigned)(CL * 66));
            KCHECK(cudaOccupancyMaxActiveClusters(
                &slots, (const void *)gemm_wgmma_persist_kernel<CL, TMA_C, BN>, cfg));
        }
        asked = dev;
    }
    if (slots < 1) return cudaErrorNotSupported;
    const size_t n = units < (size_t)slots ? units : (size_t)slots;
    cfg->gridDim = dim3((unsigned)(CL * n));
    return cudaSuccess;
}

template <int CL, bool TMA_C, int BN>
static cudaError_t wp_run(int M, int N, int K, const uint16_t *A, const uint16_t *B, float *C,
                          cudaStream_t stream)
{
    cudaLaunchConfig_t cfg;
    cudaLaunchAttribute attr;
    KCHECK((wp_config<CL, TMA_C, BN>(M, N, &cfg, &attr)));
    cfg.stream = stream;
    CUtensorMap mapA, mapB, mapC;
    KCHECK(k_wg_map(&mapA, A, M, K, WG_BM, WG_BK));
    KCHECK(k_wg_map(&mapB, B, K, N, WG_BK, WG_B_BOX));
    memset(&mapC, 0, sizeof mapC);
    if (TMA_C) KCHECK(k_wg_map_f32(&mapC, C, M, N, 64, WG_SUB_COLS));
    KCHECK(cudaLaunchKernelEx(&cfg, gemm_wgmma_persist_kernel<CL, TMA_C, BN>, mapA, mapB, mapC, M, N,
                              K, C));
    KCHECK_LAUNCH();
    return cudaSuccess;
}

// Whether the output has enough 128x256 tiles for a persistent grid to pay
// (more than half the multiprocessors' worth).
static cudaError_t wp_pays(int M, int N, bool *persist)
{
    int sms = 0;
    KCHECK(k_sm_count(&sms));
    *persist = 2 * k_ceil_div((size_t)M, WG_BM) * k_ceil_div((size_t)N, WP_BN) > (size_t)sms;
    return cudaSuccess;
}


// Whether the TMA path takes these operands, and whether a persistent grid pays.
static cudaError_t wp_route(int M, int N, int K, const uint16_t *A, const uint16_t *B, bool *tma,
                            bool *persist)
{
    *tma = K % 8 == 0 && N % 8 == 0 && k_aligned16(A) && k_aligned16(B);
    return wp_pays(M, N, persist);
}

template <int CL, bool TMA_C, int BN = WP_BN>
static cudaError_t wp_launch(int M, int N, int K, const uint16_t *A, const uint16_t *B, float *C,
                             cudaStream_t stream)
{
    if (!k_mm_sizes_ok(M, N, K, A, B, C)) return cudaErrorInvalidValue;
    KCHECK(k_wg_supported());
    bool tma = false, persist = false;
    KCHECK(wp_route(M, N, K, A, B, &tma, &persist));
    if (!tma) return launch_wmma_async(M, N, K, A, B, C, stream);
    if (!persist) return launch_wgmma(M, N, K, A, B, C, stream);
    if (TMA_C && k_aligned16(C)) return wp_run<CL, true, BN>(M, N, K, A, B, C, stream);
    return wp_run<CL, false, BN>(M, N, K, A, B, C, stream);
}

cudaError_t launch_wgmma_persist(int M, int N, int K, const uint16_t *A, const uint16_t *B,
                                 float *C, cudaStream_t stream)
{
    return wp_launch<1, false>(M, N, K, A, B, C, stream);
}

cudaError_t launch_wgmma_cluster(int M, int N, int K, const uint16_t *A, const uint16_t *B,
                                 float *C, cudaStream_t stream)
{
    return wp_launch<2, false>(M, N, K, A, B, C, stream);
}

cudaError_t launch_wgmma_tmastore(int M, int N, int K, const uint16_t *A, const uint16_t *B,
                                  float *C, cudaStream_t stream)
{
    return wp_launch<1, true>(M, N, K, A, B, C, stream);
}

// ---- tuning variants (mmtune) -------------------------------------------------------------------
// The last rung on other tiles and in clusters, so that one run can put
// them beside the shipped shape (128x256, no clusters).
template <int CL, int BN>
static cudaError_t wp_variant(int M, int N, int K, const uint16_t *A, const uint16_t *B, float *C,
                              cudaStream_t stream)
{
    return wp_launch<CL, true, BN>(M, N, K, A, B, C, stream);
}

template <int CL, bool TMA_C, int BN = WP_BN> static bool wp_resources(kernel_resources *out)
{
    if (wp_prepare<CL, TMA_C, BN>() != cudaSuccess) return false;
    return k_kernel_resources((const void *)gemm_wgmma_persist_kernel<CL, TMA_C, BN>, WG_THREADS,
                              wp_smem<TMA_C, BN>(), out) == cudaSuccess;
}

#define WP_VARIANT(label, CL, BN)                                                                  \
    {.k = {.name = label, .problem = "sgemm", .gemm_bf16 = wp_variant<CL, BN>,                     \
           .precision = "bf16", .min_cc = 90, .max_cc = 90,                                         \
           .cc_needs = "a Hopper GPU (sm_90a: wgmma, TMA multicast and clusters)"},                 \
     .resources = wp_resources<CL, true, BN>}

static const k_tune_variant wp_variants[] = {
    WP_VARIANT("gemm_wgmma_tmastore[128x256,cl2]", 2, 256),
    WP_VARIANT("gemm_wgmma_tmastore[128x128,cl2]", 2, 128),
};
#define WP_NVARIANTS (sizeof wp_variants / sizeof wp_variants[0])

const shipped_kernel *k_wgmma_persist_tune(size_t *count)
{
    static shipped_kernel t[WP_NVARIANTS];
    static bool made = false;
    *count = WP_NVARIANTS;
    return k_tune_entries(wp_variants, WP_NVARIANTS, t, &made);
}

bool k_wgmma_persist_resources(const char *name, int M, int N, kernel_resources *out)
{
    const k_tune_variant *variant = NULL;
    for (size_t i = 0; i < WP_NVARIANTS && !variant; ++i)
        if (strcmp(name, wp_variants[i].k.name) == 0) variant = &wp_variants[i];
    const int rung = strcmp(name, "gemm_wgmma_persist") == 0   ? 12
                     : strcmp(name, "gemm_wgmma_cluster") == 0 ? 13
                     : strcmp(name, "gemm_wgmma_tmastore") == 0 ? 14
                                                               : 0;
    if ((rung == 0 && !variant) || k_wg_supported() != cudaSuccess) return false;
    bool persist = false;
    if (wp_pays(M, N, &persist) != cudaSuccess || !persist)
        return k_wgmma_resources("gemm_wgmma", M, N, out);
    if (variant) return variant->resources(out);
    return rung == 12   ? wp_resources<1, false>(out)
           : rung == 13 ? wp_resources<2, false>(out)
                        : wp_resources<1, true>(out);
}

#else  // !CUDALAB_WGMMA: the build does not target Hopper

cudaError_t launch_wgmma_persist(int M, int N, int K, const uint16_t *A, const uint16_t *B,
                                 float *C, cudaStream_t stream)
{
    return launch_wgmma(M, N, K, A, B, C, stream);
}

cudaError_t launch_wgmma_cluster(int M, int N, int K, const uint16_t *A, const uint16_t *B,
                                 float *C, cudaStream_t stream)
{
    return launch_wgmma(M, N, K, A, B, C, stream);
}

cudaError_t launch_wgmma_tmastore(int M, int N, int K, const uint16_t *A, const uint16_t *B,
                                  float *C, cudaStream_t stream)
{
    return launch_wgmma(M, N, K, A, B, C, stream);
}

bool k_wgmma_persist_resources(const char *name, int M, int N, kernel_resources *out)
{
    (void)name; (void)M; (void)N; (void)out;
    return false;
}

const shipped_kernel *k_wgmma_persist_tune(size_t *count)
{
    *count = 0;
    return NULL;
}

#endif
