// matmul_wgmma.cu - rung 11, gemm_wgmma: C = A x B in BF16 on Hopper's own
// tensor-core path, wgmma.mma_async fed by the Tensor Memory Accelerator.
//
// What changes from rung 10 (gemm_wmma_async, WMMA = mma.sync):
//   - the multiply is one instruction per warpgroup (4 warps, 128 threads):
//     wgmma.mma_async m64n256k16 reads A and B straight from shared memory
//     through 64-bit matrix descriptors (no fragment loads into registers)
//     and runs asynchronously: the threads issue it, go on, and wait for a
//     group of them later (wgmma.commit_group / wait_group);
//   - the copies are TMA (cp.async.bulk.tensor): one thread asks for a whole
//     tile, the copy engine writes it to shared memory in the 128-byte
//     swizzled layout wgmma reads without bank conflicts, and reports the
//     bytes to an mbarrier; tiles past the matrix edges arrive as zeros;
//   - the block is specialised: warpgroup 0 is the producer (one thread
//     issues the copies into a ring of STAGES slices), warpgroups 1 and 2
//     are consumers (each multiplies 64 rows of the 128x256 tile).  Two
//     mbarriers a slice carry the hand-offs: "full" (the copy engine counted
//     the slice's bytes in) and "empty" (both consumers are done reading it).
//
// B stays K x N row-major as the problem gives it: in shared memory its
// slice is MN-major (N contiguous), and the multiply reads it through
// wgmma's transpose flag for B.  A is K-major (row-major M x K).
//
// The fast path needs what TMA needs: 16-byte-aligned A and B and rows of
// whole 16-byte words (K and N multiples of 8).  Other shapes go to rung 10's
// launcher.  Partial tiles at the edges of aligned shapes stay on the fast
// path: TMA fills out-of-range elements with zeros and the epilogue writes
// only inside C.  The accumulators (FP32, 128 registers a consumer thread)
// go straight from registers to C.
//
// sm_90a only: wgmma and setmaxnreg are Hopper-specific ("a") features that
// no other architecture runs.  The file is compiled for 90a alone (its own
// CMake target) when the build targets Hopper, and as a stub otherwise; the
// launcher refuses (cudaErrorNotSupported) on any device that is not 9.0.
#include "hopper.cuh"

// The two tile shapes: 128x256 (the shipped one), and 128x128 for grids
// that would leave more than half the multiprocessors idle with 128x256.
// Each consumer warpgroup owns 64 x BN of the tile: BN / 2 accumulators a
// thread.  Slices are 48 KB (4 stages) or 32 KB (6 stages): about 192 KB.
template <int BN> struct wg_shape {
    static constexpr int STAGES = BN == 256 ? 4 : 6;
    static constexpr int B_BYTES = WG_BK * BN * 2;
    static constexpr int ACC = BN / 2;
    static constexpr size_t SMEM = (size_t)STAGES * (WG_A_BYTES + B_BYTES) + 1024;
    static_assert(BN == 128 || BN == 256, "wgmma n of 128 or 256");
};

#if defined(CUDALAB_WGMMA)

