// naive.cu - rung 1 of the stencil lab: one thread an output pixel, every
// input and every weight read from global memory.
//
// out[r][c] = sum over dy, dx in -2..2 of w[dy + 2][dx + 2] * in[r + dy][c + dx],
// with in = 0 outside the image.  A block of 32 x 8 threads covers 32
// columns and 8 rows; the launcher (rungs/naive.lua) starts enough blocks to
// cover the image.
//
// Per pixel: 25 loads of the input, 25 loads of the weights, 25 fused
// multiply-adds, and a bounds test per tap.  Neighbouring threads read
// neighbouring inputs, so every load is coalesced, and most of the 25 reads
// of each input hit in the L1 cache, because the threads around it read it
// too.  What remains is the sheer number of load instructions.

extern "C" __global__ void conv5x5(const float *in, const float *w, float *out,
                                   int rows, int cols)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    const int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r >= rows || c >= cols)
        return;

    float acc = 0.0f;
    for (int dy = -2; dy <= 2; ++dy) {
        const int rr = r + dy;
        if (rr < 0 || rr >= rows)
            continue;                               // a row of zeros
        for (int dx = -2; dx <= 2; ++dx) {
            const int cc = c + dx;
            if (cc < 0 || cc >= cols)
                continue;
            acc += w[(dy + 2) * 5 + (dx + 2)] * in[(size_t)rr * cols + cc];
        }
    }
    out[(size_t)r * cols + c] = acc;
}
