// starter.cu - your 5 x 5 convolution (lab "stencil").
//
// cudalab compiles this file with NVRTC every time you save it and runs it
// through your launcher, starter.lua.  Edit both freely: the lab's copy stays
// untouched, and "reset" keeps yours in a backup folder.
//
// The contract
//   input    rows x cols floats, row-major (pixel (r, c) at input[r * cols + c]),
//            uniform in [-1, 1); do not modify them.
//   weights  25 floats, row-major 5 x 5 (w[(dy + 2) * 5 + (dx + 2)] for dy, dx in
//            -2..2), uniform in [-1, 1), new at every check.
//   output   rows x cols floats:
//              output[r][c] = sum over dy, dx in -2..2 of
//                             w[dy + 2][dx + 2] * input[r + dy][c + dx]
//            where an input outside the image counts as 0 (zero padding).
//            Before every run cudalab fills output with a marker NaN
//            ("poison"), so a pixel that no thread writes fails.
//   rows, cols  1 to 16384 each, odd sizes included; rows * cols fits in an
//            int, but a size_t index costs nothing and never overflows.
//   check    against the same sum in double precision, relative tolerance
//            1e-5 (on the whole image and on every pixel); fresh random
//            inputs and weights every time.
//   names    every kernel the launcher uses is declared extern "C" __global__,
//            so C++ keeps its name as written.
//
// This first version is correct and slow: the lab's first rung.  One thread
// computes one pixel, reading its 25 inputs and the 25 weights from global
// memory.  Ideas for making it faster are in the lesson: the weights in
// shared memory, a shared-memory tile with a halo, several pixels a thread.

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
            continue;
        for (int dx = -2; dx <= 2; ++dx) {
            const int cc = c + dx;
            if (cc < 0 || cc >= cols)
                continue;
            acc += w[(dy + 2) * 5 + (dx + 2)] * in[(size_t)rr * cols + cc];
        }
    }
    out[(size_t)r * cols + c] = acc;
}
