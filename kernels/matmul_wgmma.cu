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
#include <cuda.h>
#include <cudaTypedefs.h>

#include "matmul.cuh"

// cudaGetDriverEntryPointByVersion came with CUDA 12.5: older toolkits get
// the stub.
#if defined(CUDALAB_WGMMA) && CUDART_VERSION < 12050
#undef CUDALAB_WGMMA
#endif

// The device code exists only in a 90a build of this file.
#if defined(CUDALAB_WGMMA) && defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define K_WG_BODY 1
#else
#define K_WG_BODY 0
#endif

#define WG_BM 128
#define WG_BK 64                 // 64 BF16 = 128 bytes: one swizzle row
#define WG_THREADS 384           // producer warpgroup + 2 consumer warpgroups
#define WG_A_BYTES (WG_BM * WG_BK * 2)
#define WG_B_BOX 64              // B arrives as BN / 64 boxes of 64 k-rows x 64 columns

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

#if K_WG_BODY
// ---- PTX wrappers ---------------------------------------------------------------------------
__device__ __forceinline__ uint32_t wg_smem_addr(const void *p)
{
    return (uint32_t)__cvta_generic_to_shared(p);
}

__device__ __forceinline__ void wg_mbar_init(uint32_t bar, uint32_t count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}

__device__ __forceinline__ void wg_mbar_expect_tx(uint32_t bar, uint32_t bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes)
                 : "memory");
}

__device__ __forceinline__ void wg_mbar_arrive(uint32_t bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}

// Spins until the barrier's phase of the given parity has completed.
__device__ __forceinline__ void wg_mbar_wait(uint32_t bar, uint32_t parity)
{
    uint32_t done = 0;
    do {
        asm volatile("{\n\t.reg .pred p;\n\t"
                     "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
                     "selp.u32 %0, 1, 0, p;\n}\n"
                     : "=r"(done)
                     : "r"(bar), "r"(parity)
                     : "memory");
    } while (!done);
}

// One box of a 2-D tensor map into shared memory; c0 is the inner (contiguous)
// coordinate.  Completion counts the box's bytes on bar.
__device__ __forceinline__ void wg_tma_2d(uint32_t dst, const CUtensorMap *map, int c0, int c1,
                                          uint32_t bar)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3}], [%4];\n" ::"r"(dst),
                 "l"((unsigned long long)map), "r"(c0), "r"(c1), "r"(bar)
                 : "memory");
}

// Matrix descriptor of a 128-byte-swizzled operand at smem address addr
// (bits 0-13 address, 16-29 leading byte offset, 32-45 stride byte offset,
// all in 16-byte units; 62-63 swizzle mode, 1 = 128 bytes).
__device__ __forceinline__ uint64_t wg_desc(uint32_t addr, uint32_t lbo, uint32_t sbo)
{
    return (uint64_t)((addr & 0x3FFFFu) >> 4) | ((uint64_t)((lbo >> 4) & 0x3FFFu) << 16) |
           ((uint64_t)((sbo >> 4) & 0x3FFFu) << 32) | (1ull << 62);
}

__device__ __forceinline__ void wg_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wg_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N> __device__ __forceinline__ void wg_wait()
{
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

template <int REGS> __device__ __forceinline__ void wg_setmaxnreg_inc()
{
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(REGS));
}
template <int REGS> __device__ __forceinline__ void wg_setmaxnreg_dec()
{
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(REGS));
}

#define WG_D8(i)                                                                                 \
    "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), \
        "+f"(d[i + 6]), "+f"(d[i + 7])
#define WG_D32(i) WG_D8(i), WG_D8(i + 8), WG_D8(i + 16), WG_D8(i + 24)

// d += A (64 x 16, K-major) x B (16 x BN, N-major: transposed), FP32
// accumulators, BF16 operands, both from shared memory.
__device__ __forceinline__ void wg_mma(float (&d)[128], uint64_t da, uint64_t db)
{
    asm volatile(
        "{\n"
        ".reg .pred acc;\n"
        "setp.ne.b32 acc, %130, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
        "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
        "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
        "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "
        "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
        "}, %128, %129, acc, 1, 1, 0, 1;\n"
        "}\n"
        : WG_D32(0), WG_D32(32), WG_D32(64), WG_D32(96)
        : "l"(da), "l"(db), "n"(1));
}

