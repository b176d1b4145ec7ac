// matmul_blas.cu - cuBLAS, the library the matmul rungs are measured
// against, at each precision a rung computes in:
//   cublas_sgemm  cublasSgemm, plain FP32 on the CUDA cores (default math
//                 mode: no TF32);
//   cublas_tf32   cublasGemmEx on FP32 data with CUBLAS_COMPUTE_32F_FAST_TF32:
//                 the tensor cores multiply TF32-rounded inputs, FP32 sums;
//   cublas_bf16   cublasGemmEx on BF16 copies of A and B, FP32 output and
//                 CUBLAS_COMPUTE_32F (FP32 sums).
//
// cuBLAS is loaded when a baseline first runs, not when cudalab starts:
// linking it costs every process about 0.3 s and 200 MB at start-up (its
// initialisers), and only the worker running a matmul baseline needs it.
#include <cublas_v2.h>
#include <dlfcn.h>

#include "matmul.cuh"

#define K_STR2(x) #x
#define K_STR(x) K_STR2(x)
#define CUBLAS_SONAME "libcublas.so." K_STR(CUBLAS_VER_MAJOR)

// cublasGemmEx is overloaded in C++ (an inline wrapper taking the old
// cudaDataType compute type), so its pointer type is spelled out.
typedef cublasStatus_t (*gemm_ex_fn)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int,
                                     int, int, const void *, const void *, cudaDataType, int,
                                     const void *, cudaDataType, int, const void *, void *,
                                     cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t);

struct blas_api {
    decltype(&cublasCreate_v2) create;
    decltype(&cublasDestroy_v2) destroy;
    decltype(&cublasSetStream_v2) set_stream;
    decltype(&cublasSetMathMode) set_math_mode;
    decltype(&cublasSgemm_v2) sgemm;
    gemm_ex_fn gemm_ex;
    decltype(&cublasGetStatusName) status_name;
    decltype(&cublasGetStatusString) status_string;
};
static blas_api blas;
static void *blas_lib;
static cublasHandle_t blas_handle;
static int blas_device = -1;

template <typename F> static bool blas_sym(F *fn, const char *name)
{
    *fn = reinterpret_cast<F>(dlsym(blas_lib, name));
    if (!*fn) k_set_library_error("%s has no symbol %s", CUBLAS_SONAME, name);
    return *fn != nullptr;
}

static bool blas_load(void)
{
    if (blas_lib) return true;
    blas_lib = dlopen(CUBLAS_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!blas_lib) {
        const char *why = dlerror();
        k_set_library_error("cannot load cuBLAS (%s): %s", CUBLAS_SONAME, why ? why : "not found");
        return false;
    }
    if (blas_sym(&blas.create, "cublasCreate_v2") && blas_sym(&blas.destroy, "cublasDestroy_v2") &&
        blas_sym(&blas.set_stream, "cublasSetStream_v2") &&
        blas_sym(&blas.set_math_mode, "cublasSetMathMode") &&
        blas_sym(&blas.sgemm, "cublasSgemm_v2") && blas_sym(&blas.gemm_ex, "cublasGemmEx") &&
        blas_sym(&blas.status_name, "cublasGetStatusName") &&
        blas_sym(&blas.status_string, "cublasGetStatusString"))
        return true;
    dlclose(blas_lib);
    blas_lib = nullptr;
    return false;
}

static cudaError_t blas_error(const char *what, cublasStatus_t st)
{
    k_set_library_error("%s: %s (%s)", what, blas.status_name(st), blas.status_string(st));
    switch (st) {
    case CUBLAS_STATUS_NOT_INITIALIZED: return cudaErrorInitializationError;
    case CUBLAS_STATUS_ALLOC_FAILED: return cudaErrorMemoryAllocation;
    case CUBLAS_STATUS_INVALID_VALUE: return cudaErrorInvalidValue;
    case CUBLAS_STATUS_ARCH_MISMATCH: return cudaErrorInvalidDeviceFunction;
    case CUBLAS_STATUS_EXECUTION_FAILED: return cudaErrorLaunchFailure;
    case CUBLAS_STATUS_NOT_SUPPORTED: return cudaErrorNotSupported;
    default: return cudaErrorUnknown;
    }
}

// The handle for the current device, bound to stream s.  Its math mode is
// CUBLAS_DEFAULT_MATH, so cublasSgemm stays in FP32 on the CUDA cores
// (CUBLAS_TF32_TENSOR_OP_MATH would let it use TF32); the GemmEx calls name
// their compute type themselves.
static cudaError_t blas_ready(cudaStream_t s)
{
    k_set_library_error("");
    if (!blas_load()) return cudaErrorSharedObjectInitFailed;
    int dev = 0;
    KCHECK(cudaGetDevice(&dev));
    if (blas_handle && blas_device != dev) k_matmul_shutdown();
    if (!blas_handle) {
        cublasStatus_t st = blas.create(&blas_handle);
        if (st != CUBLAS_STATUS_SUCCESS) {
            blas_handle = NULL;
            return blas_error("cublasCreate", st);
        }
        blas_device = dev;
        st = blas.set_math_mode(blas_handle, CUBLAS_DEFAULT_MATH);
        if (st != CUBLAS_STATUS_SUCCESS) return blas_error("cublasSetMathMode", st);
    }
    cublasStatus_t st = blas.set_stream(blas_handle, s);
    if (st != CUBLAS_STATUS_SUCCESS) return blas_error("cublasSetStream", st);
    return cudaSuccess;
}

