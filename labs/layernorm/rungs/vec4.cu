// vec4.cu - rung 4 of the layernorm lab: rung 3 with 16-byte loads and
// stores.  When cols is a multiple of 4, every row starts on a 16-byte
// boundary, and a lane can move four columns with one instruction: lane l
// holds the float4 groups l, l + 32, ..., so a warp's load reads 512
// contiguous bytes, and gamma and beta are read the same way.  A quarter of
// the load and store instructions, four times the bytes in flight for each.
//
// layernorm_warp4<V4>  one warp a row, V4 float4 groups a lane (the launcher,
//                      rungs/vec4.lua, picks 2, 8, 16 or 32: rows of up to
//                      256, 1024, 2048 or 4096 columns).  Otherwise as rung 3:
//                      mean and variance from the registers, one read.
// layernorm_welford    everything else: rows whose length is not a multiple
//                      of 4 (their starts are not 16-byte aligned, so float4
//                      accesses would be illegal), and rows longer than 4096
//                      columns.  Rung 2's kernel.

#define FULL 0xffffffffu
#define EPS 1e-5f

__device__ __forceinline__ float warp_sum(float v)
{
    for (int o = 16; o > 0; o /= 2)
        v += __shfl_xor_sync(FULL, v, o);
    return v;
}

template <int V4>
__device__ __forceinline__ void layernorm_warp4(const float *x, const float *gamma,
                                                const float *beta, float *y, int rows, int cols)
{
    const int lane = threadIdx.x & 31;
    const long long row = (long long)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    if (row >= rows)
        return;
    const int groups = cols >> 2;                        // cols is a multiple of 4
    const float4 *xr = reinterpret_cast<const float4 *>(x + row * cols);
    float4 *yr = reinterpret_cast<float4 *>(y + row * cols);
    const float4 *g4 = reinterpret_cast<const float4 *>(gamma);
    const float4 *b4 = reinterpret_cast<const float4 *>(beta);

    float4 v[V4];
    float s = 0.0f;
#pragma unroll
    for (int j = 0; j < V4; ++j) {
        const int g = lane + 32 * j;
        v[j] = g < groups ? xr[g] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        s += (v[j].x + v[j].y) + (v[j].z + v[j].w);
    }
    const float mean = warp_sum(s) / cols;

    float q = 0.0f;
#pragma unroll
    for (int j = 0; j < V4; ++j) {
        if (lane + 32 * j < groups) {
            const float a = v[j].x - mean, b = v[j].y - mean;
            const float c = v[j].z - mean, d = v[j].w - mean;
            q += (a * a + b * b) + (c * c + d * d);
        }
    }
    const float rstd = rsqrtf(warp_sum(q) / cols + EPS);

#pragma unroll
    for (int j = 0; j < V4; ++j) {
        const int g = lane + 32 * j;
        if (g < groups) {
            const float4 ga = g4[g], be = b4[g];
            float4 o;
            o.x = (v[j].x - mean) * rstd * ga.x + be.x;
            o.y = (v[j].y - mean) * rstd * ga.y + be.y;
            o.z = (v[j].z - mean) * rstd * ga.z + be.z;
            o.w = (v[j].w - mean) * rstd * ga.w + be.w;
            yr[g] = o;
        }
    }
}

extern "C" __global__ void layernorm_warp4_2(const float *x, const float *gamma,
                                             const float *beta, float *y, int rows, int cols)
{
    layernorm_warp4<2>(x, gamma, beta, y, rows, cols);
}

extern "C" __global__ void layernorm_warp4_8(const float *x, const float *gamma,
                                             const float *beta, float *y, int rows, int cols)
{
    layernorm_warp4<8>(x, gamma, beta, y, rows, cols);
}

extern "C" __global__ void layernorm_warp4_16(const float *x, const float *gamma,
                                              const float *beta, float *y, int rows, int cols)
{
    layernorm_warp4<16>(x, gamma, beta, y, rows, cols);
}

extern "C" __global__ void layernorm_warp4_32(const float *x, const float *gamma,
                                              const float *beta, float *y, int rows, int cols)
{
    layernorm_warp4<32>(x, gamma, beta, y, rows, cols);
}

// Rung 2's kernel, for everything else (see welford.cu).
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