// ---- the kernel -------------------------------------------------------------------------------
// block WG_THREADS, grid (ceil(N/BN), ceil(M/WG_BM)), wg_shape<BN>::SMEM
// bytes of dynamic shared memory.  Shared memory per slice s: A at s x 16 KB
// (128 rows of 128 bytes), then the B slices of BN / 64 boxes of 64 k-rows
// x 64 columns (128 bytes), 8 KB apart.
//
// One function: the producer warpgroup (TMA copies, mbarrier waits) and the
// consumer warpgroups (wgmma into 64 x BN accumulators held in the registers
// setmaxnreg gives them) divide one register budget and share the barriers
// set up here; that instruction mix, issued from a kernel that keeps every
// accumulator in registers, is the point, so it stays whole.
template <int BN>
__global__ void __launch_bounds__(WG_THREADS, 1)
gemm_wgmma_kernel(const __grid_constant__ CUtensorMap mapA, const __grid_constant__ CUtensorMap mapB,
                  int M, int N, int K, float *__restrict__ C)
{
#if K_WG_BODY
    typedef wg_shape<BN> S;
    constexpr int STAGES = S::STAGES, B_BYTES = S::B_BYTES;
    extern __shared__ __align__(1024) unsigned char wg_smem[];
    __shared__ __align__(8) uint64_t full[STAGES], empty[STAGES];
    // Swizzled slices start on 1024-byte boundaries (the pattern's period).
    const uint32_t base = (wg_smem_addr(wg_smem) + 1023u) & ~1023u;
    const uint32_t a_base = base, b_base = base + STAGES * WG_A_BYTES;
    const int wg = threadIdx.x / 128, lane = threadIdx.x & 31;
    const int bm0 = blockIdx.y * WG_BM, bn0 = blockIdx.x * BN;
    const int ktiles = (K + WG_BK - 1) / WG_BK;

    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            wg_mbar_init(wg_smem_addr(&full[s]), 1);
            wg_mbar_init(wg_smem_addr(&empty[s]), 8);   // one arrival a consumer warp
        }
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    }
    __syncthreads();

    if (wg == 0) {
        // Producer: gives most of its registers to the consumers.
        wg_setmaxnreg_dec<40>();
        if (threadIdx.x == 0) {
            for (int t = 0; t < ktiles; ++t) {
                const int s = t % STAGES, round = t / STAGES;
                if (round > 0) wg_mbar_wait(wg_smem_addr(&empty[s]), (round - 1) & 1);
                const uint32_t bar = wg_smem_addr(&full[s]);
                wg_mbar_expect_tx(bar, WG_A_BYTES + B_BYTES);
                const int k0 = t * WG_BK;
                wg_tma_2d(a_base + s * WG_A_BYTES, &mapA, k0, bm0, bar);
#pragma unroll
                for (int q = 0; q < BN / WG_B_BOX; ++q)
                    wg_tma_2d(b_base + s * B_BYTES + q * (WG_BK * 128), &mapB, bn0 + q * WG_B_BOX,
                              k0, bar);
            }
        }
    } else {
        wg_setmaxnreg_inc<232>();
        const int c = wg - 1;   // this consumer's 64 rows of the tile
        float d[S::ACC];
#pragma unroll
        for (int i = 0; i < S::ACC; ++i) d[i] = 0.0f;
        // hopper.cuh's wg_consume is this loop for the later rungs; kept
        // inline here, where through the shared function ptxas serialised
        // this kernel's wgmma (its warning C7515).
        for (int t = 0; t < ktiles; ++t) {
            const int s = t % STAGES;
            wg_mbar_wait(wg_smem_addr(&full[s]), (t / STAGES) & 1);
            const uint32_t a = a_base + s * WG_A_BYTES + c * (64 * 128);
            const uint32_t b = b_base + s * B_BYTES;
            wg_fence();
#pragma unroll
            for (int kk = 0; kk < WG_BK / 16; ++kk) {
                // A: 16 k-columns are 32 bytes along a swizzled row; groups of
                // 8 rows lie 1024 bytes apart.  B: 16 k-rows are 2048 bytes
                // down a box; 8-row groups 1024 bytes apart (stride), 64-column
                // boxes 8 KB apart (leading).
                wg_mma(d, wg_desc(a + kk * 32, 16, 1024), wg_desc(b + kk * 2048, WG_BK * 128, 1024));
            }
            wg_commit();
            // The multiplies of slice t-1 are done: hand its stage back.
            wg_wait<1>();
            if (t > 0 && lane == 0)
                wg_mbar_arrive(wg_smem_addr(&empty[(t - 1) % STAGES]));
        }
        wg_wait<0>();
        wg_store_tile(d, C, M, N, bm0 + c * 64, bn0);
    }
