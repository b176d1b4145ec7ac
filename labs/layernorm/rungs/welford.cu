// welford.cu - rung 2 of the layernorm lab: one block a row, mean and
// variance in a single sweep with Welford's method, then the normalising
// sweep: the row is read twice instead of three times.
//
// Each thread keeps (n, mean, M2) for its own columns, M2 being the sum of
// squared deviations from the running mean.  A new value x updates them
// without any cancellation:
//
//   n += 1;  d = x - mean;  mean += d / n;  M2 += d * (x - mean)
//
// Two such summaries A and B merge exactly (Chan et al.):
//
//   n = nA + nB;  d = meanB - meanA;
//   mean = meanA + d * nB / n;  M2 = M2A + M2B + d^2 * nA * nB / n
//
// so the threads of a warp merge theirs with five shuffles, the warps'
// summaries meet in shared memory, and the first warp merges those.  The
// variance is M2 / cols.  blockDim.x: a multiple of 32, at most 1024.

#define FULL 0xffffffffu
#define EPS 1e-5f

// Merges (nb, mb, m2b) into (n, m, m2).  An empty side (count 0) changes nothing.
__device__ __forceinline__ void merge(float &n, float &m, float &m2, float nb, float mb,
                                      float m2b)
{
    const float total = n + nb;
    if (total == 0.0f)
        return;
    const float d = mb - m;
    const float fb = nb / total;        // B's share
    m += d * fb;
    m2 += m2b + d * d * n * fb;         // n * nb / total
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

extern "C" __global__ void layernorm(const float *x, const float *gamma, const float *beta,
                                     float *y, int rows, int cols)
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
