// tile.cu - rung 3 of the stencil lab: a shared-memory tile with a halo.
//
// A block of BX x BY threads computes BX x BY output pixels.  Those pixels
// need the inputs of a (BY + 4) x (BX + 4) window: the block's own pixels
// plus a halo two pixels wide on every side.  The block's threads copy that
// window into shared memory together (432 values for 256 threads: each
// copies one or two), writing 0 where the window leaves the image, so the
// arithmetic below needs no bounds test at all.  One barrier, then each
// thread reads its 25 inputs from the tile.
//
// Global traffic: each input is fetched by one block instead of by 25
// threads, and the halo costs (36 * 12) / (32 * 8) = 1.7 loads a pixel.
// Shared memory: a warp reads 32 consecutive words of one tile row for each
// tap, one word a bank: no conflicts.  Launch with blocks of exactly
// BX x BY threads (rungs/tile.lua).

#define BX 32
#define BY 8
#define TW (BX + 4)
#define TH (BY + 4)

extern "C" __global__ void conv5x5(const float *in, const float *w, float *out,
                                   int rows, int cols)
{
    __shared__ float tile[TH][TW];
    __shared__ float ws[25];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int t = ty * BX + tx;
    const int col0 = blockIdx.x * BX - 2;          // the window's first column and row
    const int row0 = blockIdx.y * BY - 2;

    if (t < 25)
        ws[t] = w[t];
    for (int i = t; i < TH * TW; i += BX * BY) {
        const int r = row0 + i / TW;
        const int c = col0 + i % TW;
        tile[i / TW][i % TW] =
            (r >= 0 && r < rows && c >= 0 && c < cols) ? in[(size_t)r * cols + c] : 0.0f;
    }
    __syncthreads();

    const int r = blockIdx.y * BY + ty;
    const int c = blockIdx.x * BX + tx;
    if (r >= rows || c >= cols)
        return;
    float acc = 0.0f;
#pragma unroll
    for (int dy = 0; dy < 5; ++dy)
#pragma unroll
        for (int dx = 0; dx < 5; ++dx)
            acc += ws[dy * 5 + dx] * tile[ty + dy][tx + dx];
    out[(size_t)r * cols + c] = acc;
}
