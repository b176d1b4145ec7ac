// matmul.cuh - what the matmul files share (not part of the C contract).
//
// The matmul rungs live in these files, by family:
//   matmul.cu           rungs 1-6 on the CUDA cores, the rung and raw tables
//   matmul_warptile.cu  rung 7, warp tiles with cp.async pipelines (FP32), and
//                       its tuning variants; its three kernels in
//                       matmul_wt_twostage.cu, matmul_wt_pipe.cu and
//                       matmul_wt_lean.cu (matmul_wt.cuh: what they share)
//   matmul_wmma.cu      the tensor-core rungs (WMMA in TF32 and BF16, then
//                       cp.async multi-stage), FP32 to BF16 conversion
//   matmul_wgmma.cu     the Hopper rung: wgmma fed by TMA (sm_90a only; its
//                       own CMake target, a stub when the build has no 90)
//   matmul_wgmma_persist.cu  rungs 12 to 14: rung 11 persistent, then in
//                       clusters of two sharing B by TMA multicast, then
//                       with its output written by the copy engine (the
//                       same target; hopper.cuh and hopper_tma.cu: what the
//                       Hopper rungs share)
//   matmul_blas.cu      cuBLAS in FP32, TF32 and BF16 (loaded at first use)
#ifndef CUDALAB_MATMUL_CUH
#define CUDALAB_MATMUL_CUH

#include <string.h>

#include "kcommon.cuh"
#include "ktune.h"

static inline bool k_mm_sizes_ok(int M, int N, int K, const void *A, const void *B, const void *C)
{
    return M >= 1 && N >= 1 && K >= 1 && A && B && C;
}

// The 16-byte path of the FP32 rungs: rows of A and B start on 16-byte
// boundaries and whole float4s never straddle a row's end.
static inline bool k_mm_vec_ok(int N, int K, const void *A, const void *B, const void *C)
{
    return K % 4 == 0 && N % 4 == 0 && k_aligned16(A) && k_aligned16(B) && k_aligned16(C);
}

// Grid of ceil(N/BN) x ceil(M/BM) blocks; false when it exceeds the y limit.
static inline bool k_mm_grid(int M, int N, int BM, int BN, dim3 *g)
{
    *g = dim3((unsigned)k_ceil_div((size_t)N, (size_t)BN), (unsigned)k_ceil_div((size_t)M, (size_t)BM));
    return g->y <= 65535u;
}

// Whether 128x128 tiles of an M x N output would leave multiprocessors
// without a block: the rungs then take smaller tiles.
static inline cudaError_t k_mm_small_grid(int M, int N, bool *small)
{
    int sms = 0;
    KCHECK(k_sm_count(&sms));
    *small = k_ceil_div((size_t)M, 128) * k_ceil_div((size_t)N, 128) < (size_t)sms;
    return cudaSuccess;
}

// ---- 16-byte loads and stores with edges --------------------------------------------
// MODE 1: 16-byte loads, rows and columns checked (cols a multiple of 4).
// MODE 2: element loads, every element checked.  Out-of-range elements read
// as zero; stores skip them.
template <int MODE>
__device__ __forceinline__ float4 load4(const float *base, int ld, int r, int c, int rows, int cols)
{
    const float *p = base + (size_t)r * ld + c;
    if (MODE == 1) {
        if (r < rows && c < cols) return __ldg(reinterpret_cast<const float4 *>(p));
        return make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    }
    float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (r < rows) {
        if (c < cols) v.x = __ldg(p);
        if (c + 1 < cols) v.y = __ldg(p + 1);
        if (c + 2 < cols) v.z = __ldg(p + 2);
        if (c + 3 < cols) v.w = __ldg(p + 3);
    }
    return v;
}

template <int MODE>
__device__ __forceinline__ void store4(float *C, int ld, int r, int c, int rows, int cols, float4 v)
{
    float *p = C + (size_t)r * ld + c;
    if (MODE == 1) {
        if (r < rows && c < cols) *reinterpret_cast<float4 *>(p) = v;
    } else if (r < rows) {
        if (c < cols) p[0] = v.x;
        if (c + 1 < cols) p[1] = v.y;
        if (c + 2 < cols) p[2] = v.z;
        if (c + 3 < cols) p[3] = v.w;
    }
}

// ---- asynchronous copies (cp.async, sm_80 on) -----------------------------------------
// 16 bytes global -> shared; zero-fills when !valid (gmem must still be a
// valid address).  Before sm_80 the copy is an ordinary load and store,
// which the barrier after the wait orders just the same.
__device__ __forceinline__ void cp_async16(void *smem, const void *gmem, bool valid)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const unsigned dst = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(gmem),
                 "r"(valid ? 16 : 0));
#else
    *reinterpret_cast<float4 *>(smem) =
        valid ? *reinterpret_cast<const float4 *>(gmem) : make_float4(0.f, 0.f, 0.f, 0.f);
#endif
}

__device__ __forceinline__ void cp_async_commit()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::);
#endif
}

// Waits until at most PENDING of this thread's committed groups are in flight.
template <int PENDING> __device__ __forceinline__ void cp_async_wait()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;\n" ::"n"(PENDING) : "memory");
#endif
}

__device__ __forceinline__ void cp_async_wait_all() { cp_async_wait<0>(); }

