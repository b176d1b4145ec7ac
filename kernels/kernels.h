/* kernels.h - the shipped CUDA kernels, seen from C.
 *
 * Each lab topic has one .cu file (reduce.cu, matmul.cu, embedding.cu, ...),
 * or a few split by family (reduce_vectorized.cu, matmul_warptile.cu and its
 * kernels' files, matmul_wmma.cu, ...; README.md lists them), whose
 * kernels are numbered in teaching order, naive first.  C code reaches
 * them in two ways:
 *
 *  1. Launchers: a host function per rung that picks grid/block/shared
 *     memory, enqueues every pass on the given stream and returns the first
 *     error (cudaGetLastError after each launch).  The engine times these.
 *     The vendor-library baselines (CUB, cuBLAS) are launchers too.
 *
 *  2. Raw kernels: the __global__ functions themselves with a signature
 *     string, so the Lua GPU API can launch them with a learner-chosen grid,
 *     block and shared memory (cudaLaunchKernel).
 *
 * Nothing here initialises CUDA until a launcher is called; reading the
 * tables is safe in the parent process. */
#ifndef CUDALAB_KERNELS_H
#define CUDALAB_KERNELS_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* sum of in[0..n) into *out (one float in device memory).  scratch is at
 * least kernels_reduce_scratch_bytes(n) bytes of device memory the launcher
 * may use for partial sums or CUB's temporary storage; its contents need no
 * clearing.  kernels_reduce_scratch_bytes asks CUB for its size, which starts
 * the CUDA runtime: call it in the worker. */
typedef cudaError_t (*reduce_launch_fn)(const float *in, size_t n, float *out,
                                        void *scratch, size_t scratch_bytes,
                                        cudaStream_t s);
/* C = A x B, row-major, A is M x K, B is K x N, C is M x N, FP32. */
typedef cudaError_t (*sgemm_launch_fn)(int M, int N, int K, const float *A,
                                       const float *B, float *C, cudaStream_t s);
/* out[t, :] = W[idx[t], :] for t < T; W is V x D; indices already validated. */
typedef cudaError_t (*embed_launch_fn)(const float *W, const int32_t *idx, float *out,
                                       int T, int D, int V, cudaStream_t s);
/* z[i] = a * x[i] + y[i] for i < n (problems saxpy and managed).  scratch is
 * scratch_bytes of device memory the launcher may use (the managed
 * problem's explicit copies need 2 n floats). */
typedef cudaError_t (*saxpy_launch_fn)(size_t n, float a, const float *x, const float *y,
                                       float *z, void *scratch, size_t scratch_bytes,
                                       cudaStream_t s);
/* bins[b] = how many of data[0..n) equal b, for 256 bins of uint32 in device
 * memory, which the launcher zeroes first (problem histogram). */
typedef cudaError_t (*hist_launch_fn)(const unsigned char *data, size_t n, unsigned int *bins,
                                      cudaStream_t s);
/* The sgemm problem with BF16 operands: A and B hold bfloat16 values (their
 * 16-bit patterns, row-major, shapes as sgemm), C is FP32. */
typedef cudaError_t (*gemm_bf16_launch_fn)(int M, int N, int K, const uint16_t *A,
                                           const uint16_t *B, float *C, cudaStream_t s);

