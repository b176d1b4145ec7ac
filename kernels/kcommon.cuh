// kcommon.cuh - helpers shared by the kernel files (not part of the C contract).
#ifndef CUDALAB_KCOMMON_CUH
#define CUDALAB_KCOMMON_CUH

#include <cuda_runtime.h>
#include <stddef.h>

#include "kernels.h"

// Returns the launch error of the kernel just enqueued, if any.
#define KCHECK_LAUNCH()                                  \
    do {                                                 \
        cudaError_t kcheck_err_ = cudaGetLastError();    \
        if (kcheck_err_ != cudaSuccess) return kcheck_err_; \
    } while (0)

// Returns the error of a runtime call, if any.
#define KCHECK(call)                                     \
    do {                                                 \
        cudaError_t kcheck_err_ = (call);                \
        if (kcheck_err_ != cudaSuccess) return kcheck_err_; \
    } while (0)

// Number of multiprocessors of the current device.
static inline cudaError_t k_sm_count(int *out)
{
    int dev = 0;
    KCHECK(cudaGetDevice(&dev));
    KCHECK(cudaDeviceGetAttribute(out, cudaDevAttrMultiProcessorCount, dev));
    return cudaSuccess;
}

// Compute capability of the current device as major * 10 + minor.
static inline cudaError_t k_device_cc(int *cc)
{
    int dev = 0, major = 0, minor = 0;
    KCHECK(cudaGetDevice(&dev));
    KCHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
    KCHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
    *cc = major * 10 + minor;
    return cudaSuccess;
}

static inline size_t k_ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }

static inline bool k_aligned16(const void *p) { return ((size_t)p & 15u) == 0; }

// Per-topic tables, merged by registry.cu.
extern "C" const shipped_kernel *reduce_table(size_t *count);
extern "C" const shipped_kernel *matmul_table(size_t *count);
extern "C" const shipped_kernel *embedding_table(size_t *count);
extern "C" const raw_kernel *reduce_raw_table(size_t *count);
extern "C" const raw_kernel *matmul_raw_table(size_t *count);
extern "C" const raw_kernel *embedding_raw_table(size_t *count);
extern "C" const shipped_kernel *basics_table(size_t *count);
extern "C" const raw_kernel *basics_raw_table(size_t *count);

// Library state: the cuBLAS handle (matmul.cu), the ticket pool (reduce_vectorized.cu)
// and the last library error (registry.cu).
void k_set_library_error(const char *fmt, ...);
void k_matmul_shutdown(void);
void k_reduce_shutdown(void);
size_t k_reduce_scratch_bytes(size_t n);
// Column-major FP32 C = A x B through cuBLAS (matmul_blas.cu), for the pipeline's hand-off;
// and C = op(A) x op(B) with either operand transposed, for the multigpu lab's step.
cudaError_t k_cublas_sgemm_cm(int m, int n, int k, const float *A, int lda, const float *B,
                              int ldb, float *C, int ldc, cudaStream_t stream);
cudaError_t k_cublas_sgemm_op(bool trans_a, bool trans_b, int m, int n, int k, const float *A,
                              int lda, const float *B, int ldb, float *C, int ldc,
                              cudaStream_t stream);

#endif