// Requests the ROWS x COLS tile at (row0, col0) of a row-major matrix
// (base: its element (0, 0), ld elements a row, rows x cols) into shared
// memory at dst (LD elements a row) with 16-byte cp.async copies, THREADS
// threads sharing them; what lies past the matrix arrives as zeros (no
// bytes read from fallback, any valid address).  COLS and the row strides
// are whole 16-byte copies.
template <int ROWS, int COLS, int LD, int THREADS, typename T>
__device__ __forceinline__ void cp_async_tile(T *dst, const T *base, int ld, int row0, int col0,
                                              int rows, int cols, const T *fallback, int tid)
{
    constexpr int V = 16 / (int)sizeof(T);
    constexpr int CHUNKS = ROWS * COLS / V / THREADS;
    static_assert(COLS % V == 0 && CHUNKS >= 1 && CHUNKS * THREADS * V == ROWS * COLS,
                  "a tile must split into 16-byte copies, the same number a thread");
#pragma unroll
    for (int r = 0; r < CHUNKS; ++r) {
        const int f = tid + r * THREADS;
        const int row = f / (COLS / V), c = (f % (COLS / V)) * V;
        const bool ok = row0 + row < rows && col0 + c < cols;
        cp_async16(dst + row * LD + c,
                   ok ? base + (size_t)(row0 + row) * ld + col0 + c : fallback, ok);
    }
}

// ---- launchers across the files (the tables in matmul.cu name them) -----------------------
cudaError_t launch_sgemm_warptile(int M, int N, int K, const float *A, const float *B, float *C,
                                  cudaStream_t stream);
cudaError_t launch_wmma_tf32(int M, int N, int K, const float *A, const float *B, float *C,
                             cudaStream_t stream);
cudaError_t launch_wmma_bf16(int M, int N, int K, const uint16_t *A, const uint16_t *B, float *C,
                             cudaStream_t stream);
cudaError_t launch_wmma_async(int M, int N, int K, const uint16_t *A, const uint16_t *B, float *C,
                              cudaStream_t stream);
cudaError_t launch_wgmma(int M, int N, int K, const uint16_t *A, const uint16_t *B, float *C,
                         cudaStream_t stream);
cudaError_t launch_wgmma_persist(int M, int N, int K, const uint16_t *A, const uint16_t *B,
                                 float *C, cudaStream_t stream);
cudaError_t launch_wgmma_cluster(int M, int N, int K, const uint16_t *A, const uint16_t *B,
                                 float *C, cudaStream_t stream);
cudaError_t launch_wgmma_tmastore(int M, int N, int K, const uint16_t *A, const uint16_t *B,
                                  float *C, cudaStream_t stream);
cudaError_t launch_cublas_sgemm(int M, int N, int K, const float *A, const float *B, float *C,
                                cudaStream_t stream);
cudaError_t launch_cublas_tf32(int M, int N, int K, const float *A, const float *B, float *C,
                               cudaStream_t stream);
cudaError_t launch_cublas_bf16(int M, int N, int K, const uint16_t *A, const uint16_t *B, float *C,
                               cudaStream_t stream);

// Raw kernels of rung 7 (its element-load form, any sizes) for the raw table.
const void *k_warptile_raw_kernel(void);

// A tuning variant: its table entry and what its kernel takes.
struct k_tune_variant {
    shipped_kernel k;
    bool (*resources)(kernel_resources *out);
};

// The table entries of a family's n variants v, copied into out (room for
// n) on the first call (*made false until then).
static inline const shipped_kernel *k_tune_entries(const k_tune_variant *v, size_t n,
                                                   shipped_kernel *out, bool *made)
{
    if (!*made) {
        for (size_t i = 0; i < n; ++i) out[i] = v[i].k;
        *made = true;
    }
    return out;
}

// The resources of v's variant named name; false when none is.
static inline bool k_tune_variant_resources(const k_tune_variant *v, size_t n, const char *name,
                                            kernel_resources *out)
{
    for (size_t i = 0; i < n; ++i)
        if (strcmp(name, v[i].k.name) == 0) return v[i].resources(out);
    return false;
}

// Tuning variants of each family, merged by matmul_tune_table.
const shipped_kernel *k_warptile_tune(size_t *count);
const shipped_kernel *k_wmma_tune(size_t *count);
const shipped_kernel *k_wgmma_persist_tune(size_t *count);

// Fills out for kernel f launched with threads a block and smem bytes of
// dynamic shared memory.
static inline cudaError_t k_kernel_resources(const void *f, int threads, size_t smem,
                                             kernel_resources *out)
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
// Resources of the kernel a matmul launcher runs at 16-byte-aligned sizes
// (what kernels_tune_resources reports); false when name is not one of them.
bool k_warptile_resources(const char *name, int M, int N, kernel_resources *out);
bool k_wmma_resources(const char *name, int M, int N, kernel_resources *out);
bool k_wgmma_resources(const char *name, int M, int N, kernel_resources *out);
bool k_wgmma_persist_resources(const char *name, int M, int N, kernel_resources *out);
// The tuning variant a shipped launcher of the file runs at M x N, or NULL.
const char *k_warptile_shipped_as(const char *rung, int M, int N);
const char *k_wmma_shipped_as(const char *rung, int M, int N);

#endif