typedef struct shipped_kernel {
    const char *name;        /* "reduce_sequential", "sgemm_naive", "cub_sum", ... */
    const char *problem;     /* "reduce_sum", "sgemm", "embedding" */
    int library;             /* 1 for a vendor-library baseline */
    reduce_launch_fn reduce; /* exactly one of the launchers is set */
    sgemm_launch_fn sgemm;
    embed_launch_fn embed;
    gemm_bf16_launch_fn gemm_bf16;  /* sgemm rows that read BF16 copies of A and B */
    /* The arithmetic of the multiply when it is not the problem's own FP32:
     * "tf32" or "bf16" (tensor cores, FP32 accumulation); NULL otherwise. */
    const char *precision;
    /* Lowest compute capability it runs on, as major * 10 + minor (80 for
     * Ampere); 0 for every GPU the build targets.  Below it the launcher
     * returns cudaErrorNotSupported without launching anything. */
    int min_cc;
    saxpy_launch_fn saxpy;   /* the basics lab's (kernels/basics.cu) */
    hist_launch_fn hist;
    /* Highest compute capability it runs on, same encoding; 0 for no limit.
     * Code built for an architecture-specific target (sm_90a: wgmma, TMA)
     * runs on that architecture only, so such a rung has min_cc == max_cc.
     * Above it the launcher returns cudaErrorNotSupported too. */
    int max_cc;
    /* What the range stands for, for the "unavailable on this GPU" message
     * ("a Hopper GPU (sm_90a: wgmma and TMA)"); NULL: the tensor cores of
     * the rung's precision. */
    const char *cc_needs;
} shipped_kernel;

/* Whether k runs on a GPU of compute capability cc (major * 10 + minor). */
static inline int kernels_runs_on(const shipped_kernel *k, int cc)
{
    return (k->min_cc <= 0 || cc >= k->min_cc) && (k->max_cc <= 0 || cc <= k->max_cc);
}

/* All launchers, in teaching order per problem. */
const shipped_kernel *kernels_shipped(size_t *count);
const shipped_kernel *kernels_find(const char *name);
size_t kernels_reduce_scratch_bytes(size_t n);
/* out[i] = in[0] + ... + in[i] for i < n with CUB's DeviceScan::InclusiveSum
 * (the builtin "scan"'s library row); scratch holds at least
 * kernels_scan_scratch_bytes(n) bytes of device memory (0 when CUB cannot
 * say: no device). */
cudaError_t kernels_cub_scan(const float *in, float *out, size_t n, void *scratch,
                             size_t scratch_bytes, cudaStream_t stream);
size_t kernels_scan_scratch_bytes(size_t n);
/* out[i] = in[i] rounded to bfloat16 (to nearest, ties to even), for i < n,
 * on stream s: how the engine makes the BF16 copies of the sgemm inputs. */
cudaError_t kernels_f32_to_bf16(const float *in, uint16_t *out, size_t n, cudaStream_t stream);
/* out[i] = v for i < n, on stream s: how the engine poisons an output. */
cudaError_t kernels_fill_u32(uint32_t *out, uint32_t v, size_t n, cudaStream_t stream);
/* The canary repetition's helpers (canary.cu), on stream: exchanges the
 * first bytes of a and b in place (both 4-byte aligned); and counts the
 * bytes in which a and b differ into *count, a device counter it zeroes
 * first. */
cudaError_t kernels_swap_bytes(void *a, void *b, size_t bytes, cudaStream_t stream);
cudaError_t kernels_count_diff(const void *a, const void *b, size_t bytes,
                               unsigned long long *count, cudaStream_t stream);
/* Exchanges v[i] and v[i ^ mask] for every i < n whose partner is below n
 * too (elements of elem_bytes: 1, 2, 4 or 8), on stream: the same values
 * in another order, different at most places for every mask in [1, n). */
cudaError_t kernels_xor_pairs(void *v, size_t n, int elem_bytes, uint64_t mask,
                              cudaStream_t stream);
/* Message of the last library (cuBLAS) failure, for the error report. */
const char *kernels_library_error(void);
/* Frees library handles (cuBLAS) before the worker exits. */
void kernels_shutdown(void);

/* Raw kernels for the Lua GPU API.  sig has one letter per parameter:
 * 'p' device pointer, 'i' int32, 'u' uint32, 'l' int64, 'f' float, 'd' double. */
typedef struct raw_kernel {
    const char *name;
    const void *func;        /* pointer to the __global__ function (host stub) */
    const char *sig;
    const char *doc;         /* one line: parameters and the launch shape it expects */
} raw_kernel;

const raw_kernel *kernels_raw(size_t *count);
const raw_kernel *kernels_raw_find(const char *name);

#ifdef __cplusplus
}
#endif

#endif
