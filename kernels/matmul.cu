// matmul.cu - C = A x B (row-major; A is M x K, B is K x N) on the CUDA
// cores, in teaching order: one thread per output, coalescing, shared-memory
// tiles, more outputs per thread (1-D, then 2-D), 16-byte loads.  Rung 7
// (warp tiles) is in matmul_warptile.cu and its kernels' files
// (matmul_wt.cuh), the tensor-core rungs in matmul_wmma.cu and (Hopper
// only) matmul_wgmma.cu, cuBLAS in matmul_blas.cu; the tables of every
// matmul launcher are at the end of this file.
//
// Every rung takes any M, N, K >= 1.  Rung 6 uses 16-byte global loads when
// K and N are multiples of 4 and the matrices are 16-byte aligned, and
// element loads otherwise.
#include "matmul.cuh"

// ---- 1. naive: one thread per output, threadIdx.x walks down a column ------------
// Neighbouring threads read rows of A that lie K floats apart and write C with
// a stride of N: no access is coalesced.  block (32, 32), grid (ceil(M/32), ceil(N/32)).
__global__ void sgemm_naive_kernel(int M, int N, int K, const float *A, const float *B, float *C)
{
    const int row = blockIdx.x * blockDim.x + threadIdx.x;
    const int col = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[(size_t)row * K + k] * B[(size_t)k * N + col];
    C[(size_t)row * N + col] = acc;
}

// ---- 2. coalesced: threadIdx.x walks along a row ----------------------------------
// A warp reads one element of A (a broadcast) and 32 neighbouring elements of
// B, and writes 32 neighbouring outputs.  block (32, 32), grid (ceil(N/32), ceil(M/32)).
__global__ void sgemm_coalesced_kernel(int M, int N, int K, const float *A, const float *B, float *C)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[(size_t)row * K + k] * B[(size_t)k * N + col];
    C[(size_t)row * N + col] = acc;
}

// ---- 3. shared-memory tiles ----------------------------------------------------------
// The block stages a 32x32 tile of A and of B in shared memory, then every
// thread reads its row and column from there: each global element is read
// once per block instead of 32 times.  block (32, 32), grid (ceil(N/32), ceil(M/32)).
#define SMEM_TILE 32
__global__ void sgemm_smem_tiled_kernel(int M, int N, int K, const float *A, const float *B, float *C)
{
    __shared__ float As[SMEM_TILE][SMEM_TILE];
    __shared__ float Bs[SMEM_TILE][SMEM_TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * SMEM_TILE + ty;
    const int col = blockIdx.x * SMEM_TILE + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += SMEM_TILE) {
        As[ty][tx] = row < M && k0 + tx < K ? A[(size_t)row * K + k0 + tx] : 0.0f;
        Bs[ty][tx] = k0 + ty < K && col < N ? B[(size_t)(k0 + ty) * N + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < SMEM_TILE; ++k) acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    if (row < M && col < N) C[(size_t)row * N + col] = acc;
}

// ---- 4. 1-D block tiling: 8 outputs of one column per thread ------------------------
// A 64x64 output tile, K in steps of 8; each thread keeps one B value in a
// register and reuses it for 8 rows.  block 512, grid (ceil(N/64), ceil(M/64)).
#define BT1_BM 64
#define BT1_BN 64
#define BT1_BK 8
#define BT1_TM 8
__global__ void __launch_bounds__(512)
sgemm_blocktile_1d_kernel(int M, int N, int K, const float *A, const float *B, float *C)
{
    __shared__ float As[BT1_BM * BT1_BK];
    __shared__ float Bs[BT1_BK * BT1_BN];
    const int tid = threadIdx.x;
    const int bm0 = blockIdx.y * BT1_BM, bn0 = blockIdx.x * BT1_BN;
    const int tcol = tid % BT1_BN, trow = tid / BT1_BN;
    const int a_row = tid / BT1_BK, a_col = tid % BT1_BK;
    const int b_row = tid / BT1_BN, b_col = tid % BT1_BN;
    float acc[BT1_TM] = {};
    for (int k0 = 0; k0 < K; k0 += BT1_BK) {
        const int ar = bm0 + a_row, ak = k0 + a_col;
        As[a_row * BT1_BK + a_col] = ar < M && ak < K ? A[(size_t)ar * K + ak] : 0.0f;
        const int bk = k0 + b_row, bc = bn0 + b_col;
        Bs[b_row * BT1_BN + b_col] = bk < K && bc < N ? B[(size_t)bk * N + bc] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BT1_BK; ++k) {
            const float b = Bs[k * BT1_BN + tcol];
#pragma unroll
            for (int r = 0; r < BT1_TM; ++r) acc[r] += As[(trow * BT1_TM + r) * BT1_BK + k] * b;
        }
        __syncthreads();
    }
    const int col = bn0 + tcol;
#pragma unroll
    for (int r = 0; r < BT1_TM; ++r) {
        const int row = bm0 + trow * BT1_TM + r;
        if (row < M && col < N) C[(size_t)row * N + col] = acc[r];
    }
}