__device__ __forceinline__ void wg_mma(float (&d)[64], uint64_t da, uint64_t db)
{
    asm volatile(
        "{\n"
        ".reg .pred acc;\n"
        "setp.ne.b32 acc, %66, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
        "}, %64, %65, acc, 1, 1, 0, 1;\n"
        "}\n"
        : WG_D32(0), WG_D32(32)
        : "l"(da), "l"(db), "n"(1));
}
#endif

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
    const int wg = threadIdx.x / 128, lane = threadIdx.x & 31, warp = (threadIdx.x / 32) & 3;
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
            if (t > 0 && lane == 0) wg_mbar_arrive(wg_smem_addr(&empty[(t - 1) % STAGES]));
        }
        wg_wait<0>();

        // Epilogue: thread (warp w, lane l) holds, for each 8-column group j,
        // rows 16w + l/4 and +8, columns 8j + 2(l%4) and +1.
        const int r0 = bm0 + c * 64 + warp * 16 + lane / 4;
        const int col0 = bn0 + 2 * (lane % 4);
        const bool pairs = ((size_t)C & 7u) == 0;   // N is even on this path
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int r = r0 + 8 * h;
            if (r >= M) continue;
            float *row = C + (size_t)r * N;
#pragma unroll
            for (int j = 0; j < BN / 8; ++j) {
                const int col = col0 + 8 * j;
                if (col >= N) continue;
                const float x = d[4 * j + 2 * h], y = d[4 * j + 2 * h + 1];
                if (pairs) {
                    *reinterpret_cast<float2 *>(row + col) = make_float2(x, y);
                } else {
                    row[col] = x;
                    row[col + 1] = y;
                }
            }
        }
    }
#else
    (void)mapA; (void)mapB; (void)M; (void)N; (void)K; (void)C;
#endif
}

// ---- launcher -----------------------------------------------------------------------------------
// cuTensorMapEncodeTiled, from the driver at run time (nothing links libcuda).
static cudaError_t wg_encoder(PFN_cuTensorMapEncodeTiled_v12000 *out)
{
    static void *fn = NULL;
    if (!fn) {
        void *f = NULL;
        cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
        KCHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &f, 12000,
                                                cudaEnableDefault, &q));
        if (q != cudaDriverEntryPointSuccess || !f) return cudaErrorNotSupported;
        fn = f;
    }
    *out = (PFN_cuTensorMapEncodeTiled_v12000)fn;
    return cudaSuccess;
}

// A rows x cols row-major BF16 matrix as a 2-D tensor map of box_rows x
// box_cols boxes, 128-byte swizzled, zeros outside.
static cudaError_t wg_map(CUtensorMap *map, const uint16_t *p, int rows, int cols, int box_rows,
                          int box_cols)
{
    PFN_cuTensorMapEncodeTiled_v12000 encode = NULL;
    KCHECK(wg_encoder(&encode));
    const cuuint64_t dims[2] = {(cuuint64_t)cols, (cuuint64_t)rows};
    const cuuint64_t strides[1] = {(cuuint64_t)cols * 2u};
    const cuuint32_t box[2] = {(cuuint32_t)box_cols, (cuuint32_t)box_rows};
    const cuuint32_t elem[2] = {1, 1};
    const CUresult r = encode(map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, (void *)p, dims, strides,
                              box, elem, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                              CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) {
        k_set_library_error("cuTensorMapEncodeTiled failed (CUresult %d)", (int)r);
        return cudaErrorInvalidValue;
    }
    return cudaSuccess;
}

// Asks once per device for the kernel's dynamic shared memory.
template <int BN> static cudaError_t wg_prepare(void)
{
    static int configured = -1;
    int dev = 0, optin = 0;
    KCHECK(cudaGetDevice(&dev));
    if (configured == dev) return cudaSuccess;
    KCHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    if (wg_shape<BN>::SMEM > (size_t)optin) return cudaErrorNotSupported;
    KCHECK(cudaFuncSetAttribute((const void *)gemm_wgmma_kernel<BN>,
                                cudaFuncAttributeMaxDynamicSharedMemorySize,
                                (int)wg_shape<BN>::SMEM));
    configured = dev;
    return cudaSuccess;
}

static cudaError_t wg_supported(void)
{
    int cc = 0;
    KCHECK(k_device_cc(&cc));
    return cc == 90 ? cudaSuccess : cudaErrorNotSupported;
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
    KCHECK(wg_map(&mapA, A, M, K, WG_BM, WG_BK));
    KCHECK(wg_map(&mapB, B, K, N, WG_BK, WG_B_BOX));
    gemm_wgmma_kernel<BN><<<grid, WG_THREADS, wg_shape<BN>::SMEM, s>>>(mapA, mapB, M, N, K, C);
    KCHECK_LAUNCH();
    return cudaSuccess;
}

cudaError_t launch_wgmma(int M, int N, int K, const uint16_t *A, const uint16_t *B, float *C,
                         cudaStream_t stream)
{
    if (!k_mm_sizes_ok(M, N, K, A, B, C)) return cudaErrorInvalidValue;
    KCHECK(wg_supported());
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
    if (strcmp(name, "gemm_wgmma") != 0 || wg_supported() != cudaSuccess ||
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
