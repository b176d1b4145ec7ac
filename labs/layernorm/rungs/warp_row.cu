// warp_row.cu - rung 3 of the layernorm lab: the row is read from memory
// once and kept in registers, and a row up to 4096 columns long belongs to
// one warp.
//
// layernorm_warp<V>   one warp a row, V values a lane: lane l holds columns
//                     l, l + 32, ..., l + 32 (V - 1), so every load of the
//                     warp reads 128 contiguous bytes.  The mean is a warp
//                     sum (five shuffles); the variance is the sum of
//                     (v - mean)^2 over the registers, the exact two-pass
//                     formula without a second read; then the lane writes its
//                     columns.  No shared memory, no __syncthreads(): a warp
//                     never waits for the rest of its block.  A block of 256
//                     threads handles 8 rows.
// layernorm_welford   rows longer than 4096 columns: rung 2's kernel, one
//                     block a row and two reads.  Such a row does not fit in
//                     a warp's registers (a lane can hold at most 255), and a
//                     65536-column row is as large as a multiprocessor's whole
//                     register file (64 K registers).
//
// V is a template parameter, so the loops over a lane's values unroll and the
// values stay in registers; the launcher (rungs/warp_row.lua) picks the
// smallest V that fits the row: 8, 32, 64 or 128 values a lane.  At V = 128 a
// thread needs about 200 registers: only one block of 8 warps fits on a
// multiprocessor, but each warp has 16 KiB of loads in flight.

#define FULL 0xffffffffu
#define EPS 1e-5f

__device__ __forceinline__ float warp_sum(float v)
{
    for (int o = 16; o > 0; o /= 2)
        v += __shfl_xor_sync(FULL, v, o);
    return v;
}

template <int V>
__device__ __forceinline__ void layernorm_warp(const float *x, const float *gamma,
                                               const float *beta, float *y, int rows, int cols)
{
    const int lane = threadIdx.x & 31;
    const long long row = (long long)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    if (row >= rows)
        return;                          // the whole warp leaves together
    const float *xr = x + row * cols;
    float *yr = y + row * cols;

    float v[V];
    float s = 0.0f;
#pragma unroll
    for (int j = 0; j < V; ++j) {
        const int c = lane + 32 * j;
        v[j] = c < cols ? xr[c] : 0.0f;
        s += v[j];
    }
    const float mean = warp_sum(s) / cols;

    float q = 0.0f;
#pragma unroll
    for (int j = 0; j < V; ++j) {
        const float d = lane + 32 * j < cols ? v[j] - mean : 0.0f;
        q += d * d;
    }
    const float rstd = rsqrtf(warp_sum(q) / cols + EPS);

#pragma unroll
    for (int j = 0; j < V; ++j) {
        const int c = lane + 32 * j;
        if (c < cols)
            yr[c] = (v[j] - mean) * rstd * gamma[c] + beta[c];
    }
}

extern "C" __global__ void layernorm_warp8(const float *x, const float *gamma,
                                           const float *beta, float *y, int rows, int cols)
{
    layernorm_warp<8>(x, gamma, beta, y, rows, cols);
}

extern "C" __global__ void layernorm_warp32(const float *x, const float *gamma,
                                            const float *beta, float *y, int rows, int cols)
{
    layernorm_warp<32>(x, gamma, beta, y, rows, cols);
}

extern "C" __global__ void layernorm_warp64(const float *x, const float *gamma,
                                            const float *beta, float *y, int rows, int cols)
{
    layernorm_warp<64>(x, gamma, beta, y, rows, cols);
}

extern "C" __global__ void layernorm_warp128(const float *x, const float *gamma,
                                             const float *beta, float *y, int rows, int cols)
{
    layernorm_warp<128>(x, gamma, beta, y, rows, cols);
}

// Rung 2's kernel, for rows longer than 4096 columns (see welford.cu).
__device__ __forceinline__ void merge(float &n, float &m, float &m2, float nb, float mb,
                                      float m2b)
{
    const float total = n + nb;
    if (total == 0.0f)
        return;
    const float d = mb - m;
    const float fb = nb / total;
    m += d * fb;
    m2 += m2b + d * d * n * fb;
    n = total;
}

__device__ __forceinline__ void warp_merge(float &n, float &m, float &m2)
{
    for (int o = 16; o > 0; o /= 2) {
        const float nb = __shfl_xor_sync(FULL, n, o);
        const float mb = __shfl_xor_sync(FULL, m, o);
        const float m2b = __shfl_xor_sync(FULL, m2, o);
        merge(n, m, m2, nb, mb, m2b);
    }
}

extern "C" __global__ void layernorm_welford(const float *x, const float *gamma,
                                             const float *beta, float *y, int rows, int cols)
{
    __shared__ float part_n[32], part_m[32], part_m2[32];
    __shared__ float mean_s, rstd_s;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const size_t row = blockIdx.x;
    const float *xr = x + row * cols;
    float *yr = y + row * cols;

    float n = 0.0f, m = 0.0f, m2 = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        const float v = xr[c];
        n += 1.0f;
        const float d = v - m;
        m += d / n;
        m2 += d * (v - m);
    }
    warp_merge(n, m, m2);
    if (lane == 0) {
        part_n[warp] = n;
        part_m[warp] = m;
        part_m2[warp] = m2;
    }
    __syncthreads();
    if (warp == 0) {
        const bool has = lane < (int)(blockDim.x >> 5);
        n = has ? part_n[lane] : 0.0f;
        m = has ? part_m[lane] : 0.0f;
        m2 = has ? part_m2[lane] : 0.0f;
        warp_merge(n, m, m2);
        if (lane == 0) {
            mean_s = m;
            rstd_s = rsqrtf(m2 / cols + EPS);
        }
    }
    __syncthreads();
    const float mean = mean_s, rstd = rstd_s;
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        yr[c] = (xr[c] - mean) * rstd * gamma[c] + beta[c];
}
