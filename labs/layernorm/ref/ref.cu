// ref.cu - the layernorm lab's reference: every row's mean and population
// variance in double precision (two passes: the mean, then the squared
// deviations from it), and every output in double from the float inputs.
// cudalab checks every kernel of the lab against it (and checks it once
// against the Lua reference in lab.lua at the smallest size).  One block of
// blockDim.x threads a row (a power of two, at most 1024); written for
// clarity, not speed.

extern "C" __global__ void layernorm_ref(const float *x, const float *gamma, const float *beta,
                                         double *y, int rows, int cols)
{
    __shared__ double part[1024];
    __shared__ double mean_s, rstd_s;
    const int tid = threadIdx.x;
    const size_t row = blockIdx.x;
    const float *xr = x + row * cols;
    double *yr = y + row * cols;

    double s = 0.0;
    for (int c = tid; c < cols; c += blockDim.x)
        s += (double)xr[c];
    part[tid] = s;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
        if (tid < half)
            part[tid] += part[tid + half];
        __syncthreads();
    }
    if (tid == 0)
        mean_s = part[0] / cols;
    __syncthreads();
    const double mean = mean_s;

    double q = 0.0;
    for (int c = tid; c < cols; c += blockDim.x) {
        const double d = (double)xr[c] - mean;
        q += d * d;
    }
    part[tid] = q;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
        if (tid < half)
            part[tid] += part[tid + half];
        __syncthreads();
    }
    if (tid == 0)
        rstd_s = 1.0 / sqrt(part[0] / cols + 1e-5);
    __syncthreads();
    const double rstd = rstd_s;

    for (int c = tid; c < cols; c += blockDim.x)
        yr[c] = ((double)xr[c] - mean) * rstd * (double)gamma[c] + (double)beta[c];
}