// ---- 5. 2-D block tiling: a TM x TN patch of outputs per thread -----------------------
// Per k step a thread loads TM values of A and TN of B into registers and
// does TM x TN multiply-adds with them (an outer product).  The shipped
// shape: a 128x128 tile, 8x8 patches, 256 threads.  Left alone the compiler
// gives this kernel 160 registers, so one block of 256 threads fits on a
// multiprocessor; __launch_bounds__(256, 2) asks for two, which caps it at
// 128 registers (no spills, see bench/KERNELS.md).  When 128x128 tiles
// would leave multiprocessors idle (1024 x 1024 makes 64 tiles), the
// launcher takes 64x64 tiles of 4x4 patches: four times the blocks.
// block 256, grid (ceil(N/BM), ceil(M/BM)).
#define BT_BK 8
template <int BM, int BN, int TM, int TN>
struct bt2d_shape {
    static constexpr int THREADS = (BM / TM) * (BN / TN);
    static_assert(THREADS == 256, "2-D block tiles use 256 threads");
};

template <int BM, int BN, int TM, int TN>
__global__ void __launch_bounds__(256, 2)
sgemm_blocktile_2d_kernel(int M, int N, int K, const float *A, const float *B, float *C)
{
    __shared__ float As[BM * BT_BK];
    __shared__ float Bs[BT_BK * BN];
    const int tid = threadIdx.x;
    const int bm0 = blockIdx.y * BM, bn0 = blockIdx.x * BN;
    const int tcol = tid % (BN / TN), trow = tid / (BN / TN);
    float acc[TM][TN] = {};
    float rm[TM], rn[TN];
    for (int k0 = 0; k0 < K; k0 += BT_BK) {
#pragma unroll
        for (int e = tid; e < BM * BT_BK; e += 256) {
            const int r = e / BT_BK, c = e % BT_BK;
            const int gr = bm0 + r, gk = k0 + c;
            As[e] = gr < M && gk < K ? A[(size_t)gr * K + gk] : 0.0f;
        }
#pragma unroll
        for (int e = tid; e < BT_BK * BN; e += 256) {
            const int r = e / BN, c = e % BN;
            const int gk = k0 + r, gc = bn0 + c;
            Bs[e] = gk < K && gc < N ? B[(size_t)gk * N + gc] : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BT_BK; ++k) {
#pragma unroll
            for (int i = 0; i < TM; ++i) rm[i] = As[(trow * TM + i) * BT_BK + k];
#pragma unroll
            for (int j = 0; j < TN; ++j) rn[j] = Bs[k * BN + tcol * TN + j];
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] += rm[i] * rn[j];
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int row = bm0 + trow * TM + i;
        if (row >= M) break;
#pragma unroll
        for (int j = 0; j < TN; ++j) {
            const int col = bn0 + tcol * TN + j;
            if (col < N) C[(size_t)row * N + col] = acc[i][j];
        }
    }
}

