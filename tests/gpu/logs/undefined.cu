// A kernel with two mistakes: a misspelt built-in and a missing semicolon.
extern "C" __global__ void reduce_sum(const float *in, float *out, int n)
{
	int i = blockIdx.x * blockDim_x + threadIdx.x;
    if (i < n) atomicAdd(out, in[i])
    int unused = 3;
}
