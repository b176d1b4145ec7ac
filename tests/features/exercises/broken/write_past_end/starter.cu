// Expected diagnosis: wrong.  The last block's threads past n write z[i] past the
// end of z: cudalab's guard bytes after every buffer see it, and the row says so.
// Problem saxpy; size 100003.

extern "C" __global__ void saxpy(long long n, float a, const float *x, const float *y, float *z)
{
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    z[i] = a * x[i] + y[i];
}