// ---- 6. 16-byte loads, A stored transposed ------------------------------------------------
// As rung 5, but each thread fetches its share of the tiles with 16-byte
// loads, stores the A tile transposed (k-major), and reads its TM values of
// A and TN of B from shared memory as 16-byte words.  Same shapes as rung 5
// (the launcher picks them the same way).  block 256, grid (ceil(N/BN), ceil(M/BM)).
template <int BM, int BN, int TM, int TN, int MODE>
__global__ void __launch_bounds__(256, 2)
sgemm_vectorized_kernel(int M, int N, int K, const float *__restrict__ A,
                        const float *__restrict__ B, float *__restrict__ C)
{
    static_assert(TM % 4 == 0 && TN % 4 == 0, "patches are made of 16-byte words");
    constexpr int A_V4 = BM * BT_BK / 4, B_V4 = BT_BK * BN / 4;   // 16-byte words a slice
    __shared__ __align__(16) float As[BT_BK][BM];
    __shared__ __align__(16) float Bs[BT_BK][BN];
    const int tid = threadIdx.x;
    const int bm0 = blockIdx.y * BM, bn0 = blockIdx.x * BN;
    const int tcol = tid % (BN / TN), trow = tid / (BN / TN);
    const float *Ab = A + (size_t)bm0 * K;
    const float *Bb = B + bn0;
    float acc[TM][TN] = {};
    float rm[TM], rn[TN];
    for (int k0 = 0; k0 < K; k0 += BT_BK) {
#pragma unroll
        for (int r = 0; r < (A_V4 + 255) / 256; ++r) {
            const int f = tid + r * 256;
            if (A_V4 % 256 == 0 || f < A_V4) {
                const int a_row = f / (BT_BK / 4), a_k = (f % (BT_BK / 4)) * 4;
                const float4 a = load4<MODE>(Ab, K, a_row, k0 + a_k, M - bm0, K);
                As[a_k + 0][a_row] = a.x;
                As[a_k + 1][a_row] = a.y;
                As[a_k + 2][a_row] = a.z;
                As[a_k + 3][a_row] = a.w;
            }
        }
#pragma unroll
        for (int r = 0; r < (B_V4 + 255) / 256; ++r) {
            const int f = tid + r * 256;
            if (B_V4 % 256 == 0 || f < B_V4) {
                const int b_k = f / (BN / 4), b_col = (f % (BN / 4)) * 4;
                *reinterpret_cast<float4 *>(&Bs[b_k][b_col]) =
                    load4<MODE>(Bb, N, k0 + b_k, b_col, K, N - bn0);
            }
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BT_BK; ++k) {
#pragma unroll
            for (int i = 0; i < TM; i += 4) {
                const float4 m = *reinterpret_cast<const float4 *>(&As[k][trow * TM + i]);
                rm[i] = m.x; rm[i + 1] = m.y; rm[i + 2] = m.z; rm[i + 3] = m.w;
            }
#pragma unroll
            for (int j = 0; j < TN; j += 4) {
                const float4 n = *reinterpret_cast<const float4 *>(&Bs[k][tcol * TN + j]);
                rn[j] = n.x; rn[j + 1] = n.y; rn[j + 2] = n.z; rn[j + 3] = n.w;
            }
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(rm[i], rn[j], acc[i][j]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int r = trow * TM + i;
#pragma unroll
        for (int j = 0; j < TN; j += 4) {
            const float4 v = make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]);
            store4<MODE>(C + (size_t)bm0 * N + bn0, N, r, tcol * TN + j, M - bm0, N - bn0, v);
        }
    }
}

