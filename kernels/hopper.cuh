// hopper.cuh - what the Hopper rungs (matmul_wgmma.cu, matmul_wgmma_persist.cu)
// share: their tile constants, the PTX of wgmma, TMA, mbarriers and clusters
// (device code of a 90a build only), and the host side of TMA (hopper_tma.cu).
//
// Every file that includes this is compiled in the cudalab_wgmma CMake target:
// for sm_90a alone when the build targets Hopper (CUDALAB_WGMMA defined),
// otherwise as stubs whose launchers answer cudaErrorNotSupported.
#ifndef CUDALAB_HOPPER_CUH
#define CUDALAB_HOPPER_CUH

#include <cuda.h>
#include <cudaTypedefs.h>

#include "matmul.cuh"

// cudaGetDriverEntryPointByVersion came with CUDA 12.5: older toolkits get
// the stubs.
#if defined(CUDALAB_WGMMA) && CUDART_VERSION < 12050
#undef CUDALAB_WGMMA
#endif

// The device code exists only in a 90a build.
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
// The output through the copy engine (wg_store_tile_tma): sub-tiles of 64
// rows x 32 FP32 columns, two 8 KB buffers a consumer warpgroup.
#define WG_SUB_COLS 32
#define WG_SUB_BYTES (64 * WG_SUB_COLS * 4)
#define WG_EPI_BYTES (2 * WG_SUB_BYTES)

#if defined(CUDALAB_WGMMA)
// ---- host: TMA (hopper_tma.cu) ----------------------------------------------------------------
// A rows x cols row-major BF16 matrix as a 2-D tensor map of box_rows x
// box_cols boxes, 128-byte swizzled, zeros outside.
cudaError_t k_wg_map(CUtensorMap *map, const uint16_t *p, int rows, int cols, int box_rows,
                     int box_cols);
// The same for an FP32 matrix (the output C, written by TMA stores).
cudaError_t k_wg_map_f32(CUtensorMap *map, const float *p, int rows, int cols, int box_rows,
                         int box_cols);
// cudaSuccess on a device of compute capability 9.0, else cudaErrorNotSupported.
cudaError_t k_wg_supported(void);
// Raises the dynamic shared memory of kernel to bytes, once per device
// (*configured holds the device done); cudaErrorNotSupported when the
// device cannot give that much.
cudaError_t k_wg_smem(const void *kernel, size_t bytes, int *configured);
#endif

#if K_WG_BODY
// ---- PTX wrappers ---------------------------------------------------------------------------
__device__ __forceinline__ uint32_t wg_smem_addr(const void *p)
{
    return (uint32_t)__cvta_generic_to_shared(p);
}

// Starts fetching a tensor map (a kernel parameter) into the copy engine's
// cache, so that the first copy through it does not wait for that fetch.
__device__ __forceinline__ void wg_prefetch_map(const CUtensorMap *map)
{
    asm volatile("prefetch.tensormap [%0];\n" ::"l"((unsigned long long)map) : "memory");
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

// Waits until the barrier's phase of the given parity has completed.  With
// SLEEP (for a thread that mostly waits: the producer, whose ring is usually
// full) each try_wait may suspend the thread until the phase completes or
// about 10 ms pass (the hint, in ns), so it issues few instructions, where
// spinning would take issue slots and power from the tensor cores' work.
template <bool SLEEP>
__device__ __forceinline__ void wg_mbar_wait_as(uint32_t bar, uint32_t parity)
{
    uint32_t done = 0;
    do {
        if (SLEEP)
            asm volatile("{\n\t.reg .pred p;\n\t"
                         "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2, %3;\n\t"
                         "selp.u32 %0, 1, 0, p;\n}\n"
                         : "=r"(done)
                         : "r"(bar), "r"(parity), "n"(10000000)
                         : "memory");
        else
            asm volatile("{\n\t.reg .pred p;\n\t"
                         "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
                         "selp.u32 %0, 1, 0, p;\n}\n"
                         : "=r"(done)
                         : "r"(bar), "r"(parity)
                         : "memory");
    } while (!done);
}

__device__ __forceinline__ void wg_mbar_wait(uint32_t bar, uint32_t parity)
{
    wg_mbar_wait_as<false>(bar, parity);
}

__device__ __forceinline__ void wg_mbar_sleep(uint32_t bar, uint32_t parity)
{
    wg_mbar_wait_as<true>(bar, parity);
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

// ---- thread-block clusters ----------------------------------------------------------------
// This block's rank in its cluster.
__device__ __forceinline__ uint32_t wg_cluster_rank()
{
    uint32_t r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
    return r;
}

// Every thread of every block of the cluster meets here; what one block
// wrote to shared memory before it is seen by the others after it.
__device__ __forceinline__ void wg_cluster_sync()
{
    asm volatile("barrier.cluster.arrive.release.aligned;\n"
                 "barrier.cluster.wait.acquire.aligned;\n" ::: "memory");
}

// One arrival on the barrier at the same shared-memory offset in block
// `rank` of the cluster.  The arrival has the default ordering (release at
// the scope of this block): what it orders is this thread's own reads of
// the slice, and wgmma.wait_group has already seen them done.
__device__ __forceinline__ void wg_mbar_arrive_cluster(uint32_t bar, uint32_t rank)
{
    uint32_t remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(remote) : "r"(bar), "r"(rank));
    asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];\n" ::"r"(remote) : "memory");
}

