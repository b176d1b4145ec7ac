// A two-kernel sum whose second kernel reads scratch memory the first never
// wrote: pass 1 writes one partial sum a block into a 256-entry scratch
// buffer the launcher allocated (not cleared), and pass 2, one block of 256
// threads, reads all 256 entries however many blocks pass 1 had.  The extra
// entries often hold zeros, so the sum may be right; initcheck reports the
// reads.  Used by the GPU tests of compute-sanitizer; the marker PLANTED is
// on the read.

extern "C" __global__ void block_sums(const float *in, float *scratch, int n)
{
    __shared__ float partial[256];
    const unsigned int tid = threadIdx.x;
    const unsigned int i = blockIdx.x * blockDim.x + tid;
    partial[tid] = i < (unsigned int)n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            partial[tid] += partial[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        scratch[blockIdx.x] = partial[0];
}

extern "C" __global__ void total(const float *scratch, float *out)
{
    __shared__ float partial[256];
    const unsigned int tid = threadIdx.x;
    partial[tid] = scratch[tid];    // PLANTED: entries past the blocks of pass 1 were never written
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            partial[tid] += partial[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        *out = partial[0];
}
