// starter.cu - a block sum in shared memory with one planted bug (lab
// "debugging", exercise "divergent_barrier", problem reduce_sum).
//
// The contract
//   in     n floats, uniform in [0, 1); do not modify them.
//   out    one float, the sum.  cudalab poisons it before every run; the
//          launcher zeroes it, and every block adds its sum with atomicAdd.
//   n      100003 or 2^20+3: the last block is only partly full.
//   check  against a sum in double on the CPU, relative tolerance 1e-5.
//
// Every full block is summed correctly.  Something goes wrong in the last
// block, the one with threads past n: run it, then find it with the tool
// hint 1 names.

extern "C" __global__ void reduce_sum(const float *in, float *out, int n)
{
    __shared__ float partial[256];
    const unsigned int tid = threadIdx.x;
    const unsigned int i = blockIdx.x * blockDim.x + tid;

    // Only the threads that have an element load it and wait for the others.
    if (i < (unsigned int)n) {
        partial[tid] = in[i];
        __syncthreads();
    }

    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            partial[tid] += partial[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        atomicAdd(out, partial[0]);
}
