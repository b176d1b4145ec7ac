// solution.cu - a reference answer to the matmul lab's tensor-core exercise
// (labs/matmul/wmma_starter.cu): C = A x B with A and B in BF16, C in FP32.
//
// A block of 256 threads (8 warps) owns a 128x128 tile of C; each warp a
// 64x32 piece of it, held as 4x2 accumulator fragments of 16x16.  Per
// slice of 32 values of k, the block stages A (128x32) and B (32x128) in
// shared memory, rows padded by 8 values so that fragment loads spread over
// the banks, then every warp multiplies its fragments.  Global loads move 8
// BF16 values (16 bytes) at once where K and N allow, single values at the
// edges and otherwise.  The accumulators go through shared memory on the
// way out so that edge tiles write only what lies inside C.

#include <cuda_bf16.h>
#include <mma.h>

using namespace nvcuda;

#define BM 128
#define BN 128
#define BK 32
#define PAD 8
#define LDA (BK + PAD)
#define LDB (BN + PAD)

__device__ static void load_a(__nv_bfloat16 *As, const __nv_bfloat16 *A, int M, int K, int row0,
                              int k0, bool vec)
{
    const __nv_bfloat16 zero = __float2bfloat16(0.0f);
    for (int e = threadIdx.x; e < BM * BK / 8; e += blockDim.x) {
        const int r = e / (BK / 8), c = (e % (BK / 8)) * 8;
        const int gr = row0 + r, gc = k0 + c;
        __nv_bfloat16 *dst = As + r * LDA + c;
        if (vec && gr < M && gc + 8 <= K) {
            *(uint4 *)dst = *(const uint4 *)(A + (size_t)gr * K + gc);
        } else {
            for (int q = 0; q < 8; q++)
                dst[q] = gr < M && gc + q < K ? A[(size_t)gr * K + gc + q] : zero;
        }
    }
}

__device__ static void load_b(__nv_bfloat16 *Bs, const __nv_bfloat16 *B, int K, int N, int k0,
                              int col0, bool vec)
{
    const __nv_bfloat16 zero = __float2bfloat16(0.0f);
    for (int e = threadIdx.x; e < BK * BN / 8; e += blockDim.x) {
        const int r = e / (BN / 8), c = (e % (BN / 8)) * 8;
        const int gr = k0 + r, gc = col0 + c;
        __nv_bfloat16 *dst = Bs + r * LDB + c;
        if (vec && gr < K && gc + 8 <= N) {
            *(uint4 *)dst = *(const uint4 *)(B + (size_t)gr * N + gc);
        } else {
            for (int q = 0; q < 8; q++)
                dst[q] = gr < K && gc + q < N ? B[(size_t)gr * N + gc + q] : zero;
        }
    }
}

extern "C" __global__ void __launch_bounds__(256)
gemm_bf16(int M, int N, int K, const __nv_bfloat16 *A, const __nv_bfloat16 *B, float *C)
{
    // A and B tiles while multiplying; the same bytes hold the output tile
    // of one warp at a time at the end.
    __shared__ __align__(128) unsigned char smem[(BM * LDA + BK * LDB) * 2];
    __nv_bfloat16 *As = (__nv_bfloat16 *)smem;
    __nv_bfloat16 *Bs = As + BM * LDA;

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int wr = (warp / 4) * 64, wc = (warp % 4) * 32;   // 2 x 4 warps
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    const bool vec_a = K % 8 == 0 && ((size_t)A % 16) == 0;
    const bool vec_b = N % 8 == 0 && ((size_t)B % 16) == 0;

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[4][2];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 2; j++)
            wmma::fill_fragment(acc[i][j], 0.0f);

    for (int k0 = 0; k0 < K; k0 += BK) {
        load_a(As, A, M, K, row0, k0, vec_a);
        load_b(Bs, B, K, N, k0, col0, vec_b);
        __syncthreads();
        for (int kk = 0; kk < BK; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> a[4];
            wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> b[2];
            for (int i = 0; i < 4; i++)
                wmma::load_matrix_sync(a[i], As + (wr + 16 * i) * LDA + kk, LDA);
            for (int j = 0; j < 2; j++)
                wmma::load_matrix_sync(b[j], Bs + kk * LDB + wc + 16 * j, LDB);
            for (int i = 0; i < 4; i++)
                for (int j = 0; j < 2; j++)
                    wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }

    // Each warp in turn through a 16x16 staging square of its own.
    float *stage = (float *)smem + warp * 256;
    for (int i = 0; i < 4; i++) {
        for (int j = 0; j < 2; j++) {
            wmma::store_matrix_sync(stage, acc[i][j], 16, wmma::mem_row_major);
            __syncwarp();
            for (int e = lane; e < 256; e += 32) {
                const int r = row0 + wr + 16 * i + e / 16, c = col0 + wc + 16 * j + e % 16;
                if (r < M && c < N)
                    C[(size_t)r * N + c] = stage[e];
            }
            __syncwarp();
        }
    }
}