// ---- launchers -------------------------------------------------------------------------------
static cudaError_t grid32_launch(void (*k)(int, int, int, const float *, const float *, float *),
                                 bool rows_on_x, int M, int N, int K, const float *A,
                                 const float *B, float *C, cudaStream_t s)
{
    if (!k_mm_sizes_ok(M, N, K, A, B, C)) return cudaErrorInvalidValue;
    const unsigned gm = (unsigned)k_ceil_div((size_t)M, 32), gn = (unsigned)k_ceil_div((size_t)N, 32);
    const dim3 grid = rows_on_x ? dim3(gm, gn) : dim3(gn, gm);
    if (grid.y > 65535u) return cudaErrorInvalidValue;
    k<<<grid, dim3(32, 32), 0, s>>>(M, N, K, A, B, C);
    KCHECK_LAUNCH();
    return cudaSuccess;
}

static cudaError_t launch_sgemm_naive(int M, int N, int K, const float *A, const float *B, float *C,
                                      cudaStream_t s)
{
    return grid32_launch(sgemm_naive_kernel, true, M, N, K, A, B, C, s);
}

static cudaError_t launch_sgemm_coalesced(int M, int N, int K, const float *A, const float *B,
                                          float *C, cudaStream_t s)
{
    return grid32_launch(sgemm_coalesced_kernel, false, M, N, K, A, B, C, s);
}

static cudaError_t launch_sgemm_smem_tiled(int M, int N, int K, const float *A, const float *B,
                                           float *C, cudaStream_t s)
{
    return grid32_launch(sgemm_smem_tiled_kernel, false, M, N, K, A, B, C, s);
}

static cudaError_t launch_sgemm_blocktile_1d(int M, int N, int K, const float *A, const float *B,
                                             float *C, cudaStream_t s)
{
    if (!k_mm_sizes_ok(M, N, K, A, B, C)) return cudaErrorInvalidValue;
    dim3 grid;
    if (!k_mm_grid(M, N, BT1_BM, BT1_BN, &grid)) return cudaErrorInvalidValue;
    sgemm_blocktile_1d_kernel<<<grid, 512, 0, s>>>(M, N, K, A, B, C);
    KCHECK_LAUNCH();
    return cudaSuccess;
}

// Whether 128x128 tiles leave multiprocessors without a block: then rungs 5
#define BT2D_BIG 128, 128, 8, 8
#define BT2D_SMALL 64, 64, 4, 4

static cudaError_t launch_sgemm_blocktile_2d(int M, int N, int K, const float *A, const float *B,
                                             float *C, cudaStream_t s)
{
    if (!k_mm_sizes_ok(M, N, K, A, B, C)) return cudaErrorInvalidValue;
    bool small = false;
    KCHECK(k_mm_small_grid(M, N, &small));
    const int tile = small ? 64 : 128;
    dim3 grid;
    if (!k_mm_grid(M, N, tile, tile, &grid)) return cudaErrorInvalidValue;
    if (small)
        sgemm_blocktile_2d_kernel<BT2D_SMALL><<<grid, 256, 0, s>>>(M, N, K, A, B, C);
    else
        sgemm_blocktile_2d_kernel<BT2D_BIG><<<grid, 256, 0, s>>>(M, N, K, A, B, C);
    KCHECK_LAUNCH();
    return cudaSuccess;
}

template <int BM, int BN, int TM, int TN>
static cudaError_t vectorized_run(int M, int N, int K, const float *A, const float *B, float *C,
                                  cudaStream_t s)
{
    dim3 grid;
    if (!k_mm_grid(M, N, BM, BN, &grid)) return cudaErrorInvalidValue;
    if (k_mm_vec_ok(N, K, A, B, C))
        sgemm_vectorized_kernel<BM, BN, TM, TN, 1><<<grid, 256, 0, s>>>(M, N, K, A, B, C);
    else
        sgemm_vectorized_kernel<BM, BN, TM, TN, 2><<<grid, 256, 0, s>>>(M, N, K, A, B, C);
    KCHECK_LAUNCH();
    return cudaSuccess;
}

