// Too much static shared memory, plus an unused variable (a warning).
extern "C" __global__
void big_tile(float *x)
{
    int unused = 3;
    __shared__ float tile[20000];
    tile[threadIdx.x] = 1.0f;
    __syncthreads();
    x[threadIdx.x] = tile[threadIdx.x ^ 1];
}
