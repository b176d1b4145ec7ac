// matmul_wt.cuh - what the files of rung 7, warp tiles, share.
//
// The block tile sits in shared memory, each warp owns a part of it, each
// thread a few 4-wide pieces of that part in registers; the next K slices
// are copied (cp.async) while the warps multiply out of the current one.
// Three kernels, a file each, and the rung that chooses among them:
//
//   matmul_wt_lean.cu      sgemm_wtlean_kernel, the shipped one where the
//                          sizes are whole tiles (16-byte rows): two stages,
//                          A transposed in shared memory, fragments
//                          double-buffered in registers, and an inner loop
//                          with little besides the multiply-adds;
//   matmul_wt_twostage.cu  sgemm_warptile_kernel, the same two stages with
//                          bounds checks: its 16-byte form serves the other
//                          16-byte-aligned sizes, its element-load form every
//                          other size (and the raw table);
//   matmul_wt_pipe.cu      sgemm_wtpipe_kernel: a pipeline of STAGES slices
//                          in shared memory, A and B both copied with
//                          cp.async as they lie in memory, one barrier a
//                          slice; shipped on 64x64 tiles for grids that would
//                          leave multiprocessors idle;
//   matmul_warptile.cu     the rung: which kernel a size takes, the tuning
//                          variants of all three, their resources.
//
// All take any M, N, K >= 1 through their launchers; the tuning variants
// (ktune.h) are the same kernels in other shapes, named
// "sgemm_warptile[<how>,<block tile>,w<warp tile>,t<thread tile>,...]".
#ifndef CUDALAB_MATMUL_WT_CUH
#define CUDALAB_MATMUL_WT_CUH

#include "matmul.cuh"

// Two blocks a multiprocessor cap registers at 128 a thread; tuned on
// Hopper, where that fits.  Older GPUs' compilers spill under that cap, so
// there the cap is lifted.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#define WARPTILE_MINB(m) 1
#else
#define WARPTILE_MINB(m) (m)
#endif

// The block tile (BM x BN) split among warps (WM x WN each), a warp's
// threads a grid of TM x TN outputs each (matmul_wt_twostage.cu draws it);
// the two-stage and the lean kernels share it.
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

// ---- the shipped configurations ---------------------------------------------------------
// As the sweep on an H100 picked them (bench/KERNELS.md: how they are
// chosen).  BIG (0.995x of cuBLAS at 4096 against 0.87x for the two-stage
// kernel it replaced): the lean loop on 128x128 block tiles, K slices of 8,
// A by 16-byte cp.async through the staging tile, 8 warps of 32x64, 8x8
// outputs a thread, two slices a trip, two blocks a multiprocessor; sizes
// that are not whole tiles take WT_EDGE (the same tiles with bounds
// checks).  SMALL, when BIG's tiles would leave multiprocessors without a
// block (1024 x 1024 on a GPU of more than 64 multiprocessors; 1.01x of
// cuBLAS there against 0.77x for the pipelined kernel it replaced): the
// lean loop on 64x64 tiles, K slices of 16, 4 warps of 32x32, 4x8 outputs a
// thread; sizes that are not whole tiles of it take SMALL_EDGE, the
// pipelined kernel on 64x64 tiles.
#define WT_BIG 128, 128, 8, 32, 64, 8, 8, 2, 0, 1, true
#define WT_BIG_TILE 128, 128, 8
#define WT_SMALL 64, 64, 16, 32, 32, 4, 8, 2, 0, 1, false
#define WT_SMALL_TILE 64, 64, 16
#define WT_SMALL_EDGE 64, 64, 8, 32, 32, 4, 8, 3, 2
// EDGE: the two-stage cp.async kernel, the 16-byte path with edges.
#define WT_EDGE 128, 128, 8, 32, 64, 8, 8, 2, true
// RAW: element loads, any sizes: the two-stage kernel in this shape.  Every
// launcher of rung 7 takes it where the 16-byte path cannot go.
#define WT_RAW 128, 128, 8, 64, 32, 8, 8, 2, 2, false
// Their names among the tuning variants.
#define WT_BIG_NAME "sgemm_warptile[lean,a16,128x128x8,w32x64,t8x8,u2]"
#define WT_SMALL_NAME "sgemm_warptile[lean,a16,64x64x16,w32x32,t4x8]"
#define WT_SMALL_EDGE_NAME "sgemm_warptile[pipe,64x64x8,w32x32,t4x8,s3]"
#define WT_EDGE_NAME "sgemm_warptile[async,128x128x8,w32x64,t8x8]"

// Whether M x N x K is whole BM x BN x BK tiles (the lean kernel's sizes).
template <int BM, int BN, int BK> static bool wt_whole(int M, int N, int K)
{
    return M % BM == 0 && N % BN == 0 && K % BK == 0;
}

// ---- across the files -------------------------------------------------------------------
typedef cudaError_t (*wt_launch_fn)(int, int, int, const float *, const float *, float *,
                                    cudaStream_t);

// A tuning variant: its name, its launcher and the resources of its kernel.
struct wt_variant {
    const char *name;
    wt_launch_fn launch;
    bool (*resources)(kernel_resources *out);
};

// matmul_wt_twostage.cu: the element-load form (WT_RAW), the 16-byte form
// with edges (WT_EDGE) and its resources, the two-stage variants.
cudaError_t wt_raw_run(int M, int N, int K, const float *A, const float *B, float *C,
                       cudaStream_t stream);
cudaError_t wt_edge_run(int M, int N, int K, const float *A, const float *B, float *C,
                        cudaStream_t stream);
bool wt_edge_resources(kernel_resources *out);
const wt_variant *wt_twostage_variants(size_t *count);

// matmul_wt_pipe.cu: the pipelined kernel as WT_SMALL_EDGE, the pipelined variants.
cudaError_t wt_small_edge_run(int M, int N, int K, const float *A, const float *B, float *C,
                              cudaStream_t stream);
bool wt_small_edge_resources(kernel_resources *out);
const wt_variant *wt_pipe_variants(size_t *count);

// matmul_wt_lean.cu: the lean kernel as WT_BIG and WT_SMALL (other sizes
// handed on as above), the lean variants.
cudaError_t wt_big_run(int M, int N, int K, const float *A, const float *B, float *C,
                       cudaStream_t stream);
cudaError_t wt_small_run(int M, int N, int K, const float *A, const float *B, float *C,
                         cudaStream_t stream);
bool wt_big_resources(kernel_resources *out);
bool wt_small_resources(kernel_resources *out);
const wt_variant *wt_lean_variants(size_t *count);

#endif
