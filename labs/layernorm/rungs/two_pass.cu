// two_pass.cu - rung 1 of the layernorm lab: one block a row, the textbook
// formula in three sweeps over the row.
//
//   y[r][c] = (x[r][c] - mean_r) / sqrt(var_r + eps) * gamma[c] + beta[c]
//
//   sweep 1  every thread adds up its columns (c = tid, tid + blockDim.x, ...);
//            a block-wide sum gives the mean;
//   sweep 2  the same for (x - mean)^2: the population variance;
//   sweep 3  normalise, scale, shift, write.
//
// Computing the variance from the deviations, after the mean is known, is
// what keeps it accurate (see the lesson: E[x^2] - E[x]^2 is not).  The
// price is reading the row three times; the second and third reads are
// served by the caches only when the row is still there.
//
// block_sum: each warp folds its 32 values with shuffles, the warps' sums
// meet in shared memory, and every warp folds those again, so every thread
// gets the total.  blockDim.x: a multiple of 32, at most 1024.

#define FULL 0xffffffffu
#define EPS 1e-5f

__device__ __forceinline__ float warp_sum(float v)
{
    for (int o = 16; o > 0; o /= 2)
        v += __shfl_xor_sync(FULL, v, o);
    return v;
}

__device__ float block_sum(float v)
{
    __shared__ float part[32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    v = warp_sum(v);
    if (lane == 0)
        part[warp] = v;
    __syncthreads();
    v = lane < (int)(blockDim.x >> 5) ? part[lane] : 0.0f;
    v = warp_sum(v);
    __syncthreads();                    // part[] is reused by the next call
    return v;
}

extern "C" __global__ void layernorm(const float *x, const float *gamma, const float *beta,
                                     float *y, int rows, int cols)
{
    const size_t row = blockIdx.x;      // grid = rows
    const float *xr = x + row * cols;
    float *yr = y + row * cols;

    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        s += xr[c];
    const float mean = block_sum(s) / cols;

    float q = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        const float d = xr[c] - mean;
        q += d * d;
    }
    const float var = block_sum(q) / cols;
    const float rstd = rsqrtf(var + EPS);

    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        yr[c] = (xr[c] - mean) * rstd * gamma[c] + beta[c];
}
