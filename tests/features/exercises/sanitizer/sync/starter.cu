// A block sum with a barrier inside a branch that only some threads take:
// in every block, the threads below n % blockDim.x wait at a
// __syncthreads() the others skip.  Since Volta the block does not hang
// (the others are counted at the tree's first barrier instead) and the sum
// may even come out right; synccheck reports the divergent barrier.  Used
// by the GPU tests of compute-sanitizer; the barrier is marked PLANTED.

extern "C" __global__ void reduce_sum(const float *in, float *out, int n)
{
    __shared__ float partial[256];
    const unsigned int tid = threadIdx.x;
    const unsigned int i = blockIdx.x * blockDim.x + tid;
    partial[tid] = i < (unsigned int)n ? in[i] : 0.0f;
    if (tid < (unsigned int)n % blockDim.x)
        __syncthreads();    // PLANTED: only the threads below n % blockDim.x wait here
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            partial[tid] += partial[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        atomicAdd(out, partial[0]);
}
