// dpstep.cu - the multigpu lab's training step: the elementwise kernels
// between its matrix products, and the products themselves through the
// cuBLAS handle of matmul_blas.cu (dpstep.h).

#include "kcommon.cuh"
#include "dpstep.h"

// A grid-stride loop's grid: enough blocks of 256 for n, at most 8 a multiprocessor.
static cudaError_t dp_grid(size_t n, unsigned *grid)
{
    int sms = 0;
    KCHECK(k_sm_count(&sms));
    const size_t blocks = k_ceil_div(n, 256);
    *grid = (unsigned)(blocks < (size_t)sms * 8 ? blocks : (size_t)sms * 8);
    return cudaSuccess;
}

__global__ void dp_relu_kernel(float *a, size_t n)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        a[i] = fmaxf(a[i], 0.0f);
}

__global__ void dp_relu_back_kernel(float *d, const float *a, size_t n)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        if (!(a[i] > 0.0f)) d[i] = 0.0f;
}

__global__ void dp_loss_grad_kernel(float *dy, const float *y, const float *t, float scale,
                                    size_t n)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        dy[i] = (y[i] - t[i]) * scale;
}

extern "C" cudaError_t kdp_gemm(bool trans_a, bool trans_b, int m, int n, int k, const float *A,
                                int lda, const float *B, int ldb, float *C, int ldc,
                                cudaStream_t stream)
{
    return k_cublas_sgemm_op(trans_a, trans_b, m, n, k, A, lda, B, ldb, C, ldc, stream);
}

extern "C" cudaError_t kdp_relu(float *a, size_t n, cudaStream_t stream)
{
    if (n == 0) return cudaSuccess;
    if (!a) return cudaErrorInvalidValue;
    unsigned grid = 0;
    KCHECK(dp_grid(n, &grid));
    dp_relu_kernel<<<grid, 256, 0, stream>>>(a, n);
    KCHECK_LAUNCH();
    return cudaSuccess;
}

extern "C" cudaError_t kdp_relu_back(float *d, const float *a, size_t n, cudaStream_t stream)
{
    if (n == 0) return cudaSuccess;
    if (!d || !a) return cudaErrorInvalidValue;
    unsigned grid = 0;
    KCHECK(dp_grid(n, &grid));
    dp_relu_back_kernel<<<grid, 256, 0, stream>>>(d, a, n);
    KCHECK_LAUNCH();
    return cudaSuccess;
}

extern "C" cudaError_t kdp_loss_grad(float *dy, const float *y, const float *t, float scale,
                                     size_t n, cudaStream_t stream)
{
    if (n == 0) return cudaSuccess;
    if (!dy || !y || !t) return cudaErrorInvalidValue;
    unsigned grid = 0;
    KCHECK(dp_grid(n, &grid));
    dp_loss_grad_kernel<<<grid, 256, 0, stream>>>(dy, y, t, scale, n);
    KCHECK_LAUNCH();
    return cudaSuccess;
}
