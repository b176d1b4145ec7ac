/* dpstep.h - the multigpu lab's training step, seen from C: the pieces a
 * rank strings together for a small network's forward and backward pass
 * (src/mgpu/dpnet.c): matrix products through cuBLAS in plain FP32, and
 * the elementwise kernels between them.  Every launcher enqueues on its
 * stream and returns the launch's error; a cuBLAS failure also leaves its
 * words in kernels_library_error(). */
#ifndef CUDALAB_KERNELS_DPSTEP_H
#define CUDALAB_KERNELS_DPSTEP_H

#include <stdbool.h>
#include <stddef.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Column-major C (m x n, ldc) = op(A) x op(B), op(X) = X or X^T as
 * trans_a / trans_b say; op(A) is m x k, op(B) k x n (cublasSgemm, FP32
 * on the CUDA cores, no TF32). */
cudaError_t kdp_gemm(bool trans_a, bool trans_b, int m, int n, int k, const float *A, int lda,
                     const float *B, int ldb, float *C, int ldc, cudaStream_t stream);
/* a[i] = max(a[i], 0), i < n. */
cudaError_t kdp_relu(float *a, size_t n, cudaStream_t stream);
/* The gradient through the ReLU that made a: d[i] = a[i] > 0 ? d[i] : 0. */
cudaError_t kdp_relu_back(float *d, const float *a, size_t n, cudaStream_t stream);
/* The squared error's gradient: dy[i] = (y[i] - t[i]) x scale. */
cudaError_t kdp_loss_grad(float *dy, const float *y, const float *t, float scale, size_t n,
                          cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