static cudaError_t launch_sgemm_vectorized(int M, int N, int K, const float *A, const float *B,
                                           float *C, cudaStream_t s)
{
    if (!k_mm_sizes_ok(M, N, K, A, B, C)) return cudaErrorInvalidValue;
    bool small = false;
    KCHECK(k_mm_small_grid(M, N, &small));
    return small ? vectorized_run<BT2D_SMALL>(M, N, K, A, B, C, s)
                 : vectorized_run<BT2D_BIG>(M, N, K, A, B, C, s);
}

// ---- tables --------------------------------------------------------------------------------------
// Teaching order; the cuBLAS rows are the library baselines, one a
// precision (the engine measures the one of a rung's precision beside it).
static const shipped_kernel matmul_rungs[] = {
    {.name = "sgemm_naive", .problem = "sgemm", .sgemm = launch_sgemm_naive},
    {.name = "sgemm_coalesced", .problem = "sgemm", .sgemm = launch_sgemm_coalesced},
    {.name = "sgemm_smem_tiled", .problem = "sgemm", .sgemm = launch_sgemm_smem_tiled},
    {.name = "sgemm_blocktile_1d", .problem = "sgemm", .sgemm = launch_sgemm_blocktile_1d},
    {.name = "sgemm_blocktile_2d", .problem = "sgemm", .sgemm = launch_sgemm_blocktile_2d},
    {.name = "sgemm_vectorized", .problem = "sgemm", .sgemm = launch_sgemm_vectorized},
    {.name = "sgemm_warptile", .problem = "sgemm", .sgemm = launch_sgemm_warptile},
    {.name = "gemm_wmma_tf32", .problem = "sgemm", .sgemm = launch_wmma_tf32, .precision = "tf32",
     .min_cc = 80},
    {.name = "gemm_wmma_bf16", .problem = "sgemm", .gemm_bf16 = launch_wmma_bf16,
     .precision = "bf16", .min_cc = 80},
    {.name = "gemm_wmma_async", .problem = "sgemm", .gemm_bf16 = launch_wmma_async,
     .precision = "bf16", .min_cc = 80},
    {.name = "gemm_wgmma", .problem = "sgemm", .gemm_bf16 = launch_wgmma, .precision = "bf16",
     .min_cc = 90, .max_cc = 90, .cc_needs = "a Hopper GPU (sm_90a: wgmma and TMA)"},
    {.name = "gemm_wgmma_persist", .problem = "sgemm", .gemm_bf16 = launch_wgmma_persist,
     .precision = "bf16", .min_cc = 90, .max_cc = 90,
     .cc_needs = "a Hopper GPU (sm_90a: wgmma and TMA)"},
    {.name = "gemm_wgmma_cluster", .problem = "sgemm", .gemm_bf16 = launch_wgmma_cluster,
     .precision = "bf16", .min_cc = 90, .max_cc = 90,
     .cc_needs = "a Hopper GPU (sm_90a: wgmma, TMA multicast and clusters)"},
    {.name = "gemm_wgmma_tmastore", .problem = "sgemm", .gemm_bf16 = launch_wgmma_tmastore,
     .precision = "bf16", .min_cc = 90, .max_cc = 90,
     .cc_needs = "a Hopper GPU (sm_90a: wgmma and TMA)"},
    {.name = "cublas_sgemm", .problem = "sgemm", .library = 1, .sgemm = launch_cublas_sgemm},
    {.name = "cublas_tf32", .problem = "sgemm", .library = 1, .sgemm = launch_cublas_tf32,
     .precision = "tf32", .min_cc = 80},
    {.name = "cublas_bf16", .problem = "sgemm", .library = 1, .gemm_bf16 = launch_cublas_bf16,
     .precision = "bf16", .min_cc = 80},
};

extern "C" const shipped_kernel *matmul_table(size_t *count)
{
    *count = sizeof matmul_rungs / sizeof matmul_rungs[0];
    return matmul_rungs;
}