#else
    (void)mapA; (void)mapB; (void)M; (void)N; (void)K; (void)C;
#endif
}

// ---- launcher -----------------------------------------------------------------------------------
// Asks once per device for the kernel's dynamic shared memory.
template <int BN> static cudaError_t wg_prepare(void)
{
    static int configured = -1;
    return k_wg_smem((const void *)gemm_wgmma_kernel<BN>, wg_shape<BN>::SMEM, &configured);
}

// The tile width for an M x N output: 128 when 128x256 tiles would leave
// more than half the multiprocessors without a block (1024 x 1024: 32
// tiles on 132 multiprocessors).
static cudaError_t wg_bn(int M, int N, int *bn)
{
    int sms = 0;
    KCHECK(k_sm_count(&sms));
    *bn = 2 * k_ceil_div((size_t)M, WG_BM) * k_ceil_div((size_t)N, 256) <= (size_t)sms ? 128 : 256;
    return cudaSuccess;
}

template <int BN>
static cudaError_t wg_run(int M, int N, int K, const uint16_t *A, const uint16_t *B, float *C,
                          cudaStream_t s)
{
    dim3 grid;
    if (!k_mm_grid(M, N, WG_BM, BN, &grid)) return cudaErrorInvalidValue;
    KCHECK(wg_prepare<BN>());
    CUtensorMap mapA, mapB;
    KCHECK(k_wg_map(&mapA, A, M, K, WG_BM, WG_BK));
    KCHECK(k_wg_map(&mapB, B, K, N, WG_BK, WG_B_BOX));
    gemm_wgmma_kernel<BN><<<grid, WG_THREADS, wg_shape<BN>::SMEM, s>>>(mapA, mapB, M, N, K, C);
    KCHECK_LAUNCH();
    return cudaSuccess;
}

cudaError_t launch_wgmma(int M, int N, int K, const uint16_t *A, const uint16_t *B, float *C,
                         cudaStream_t stream)
{
    if (!k_mm_sizes_ok(M, N, K, A, B, C)) return cudaErrorInvalidValue;
    KCHECK(k_wg_supported());
    // TMA: global addresses and row strides in whole 16-byte words.
    if (K % 8 != 0 || N % 8 != 0 || !k_aligned16(A) || !k_aligned16(B))
        return launch_wmma_async(M, N, K, A, B, C, stream);
    int bn = 256;
    KCHECK(wg_bn(M, N, &bn));
    return bn == 128 ? wg_run<128>(M, N, K, A, B, C, stream) : wg_run<256>(M, N, K, A, B, C, stream);
}

template <int BN> static bool wg_resources(kernel_resources *out)
{
    if (wg_prepare<BN>() != cudaSuccess) return false;
    return k_kernel_resources((const void *)gemm_wgmma_kernel<BN>, WG_THREADS,
                              wg_shape<BN>::SMEM, out) == cudaSuccess;
}

bool k_wgmma_resources(const char *name, int M, int N, kernel_resources *out)
{
    int bn = 256;
    if (strcmp(name, "gemm_wgmma") != 0 || k_wg_supported() != cudaSuccess ||
        wg_bn(M, N, &bn) != cudaSuccess)
        return false;
    return bn == 128 ? wg_resources<128>(out) : wg_resources<256>(out);
}

#else  // !CUDALAB_WGMMA: the build does not target Hopper

cudaError_t launch_wgmma(int M, int N, int K, const uint16_t *A, const uint16_t *B, float *C,
                         cudaStream_t stream)
{
    (void)stream;
    if (!k_mm_sizes_ok(M, N, K, A, B, C)) return cudaErrorInvalidValue;
    return cudaErrorNotSupported;
}

bool k_wgmma_resources(const char *name, int M, int N, kernel_resources *out)
{
    (void)name; (void)M; (void)N; (void)out;
    return false;
}

#endif
