// kernels/basics.cu's saxpy_per_element_kernel, as a rung of a lab folder.
extern "C" __global__ void saxpy_per_element_kernel(size_t n, float a, const float *__restrict__ x,
                                                    const float *__restrict__ y,
                                                    float *__restrict__ z)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) z[i] = a * x[i] + y[i];
}