// Row-major C = A x B is column-major C^T = B^T x A^T: hand cuBLAS B first.
cudaError_t launch_cublas_sgemm(int M, int N, int K, const float *A, const float *B, float *C,
                                cudaStream_t stream)
{
    if (!k_mm_sizes_ok(M, N, K, A, B, C)) return cudaErrorInvalidValue;
    KCHECK(blas_ready(stream));
    const float one = 1.0f, zero = 0.0f;
    cublasStatus_t st =
        blas.sgemm(blas_handle, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B, N, A, K, &zero, C, N);
    if (st != CUBLAS_STATUS_SUCCESS) return blas_error("cublasSgemm", st);
    KCHECK_LAUNCH();
    return cudaSuccess;
}

static cudaError_t gemm_ex(int M, int N, int K, const void *A, const void *B, float *C,
                           cudaDataType ab_type, cublasComputeType_t compute, const char *what,
                           cudaStream_t s)
{
    if (!k_mm_sizes_ok(M, N, K, A, B, C)) return cudaErrorInvalidValue;
    // TF32 and BF16 tensor cores came with Ampere; before it cuBLAS would
    // compute something else under the same name.
    int cc = 0;
    KCHECK(k_device_cc(&cc));
    if (cc < 80) {
        k_set_library_error("%s needs compute capability 8.0 or newer; this GPU is %d.%d", what,
                            cc / 10, cc % 10);
        return cudaErrorNotSupported;
    }
    KCHECK(blas_ready(s));
    const float one = 1.0f, zero = 0.0f;
    cublasStatus_t st = blas.gemm_ex(blas_handle, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B,
                                     ab_type, N, A, ab_type, K, &zero, C, CUDA_R_32F, N, compute,
                                     CUBLAS_GEMM_DEFAULT);
    if (st != CUBLAS_STATUS_SUCCESS) return blas_error(what, st);
    KCHECK_LAUNCH();
    return cudaSuccess;
}

cudaError_t launch_cublas_tf32(int M, int N, int K, const float *A, const float *B, float *C,
                               cudaStream_t stream)
{
    return gemm_ex(M, N, K, A, B, C, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32,
                   "cublasGemmEx (FP32 data, TF32 compute)", stream);
}

cudaError_t launch_cublas_bf16(int M, int N, int K, const uint16_t *A, const uint16_t *B, float *C,
                               cudaStream_t stream)
{
    return gemm_ex(M, N, K, A, B, C, CUDA_R_16BF, CUBLAS_COMPUTE_32F,
                   "cublasGemmEx (BF16 data, FP32 compute)", stream);
}

// Column-major C (m x n, leading dimension ldc) = op(A) x op(B) in plain
// FP32, op(X) being X or its transpose (trans_a, trans_b): the pipeline
// lab's hand-off to a linear layer (kernels/pipeline.cu) and the multigpu
// lab's training step (kernels/dpstep.cu), through the same handle as the
// baselines above.  op(A) is m x k (A stored m x k, or k x m when
// transposed), op(B) k x n.
cudaError_t k_cublas_sgemm_op(bool trans_a, bool trans_b, int m, int n, int k, const float *A,
                              int lda, const float *B, int ldb, float *C, int ldc,
                              cudaStream_t stream)
{
    k_set_library_error("");
    if (m < 1 || n < 1 || k < 1 || !A || !B || !C || lda < (trans_a ? k : m) ||
        ldb < (trans_b ? n : k) || ldc < m)
        return cudaErrorInvalidValue;
    KCHECK(blas_ready(stream));
    const float one = 1.0f, zero = 0.0f;
    cublasStatus_t st = blas.sgemm(blas_handle, trans_a ? CUBLAS_OP_T : CUBLAS_OP_N,
                                   trans_b ? CUBLAS_OP_T : CUBLAS_OP_N, m, n, k, &one, A, lda, B,
                                   ldb, &zero, C, ldc);
    if (st != CUBLAS_STATUS_SUCCESS) return blas_error("cublasSgemm", st);
    KCHECK_LAUNCH();
    return cudaSuccess;
}

cudaError_t k_cublas_sgemm_cm(int m, int n, int k, const float *A, int lda, const float *B,
                              int ldb, float *C, int ldc, cudaStream_t stream)
{
    return k_cublas_sgemm_op(false, false, m, n, k, A, lda, B, ldb, C, ldc, stream);
}

void k_matmul_shutdown(void)
{
    if (blas_handle) blas.destroy(blas_handle);
    blas_handle = NULL;
    blas_device = -1;
}
