// Expected diagnosis: timeout (barrier deadlock).  The first warp stages the block's
// values and waits at __syncthreads() inside a branch the other warps never enter;
// they spin until the first warp says it is done, which it never does because its
// barrier waits for them.  Problem reduce_sum; size 2^20.

extern "C" __global__ void reduce_sum(const float *in, float *out, int n)
{
    __shared__ float staged[256];
    __shared__ volatile int ready;
    const unsigned int tid = threadIdx.x;
    const unsigned int i = blockIdx.x * blockDim.x + tid;

    if (tid == 0)
        ready = 0;
    __syncthreads();

    if (tid < 32) {
        for (unsigned int j = tid; j < blockDim.x; j += 32) {
            const unsigned int g = blockIdx.x * blockDim.x + j;
            staged[j] = g < (unsigned int)n ? in[g] : 0.0f;
        }
        __syncthreads();              // only the first warp gets here
        if (tid == 0)
            ready = 1;
    } else {
        while (!ready) {
        }
    }

    if (i < (unsigned int)n)
        atomicAdd(out, staged[tid]);
}
