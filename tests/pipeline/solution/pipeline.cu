// A reference solution of the profiling lab's pipeline: coalesced kernels,
// used by pipeline.lua with pinned staging buffers and three streams.

// Column sums of a chunk of rows.  A block of 32 x 8 threads covers 32
// neighbouring columns; each thread adds up one column over every
// (8 * gridDim.y)-th row, then the block's 8 partial sums per column go
// into the totals with one double atomicAdd each.
extern "C" __global__ void chunk_sums(const float *x, long long rows, int features,
                                      double *sums, double *sumsq)
{
    __shared__ double s1[8][33], s2[8][33];
    int c = blockIdx.x * 32 + threadIdx.x;
    double s = 0.0, q = 0.0;
    if (c < features) {
        for (long long r = blockIdx.y * 8LL + threadIdx.y; r < rows; r += 8LL * gridDim.y) {
            double v = x[r * features + c];
            s += v;
            q += v * v;
        }
    }
    s1[threadIdx.y][threadIdx.x] = s;
    s2[threadIdx.y][threadIdx.x] = q;
    __syncthreads();
    if (threadIdx.y == 0 && c < features) {
        for (int k = 1; k < 8; k++) {
            s += s1[k][threadIdx.x];
            q += s2[k][threadIdx.x];
        }
        atomicAdd(&sums[c], s);
        atomicAdd(&sumsq[c], q);
    }
}

// Mean and 1 / standard deviation of each column from its totals.
extern "C" __global__ void finish_stats(const double *sums, const double *sumsq, long long rows,
                                        int features, float *mean, float *inv_std)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= features)
        return;
    double m = sums[c] / (double)rows;
    double var = sumsq[c] / (double)rows - m * m;
    mean[c] = (float)m;
    inv_std[c] = var > 0.0 ? (float)(1.0 / sqrt(var)) : 0.0f;
}

// Standardise and clip n elements of a chunk in place.  The chunk starts
// at a row boundary, so element i belongs to column i % features; thread
// i takes element i, and a warp touches 32 neighbouring floats.
extern "C" __global__ void standardize_clip(float *x, long long n, int features,
                                            const float *mean, const float *inv_std)
{
    long long stride = (long long)blockDim.x * gridDim.x;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += stride) {
        int c = (int)(i % features);
        float z = (x[i] - mean[c]) * inv_std[c];
        x[i] = fminf(fmaxf(z, -3.0f), 3.0f);
    }
}
