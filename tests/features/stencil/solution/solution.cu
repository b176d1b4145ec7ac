// solution.cu - a reference solution of the stencil exercise.
//
// One block of 32 x 4 threads computes a patch of 32 columns x 64 rows:
//   - the patch's inputs plus a 2-pixel halo, a 68 x 36 window, are copied
//     into shared memory (zeros outside the image), then one barrier;
//   - each thread keeps the 25 weights in registers (read once through the
//     read-only cache) and computes 16 pixels of one column: it walks down
//     the 20 window rows those pixels need, loads five neighbours of each row
//     from shared memory and adds them into every pixel that uses that row.
// Shared-memory reads a pixel: 20 * 5 / 16 = 6.25; global loads a pixel:
// (68 * 36) / (32 * 64) = 1.2.

#define PW 32                 // patch width: threads in x
#define TY 4                  // threads in y
#define PR 16                 // pixels a thread, down its column
#define PH (TY * PR)          // patch height
#define WW (PW + 4)           // window width
#define WH (PH + 4)           // window height

extern "C" __global__ void __launch_bounds__(PW * TY)
conv5x5(const float *__restrict__ in, const float *__restrict__ w, float *__restrict__ out,
        int rows, int cols)
{
    __shared__ float win[WH][WW];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int first_col = blockIdx.x * PW, first_row = blockIdx.y * PH;

    for (int i = ty * PW + tx; i < WH * WW; i += PW * TY) {
        const int wr = i / WW, wc = i % WW;
        const int r = first_row - 2 + wr, c = first_col - 2 + wc;
        win[wr][wc] = (r >= 0 && r < rows && c >= 0 && c < cols)
                          ? in[(size_t)r * cols + c] : 0.0f;
    }

    float k[25];
#pragma unroll
    for (int i = 0; i < 25; ++i)
        k[i] = __ldg(w + i);
    __syncthreads();

    float acc[PR];
#pragma unroll
    for (int p = 0; p < PR; ++p)
        acc[p] = 0.0f;

#pragma unroll
    for (int i = 0; i < PR + 4; ++i) {
        float v[5];
#pragma unroll
        for (int dx = 0; dx < 5; ++dx)
            v[dx] = win[ty * PR + i][tx + dx];
#pragma unroll
        for (int p = 0; p < PR; ++p) {
            const int dy = i - p;
            if (dy >= 0 && dy < 5) {
#pragma unroll
                for (int dx = 0; dx < 5; ++dx)
                    acc[p] = fmaf(k[dy * 5 + dx], v[dx], acc[p]);
            }
        }
    }

    const int c = first_col + tx;
    if (c < cols) {
#pragma unroll
        for (int p = 0; p < PR; ++p) {
            const int r = first_row + ty * PR + p;
            if (r < rows)
                out[(size_t)r * cols + c] = acc[p];
        }
    }
}
