// solution.cu - a fast reference for the matmul exercise (sgemm).
//
// C = A x B, row-major, any M, N, K.  A block of 256 threads computes a
// 128 x 128 tile of C, walking K in steps of 8:
//   * the 128 x 8 slice of A is stored transposed, As[k][m] (padded by 4 so
//     the transposing stores spread over the banks), and the 8 x 128 slice
//     of B as it is, Bs[k][n]; elements past the matrices' edges load as 0;
//   * each thread keeps an 8 x 8 block of C in registers: rows
//     {ty*4 .. ty*4+3} and {64+ty*4 .. 64+ty*4+3}, the same pattern for
//     columns with tx, so its shared-memory reads are float4s and a warp's
//     stores to C cover whole 64-float runs;
//   * per step of k it reads 8 values of A and 8 of B and does 64 FMAs.
// Launch: grid (ceil(N/128), ceil(M/128)), block 256.

#define BM 128
#define BN 128
#define BK 8
#define THREADS 256
#define PAD 4

extern "C" __global__ void __launch_bounds__(THREADS)
sgemm(int M, int N, int K, const float *__restrict__ A, const float *__restrict__ B,
      float *__restrict__ C)
{
    __shared__ __align__(16) float As[BK][BM + PAD];
    __shared__ __align__(16) float Bs[BK][BN];

    const int t = threadIdx.x;
    const int tx = t % 16;
    const int ty = t / 16;
    const int row0 = blockIdx.y * BM;
    const int col0 = blockIdx.x * BN;

    float acc[8][8];
#pragma unroll
    for (int i = 0; i < 8; i++)
#pragma unroll
        for (int j = 0; j < 8; j++)
            acc[i][j] = 0.0f;

    for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
        for (int r = 0; r < (BM * BK) / THREADS; r++) {
            const int e = t + THREADS * r;
            const int am = e / BK, ak = e % BK;            // A slice: 128 rows x 8
            const int gm = row0 + am, gk = k0 + ak;
            As[ak][am] = (gm < M && gk < K) ? A[(size_t)gm * K + gk] : 0.0f;
            const int bk = e / BN, bn = e % BN;            // B slice: 8 rows x 128
            const int gkb = k0 + bk, gn = col0 + bn;
            Bs[bk][bn] = (gkb < K && gn < N) ? B[(size_t)gkb * N + gn] : 0.0f;
        }
        __syncthreads();

#pragma unroll
        for (int k = 0; k < BK; k++) {
            const float4 a0 = *reinterpret_cast<const float4 *>(&As[k][ty * 4]);
            const float4 a1 = *reinterpret_cast<const float4 *>(&As[k][64 + ty * 4]);
            const float4 b0 = *reinterpret_cast<const float4 *>(&Bs[k][tx * 4]);
            const float4 b1 = *reinterpret_cast<const float4 *>(&Bs[k][64 + tx * 4]);
            const float a[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
            const float b[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
            for (int i = 0; i < 8; i++)
#pragma unroll
                for (int j = 0; j < 8; j++)
                    acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < 8; i++) {
        const int row = row0 + (i < 4 ? ty * 4 + i : 64 + ty * 4 + (i - 4));
        if (row >= M)
            continue;
#pragma unroll
        for (int j = 0; j < 8; j++) {
            const int col = col0 + (j < 4 ? tx * 4 + j : 64 + tx * 4 + (j - 4));
            if (col < N)
                C[(size_t)row * N + col] = acc[i][j];
        }
    }
}
