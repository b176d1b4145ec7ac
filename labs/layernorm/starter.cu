// starter.cu - your layer normalisation (lab "layernorm").
//
// cudalab compiles this file with NVRTC every time you save it and runs it
// through your launcher, starter.lua.  Edit both freely: the lab's copy stays
// untouched, and "reset" keeps yours in a backup folder.
//
// The contract
//   x      rows x cols floats, row-major (x[r * cols + c]), drawn from a normal
//          distribution of mean 3 and standard deviation 2; do not modify.
//   gamma  cols floats, uniform in [0.5, 1.5): the scale of each column.
//   beta   cols floats, uniform in [-0.5, 0.5): the shift of each column.
//   y      rows x cols floats, for every row r:
//            mean_r = (1 / cols) * sum over c of x[r][c]
//            var_r  = (1 / cols) * sum over c of (x[r][c] - mean_r)^2
//                     (the population variance: divide by cols, not cols - 1)
//            y[r][c] = (x[r][c] - mean_r) / sqrt(var_r + 1e-5) * gamma[c] + beta[c]
//          Before every run cudalab fills y with a marker NaN ("poison"), so
//          an element that no thread writes fails.
//   rows   1 to 2^20;  cols  1 to 65536, odd sizes included.  rows * cols
//          may pass 2^31: index rows with a size_t (row * cols).
//   check  against the same formula in double precision, relative tolerance
//          1e-5 (on the whole output and on every element); fresh random
//          inputs every time.
//   names  every kernel the launcher uses is declared extern "C" __global__,
//          so C++ keeps its name as written.
//
// This first version is correct and slow.  One block a row: a shared-memory
// tree sums the row for the mean, a second tree sums the squared deviations
// for the variance, and a third sweep writes the row: three reads of x, and
// a barrier at every level of each tree.  Ideas for making it faster are in
// the lesson: warp shuffles, Welford's single sweep, a warp a row with the
// row kept in registers, 16-byte loads.

#define EPS 1e-5f

// The sum of v over the block, returned to every thread.  blockDim.x must be
// a power of two, at most 1024; part holds blockDim.x floats.
__device__ float block_sum(float v, float *part)
{
    const unsigned int tid = threadIdx.x;
    part[tid] = v;
    __syncthreads();
    for (unsigned int half = blockDim.x / 2; half > 0; half /= 2) {
        if (tid < half)
            part[tid] += part[tid + half];
        __syncthreads();
    }
    const float total = part[0];
    __syncthreads();                          // everyone has read part[0]
    return total;
}

extern "C" __global__ void layernorm(const float *x, const float *gamma, const float *beta,
                                     float *y, int rows, int cols)
{
    extern __shared__ float part[];           // blockDim.x floats, sized by the launcher
    const size_t row = blockIdx.x;            // one block a row
    const float *xr = x + row * cols;
    float *yr = y + row * cols;

    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        s += xr[c];
    const float mean = block_sum(s, part) / cols;

    float q = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        const float d = xr[c] - mean;
        q += d * d;
    }
    const float var = block_sum(q, part) / cols;
    const float rstd = 1.0f / sqrtf(var + EPS);

    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        yr[c] = (xr[c] - mean) * rstd * gamma[c] + beta[c];
}