// wg_tma_2d, with the box written at the same offset in every block of the
// cluster whose bit is set in mask, and counted on each one's barrier at
// bar's offset.
__device__ __forceinline__ void wg_tma_2d_multicast(uint32_t dst, const CUtensorMap *map, int c0,
                                                    int c1, uint32_t bar, uint16_t mask)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 ".multicast::cluster [%0], [%1, {%2, %3}], [%4], %5;\n" ::"r"(dst),
                 "l"((unsigned long long)map), "r"(c0), "r"(c1), "r"(bar), "h"(mask)
                 : "memory");
}

// ---- tile order ---------------------------------------------------------------------------------
// Work unit u of a units_m x tiles_n grid of them as its row *um and column
// *tn: units go down a group of `group` rows, then on to the next column, and
// the groups follow one another, so that the units running at one time share
// a few rows of A and columns of B (read from L2 rather than DRAM).
__device__ __forceinline__ void wg_tile_at(int u, int units_m, int tiles_n, int group, int *um,
                                        int *tn)
{
    const int per_group = group * tiles_n;
    const int g = u / per_group, first = g * group;
    const int rows = min(units_m - first, group);
    const int within = u - g * per_group;
    *um = first + within % rows;
    *tn = within / rows;
}

// ---- the consumers' main loop -------------------------------------------------------------------
// One arrival on a slice's "empty" barrier from this warp (lane 0), in every
// block of a cluster of CL (their producers multicast into this block's
// slices too, so each waits for every block's consumers).
template <int CL> __device__ __forceinline__ void wg_release(uint32_t bar)
{
    if ((threadIdx.x & 31) != 0) return;
    wg_mbar_arrive(bar);
    if (CL > 1) {
        const uint32_t self = wg_cluster_rank();
#pragma unroll
        for (int r = 0; r < CL; ++r)
            if ((uint32_t)r != self) wg_mbar_arrive_cluster(bar, (uint32_t)r);
    }
}

// d += this consumer's 64 rows of A times the tile's B over ktiles slices of
// the ring, taken from slice number it0 of the block's whole run on (slice
// i lies in stage i % STAGES, in its (i / STAGES)-th round).  Each slice is
// handed back once the multiplies that read it are done.  a_base is this
// consumer's rows in stage 0, b_base the B of stage 0.
//
// The loop issues little besides its four multiplies: the descriptors are
// built once, and a stage or a 16-deep step of K only moves their start
// address (the low 14 bits, in 16-byte units, of the low word), so each is
// an addition to that word; the barriers' addresses and the ring's stage and
// parity are kept, not recomputed from the slice number.
template <int STAGES, int A_BYTES, int B_BYTES, int CL, int ACC>
__device__ __forceinline__ void wg_consume(float (&d)[ACC], uint32_t a_base, uint32_t b_base,
                                           uint64_t *full, uint64_t *empty, int ktiles, uint32_t it0)
{
    // A: 16 k-columns are 32 bytes along a swizzled row; groups of 8 rows
    // lie 1024 bytes apart.  B: 16 k-rows are 2048 bytes down a box; 8-row
    // groups 1024 bytes apart (stride), 64-column boxes 8 KB apart (leading).
    const uint64_t da0 = wg_desc(a_base, 16, 1024), db0 = wg_desc(b_base, WG_BK * 128, 1024);
    const uint32_t a_lo = (uint32_t)da0, a_hi = (uint32_t)(da0 >> 32);
    const uint32_t b_lo = (uint32_t)db0, b_hi = (uint32_t)(db0 >> 32);
    const uint32_t full0 = wg_smem_addr(full), empty0 = wg_smem_addr(empty);
    uint32_t s = it0 % STAGES, parity = (it0 / STAGES) & 1u, prev = 0;
    for (int t = 0; t < ktiles; ++t) {
        wg_mbar_wait(full0 + 8u * s, parity);
        const uint32_t a = a_lo + s * (A_BYTES / 16), b = b_lo + s * (B_BYTES / 16);
        wg_fence();
#pragma unroll
        for (int kk = 0; kk < WG_BK / 16; ++kk)
            wg_mma(d, ((uint64_t)a_hi << 32) | (a + 2u * kk), ((uint64_t)b_hi << 32) | (b + 128u * kk));
        wg_commit();
        // The multiplies of the slice before are done: hand its stage back.
        wg_wait<1>();
        if (t > 0) wg_release<CL>(empty0 + 8u * prev);
        prev = s;
        if (++s == STAGES) {
            s = 0;
            parity ^= 1u;
        }
    }
    wg_wait<0>();
    if (ktiles > 0) wg_release<CL>(empty0 + 8u * prev);
}

