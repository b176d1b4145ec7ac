// saxpy.cu - SAXPY in CUDA C: one thread an element, z[i] = a * x[i] + y[i].
//
// The C rung (launched by rungs/saxpy.lua) and the CuPy RawKernel rung
// (rungs/cupy_rawkernel.py, which reads this very file) run the same
// source: any difference between the two rows is the launch path, not the
// kernel.

extern "C" __global__ void saxpy(long long n, float a, const float *x, const float *y, float *z)
{
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n)
        z[i] = a * x[i] + y[i];
}
