// tile_rows.cu - rung 4 of the stencil lab: the tile of rung 3, and each
// thread computes R output pixels of one column, reusing what it loads.
//
// A block of BX x BY threads now covers BX columns and BY * R rows, so its
// tile is (BY * R + 4) x (BX + 4).  Thread (tx, ty) owns the R pixels of
// column tx in rows ty * R .. ty * R + R - 1.  Those R pixels need input rows
// ty * R .. ty * R + R + 3 of the tile: R + 4 rows, not 5 R.  The thread walks
// down them once; from each row it loads its five neighbours into registers
// and adds them, with the right row of weights, into every output that uses
// that row (up to five of the R).  The 25 weights sit in registers too.
//
// Shared-memory reads a pixel: (R + 4) * 5 / R, 7.5 with R = 8 where rung 3
// needed 25; the halo costs (68 * 36) / (32 * 64) = 1.2 global loads a pixel.
// The loops are fully unrolled: acc[] and wr[] stay in registers because
// every index is known when the kernel is compiled.  Launch with blocks of
// exactly BX x BY threads (rungs/tile_rows.lua).

#define BX 32
#define BY 8
#define R 8                  // output rows a thread
#define OUT_H (BY * R)       // output rows a block
#define TW (BX + 4)
#define TH (OUT_H + 4)

extern "C" __global__ void conv5x5(const float *in, const float *w, float *out,
                                   int rows, int cols)
{
    __shared__ float tile[TH][TW];
    __shared__ float ws[25];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int t = ty * BX + tx;
    const int col0 = blockIdx.x * BX - 2;
    const int row0 = blockIdx.y * OUT_H - 2;

    if (t < 25)
        ws[t] = w[t];
    for (int i = t; i < TH * TW; i += BX * BY) {
        const int r = row0 + i / TW;
        const int c = col0 + i % TW;
        tile[i / TW][i % TW] =
            (r >= 0 && r < rows && c >= 0 && c < cols) ? in[(size_t)r * cols + c] : 0.0f;
    }
    __syncthreads();

    float wr[25];
#pragma unroll
    for (int k = 0; k < 25; ++k)
        wr[k] = ws[k];

    float acc[R];
#pragma unroll
    for (int j = 0; j < R; ++j)
        acc[j] = 0.0f;

#pragma unroll
    for (int i = 0; i < R + 4; ++i) {               // input row ty * R + i of the tile
        const float *src = &tile[ty * R + i][tx];
        const float v0 = src[0], v1 = src[1], v2 = src[2], v3 = src[3], v4 = src[4];
#pragma unroll
        for (int j = 0; j < R; ++j) {                // output row ty * R + j uses it
            const int dy = i - j;                    // as its weight row dy
            if (dy >= 0 && dy < 5) {
                acc[j] = fmaf(wr[dy * 5 + 0], v0, acc[j]);
                acc[j] = fmaf(wr[dy * 5 + 1], v1, acc[j]);
                acc[j] = fmaf(wr[dy * 5 + 2], v2, acc[j]);
                acc[j] = fmaf(wr[dy * 5 + 3], v3, acc[j]);
                acc[j] = fmaf(wr[dy * 5 + 4], v4, acc[j]);
            }
        }
    }

    const int c = blockIdx.x * BX + tx;
    if (c >= cols)
        return;
#pragma unroll
    for (int j = 0; j < R; ++j) {
        const int r = blockIdx.y * OUT_H + ty * R + j;
        if (r < rows)
            out[(size_t)r * cols + c] = acc[j];
    }
}
