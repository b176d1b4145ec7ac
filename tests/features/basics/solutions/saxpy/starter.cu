// Reference solution of the basics lab's saxpy exercise: a grid-stride loop
// over one full wave of blocks (the launcher sizes the grid).
extern "C" __global__ void saxpy(long long n, float a, const float *__restrict__ x,
                                 const float *__restrict__ y, float *__restrict__ z)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        z[i] = a * x[i] + y[i];
}
