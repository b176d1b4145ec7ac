// The preprocessing pipeline, first GPU port.  It gives the right answer
// and is slow on purpose: read the lesson's last step, then profile it.
//
// The table is rows x features floats, row-major: element (r, c) sits at
// r * features + c.  Each column is standardised with its own mean and
// standard deviation, then clipped to [-3, 3]:
//     out = clamp((x - mean_c) * inv_std_c, -3, 3)
// where inv_std_c = 1 / std_c, and 0 for a column whose values are all equal.

// One block per column.  The threads of the block walk down the column
// together, so neighbouring threads read values a whole row apart, and a
// table of 16 columns keeps only 16 of the GPU's multiprocessors busy.
// Launch with 256 threads per block.
extern "C" __global__ void column_stats(const float *x, long long rows, int features,
                                        float *mean, float *inv_std)
{
    __shared__ double sum[256], sumsq[256];
    int c = blockIdx.x;
    double s = 0.0, q = 0.0;
    for (long long r = threadIdx.x; r < rows; r += blockDim.x) {
        double v = x[r * features + c];
        s += v;
        q += v * v;
    }
    sum[threadIdx.x] = s;
    sumsq[threadIdx.x] = q;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) {
            sum[threadIdx.x] += sum[threadIdx.x + half];
            sumsq[threadIdx.x] += sumsq[threadIdx.x + half];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        double m = sum[0] / (double)rows;
        double var = sumsq[0] / (double)rows - m * m;
        mean[c] = (float)m;
        inv_std[c] = var > 0.0 ? (float)(1.0 / sqrt(var)) : 0.0f;
    }
}

// One thread per element, numbered column by column: thread i handles row
// i % rows of column i / rows.  Consecutive threads touch addresses
// `features` floats apart, on both the read and the write.
extern "C" __global__ void standardize(const float *x, float *out, long long rows, int features,
                                       const float *mean, const float *inv_std)
{
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= rows * features)
        return;
    long long r = i % rows;
    int c = (int)(i / rows);
    long long k = r * features + c;
    float z = (x[k] - mean[c]) * inv_std[c];
    out[k] = fminf(fmaxf(z, -3.0f), 3.0f);
}