// ---- epilogue ---------------------------------------------------------------------------------
// A consumer warpgroup's 64 x (ACC * 2) accumulators to C, rows from row0 and
// columns from col0, nothing outside M x N.  Thread (warp w, lane l) holds,
// for each 8-column group j, rows 16w + l/4 and +8, columns 8j + 2(l%4) and
// +1: pairs of floats, stored as one 8-byte word when C allows it (N is even
// on the TMA path).
template <int ACC>
__device__ __forceinline__ void wg_store_tile(const float (&d)[ACC], float *C, int M, int N,
                                              int row0, int col0)
{
    const int lane = threadIdx.x & 31, warp = (threadIdx.x / 32) & 3;
    const int r0 = row0 + warp * 16 + lane / 4;
    const int c0 = col0 + 2 * (lane % 4);
    const bool pairs = ((size_t)C & 7u) == 0;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        const int r = r0 + 8 * h;
        if (r >= M) continue;
        float *row = C + (size_t)r * N;
#pragma unroll
        for (int j = 0; j < ACC / 4; ++j) {
            const int col = c0 + 8 * j;
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

// ---- epilogue through the copy engine -------------------------------------------------------
// The output leaves in sub-tiles of 64 rows x 32 FP32 columns (8 KB, one
// 128-byte swizzled row each), through two 8 KB buffers a consumer: its
// threads write a sub-tile into one buffer while the copy engine reads the
// other out to C (cp.async.bulk.tensor, a "bulk group" a sub-tile).  The
// consumer goes on to its next tile as soon as the last sub-tile is handed
// over: the writes to C overlap the next tile's multiplies.  The copy engine
// writes only inside C.

__device__ __forceinline__ void wg_bar_sync(int id, int threads)
{
    asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

// The sub-tile in shared memory at src to C at (col c0, row c1).
__device__ __forceinline__ void wg_tma_store_2d(const CUtensorMap *map, int c0, int c1, uint32_t src)
{
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];\n"
                 ::"l"((unsigned long long)map), "r"(c0), "r"(c1), "r"(src)
                 : "memory");
    asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
}

// Waits (in the thread that issued them) until at most N bulk groups still
// read shared memory.
template <int N> __device__ __forceinline__ void wg_tma_store_wait_read()
{
    asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(N) : "memory");
}

// Waits (in the thread that issued them) until every bulk group is done
// reading shared memory: before the block leaves.
__device__ __forceinline__ void wg_tma_store_drain()
{
    asm volatile("cp.async.bulk.wait_group.read 0;\n" ::: "memory");
}

// A consumer warpgroup's 64 x (ACC * 2) accumulators to C at (row0, col0)
// through its buffers at buf.  Its 128 threads sync on named barrier bar_id;
// thread 0 of the warpgroup issues the copies.
template <int ACC>
__device__ __forceinline__ void wg_store_tile_tma(const float (&d)[ACC], const CUtensorMap *mapC,
                                                  uint32_t buf, int row0, int col0, int bar_id)
{
    const int lane = threadIdx.x & 31, warp = (threadIdx.x / 32) & 3;
    const bool issuer = (threadIdx.x & 127) == 0;
    const int r0 = warp * 16 + lane / 4;
#pragma unroll
    for (int q = 0; q < ACC / 16; ++q) {
        const uint32_t sub = buf + (q & 1) * WG_SUB_BYTES;
        // The copy that read this buffer two sub-tiles ago is done reading.
        if (issuer) wg_tma_store_wait_read<1>();
        wg_bar_sync(bar_id, 128);
#pragma unroll
        for (int jj = 0; jj < 4; ++jj) {
            const int j = 4 * q + jj;
            const int c = 8 * jj + 2 * (lane % 4);   // column in the sub-tile
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int r = r0 + 8 * h;
                const uint32_t at = sub + r * 128 + ((((uint32_t)c / 4) ^ (r & 7)) * 16) + (c % 4) * 4;
                asm volatile("st.shared.v2.f32 [%0], {%1, %2};\n" ::"r"(at), "f"(d[4 * j + 2 * h]),
                             "f"(d[4 * j + 2 * h + 1])
                             : "memory");
            }
        }
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
        wg_bar_sync(bar_id, 128);
        if (issuer) wg_tma_store_2d(mapC, col0 + q * WG_SUB_COLS, row0, sub);
    }
}
#endif  // K_WG_BODY

#endif
