// wmma_starter.cu - your tensor-core matrix multiply (lab "matmul", the
// exercise in BF16 on the tensor cores).
//
// cudalab compiles this file with NVRTC every time you save it and runs it
// through your launcher, wmma_starter.lua.  Edit both freely.
//
// The contract
//   C = A x B, every matrix row-major:
//     A is M x K in BF16 (__nv_bfloat16): element (r, k) at A[r * K + k]
//     B is K x N in BF16:                 element (k, c) at B[k * N + c]
//     C is M x N in FP32:                 element (r, c) at C[r * N + c]
//   A and B are the problem's FP32 inputs rounded to BF16 (to nearest) by
//            cudalab before any timing, as cuBLAS BF16 gets them.
//   M, N, K  1 to 65536 each, not necessarily multiples of 16 or of 8.
//   C        poisoned with a marker NaN before every run: an element no
//            thread writes fails.
//   check    against the double-precision product of the FP32 inputs,
//            relative tolerance 3e-2 (BF16 inputs cost about 2e-3), with
//            fresh random inputs every time.
//   names    every kernel the launcher uses is declared extern "C".
//   GPU      BF16 tensor cores need compute capability 8.0 (Ampere) or newer.
//
// This first version is correct and slow.  Each block is one warp and owns
// a 16x16 tile of C.  For each slice of 16 values of k, the warp copies a
// 16x16 piece of A and one of B into shared memory (zeros past the edges),
// loads them into fragments and multiplies them on the tensor cores; at the
// end the accumulator goes through shared memory so that a tile on the edge
// of C writes only what lies inside.  Every value of A is loaded from global
// memory once per 16 columns of C, every value of B once per 16 rows: the
// FP32 ladder's ideas apply here too (a bigger tile a block and several
// fragments a warp, 16-byte copies, cp.async stages).

#include <cuda_bf16.h>
#include <mma.h>

using namespace nvcuda;

extern "C" __global__ void gemm_bf16(int M, int N, int K, const __nv_bfloat16 *A,
                                     const __nv_bfloat16 *B, float *C)
{
    __shared__ __align__(32) __nv_bfloat16 As[16 * 16];
    __shared__ __align__(32) __nv_bfloat16 Bs[16 * 16];
    __shared__ __align__(32) float Cs[16 * 16];
    const int lane = threadIdx.x;
    const int row0 = blockIdx.y * 16, col0 = blockIdx.x * 16;
    const __nv_bfloat16 zero = __float2bfloat16(0.0f);

    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
    wmma::fill_fragment(c, 0.0f);

    for (int k0 = 0; k0 < K; k0 += 16) {
        for (int e = lane; e < 256; e += 32) {
            const int r = e / 16, q = e % 16;
            As[e] = row0 + r < M && k0 + q < K ? A[(size_t)(row0 + r) * K + k0 + q] : zero;
            Bs[e] = k0 + r < K && col0 + q < N ? B[(size_t)(k0 + r) * N + col0 + q] : zero;
        }
        __syncwarp();
        wmma::load_matrix_sync(a, As, 16);
        wmma::load_matrix_sync(b, Bs, 16);
        wmma::mma_sync(c, a, b, c);
        __syncwarp();
    }
    wmma::store_matrix_sync(Cs, c, 16, wmma::mem_row_major);
    __syncwarp();
    for (int e = lane; e < 256; e += 32) {
        const int r = e / 16, q = e % 16;
        if (row0 + r < M && col0 + q < N)
            C[(size_t)(row0 + r) * N + col0 + q] = Cs[e];
    }
}