static const raw_kernel matmul_raw[] = {
    {.name = "sgemm_naive", .func = (const void *)sgemm_naive_kernel, .sig = "iiippp",
     .doc = "(M, N, K, A, B, C): block (32,32), grid (ceil(M/32), ceil(N/32)); x indexes rows"},
    {.name = "sgemm_coalesced", .func = (const void *)sgemm_coalesced_kernel, .sig = "iiippp",
     .doc = "(M, N, K, A, B, C): block (32,32), grid (ceil(N/32), ceil(M/32)); x indexes columns"},
    {.name = "sgemm_smem_tiled", .func = (const void *)sgemm_smem_tiled_kernel, .sig = "iiippp",
     .doc = "(M, N, K, A, B, C): block (32,32), grid (ceil(N/32), ceil(M/32))"},
    {.name = "sgemm_blocktile_1d", .func = (const void *)sgemm_blocktile_1d_kernel, .sig = "iiippp",
     .doc = "(M, N, K, A, B, C): block 512, grid (ceil(N/64), ceil(M/64))"},
    {.name = "sgemm_blocktile_2d", .func = (const void *)sgemm_blocktile_2d_kernel<BT2D_BIG>,
     .sig = "iiippp", .doc = "(M, N, K, A, B, C): block 256, grid (ceil(N/128), ceil(M/128))"},
    {.name = "sgemm_vectorized", .func = (const void *)sgemm_vectorized_kernel<BT2D_BIG, 2>,
     .sig = "iiippp",
     .doc = "(M, N, K, A, B, C): block 256, grid (ceil(N/128), ceil(M/128)); element loads, any sizes"},
    // .func: rung 7's element-load kernel, set by matmul_raw_table.
    {.name = "sgemm_warptile", .sig = "iiippp",
     .doc = "(M, N, K, A, B, C): block 256, grid (ceil(N/128), ceil(M/128)); element loads, any sizes"},
};

extern "C" const raw_kernel *matmul_raw_table(size_t *count)
{
    static raw_kernel t[sizeof matmul_raw / sizeof matmul_raw[0]];
    static bool made = false;
    if (!made) {
        for (size_t i = 0; i < sizeof t / sizeof t[0]; ++i) t[i] = matmul_raw[i];
        t[sizeof t / sizeof t[0] - 1].func = k_warptile_raw_kernel();
        made = true;
    }
    *count = sizeof t / sizeof t[0];
    return t;
}

// ---- tuning variants and their resources ------------------------------------------------------------
extern "C" const shipped_kernel *matmul_tune_table(size_t *count)
{
    static shipped_kernel t[96];
    static size_t filled = 0;
    if (filled == 0) {
        size_t a = 0, b = 0, c = 0;
        const shipped_kernel *wt = k_warptile_tune(&a);
        const shipped_kernel *tc = k_wmma_tune(&b);
        const shipped_kernel *wp = k_wgmma_persist_tune(&c);
        for (size_t i = 0; i < a && filled < sizeof t / sizeof t[0]; ++i) t[filled++] = wt[i];
        for (size_t i = 0; i < b && filled < sizeof t / sizeof t[0]; ++i) t[filled++] = tc[i];
        for (size_t i = 0; i < c && filled < sizeof t / sizeof t[0]; ++i) t[filled++] = wp[i];
    }
    *count = filled;
    return t;
}

extern "C" bool kernels_tune_resources(const char *name, int M, int N, kernel_resources *out)
{
    if (!name || !out) return false;
    return k_warptile_resources(name, M, N, out) || k_wmma_resources(name, M, N, out) ||
           k_wgmma_resources(name, M, N, out) || k_wgmma_persist_resources(name, M, N, out);
}

extern "C" const char *kernels_tune_shipped_as(const char *rung, int M, int N)
{
    if (!rung) return NULL;
    const char *v = k_warptile_shipped_as(rung, M, N);
    return v ? v : k_wmma_shipped_as(rung, M, N);
}
