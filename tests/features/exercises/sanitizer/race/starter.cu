// A tree sum in shared memory without the barrier between its rounds: a
// thread may read partial[tid + s] before the thread that owns it has added
// into it.  Within one warp the lanes usually run in step, so the sum often
// comes out right anyway; racecheck still reports the hazard.  Used by the
// GPU tests of compute-sanitizer; the racing line is marked PLANTED.

extern "C" __global__ void reduce_sum(const float *in, float *out, int n)
{
    __shared__ float partial[256];
    const unsigned int tid = threadIdx.x;
    const unsigned int i = blockIdx.x * blockDim.x + tid;
    partial[tid] = i < (unsigned int)n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            partial[tid] += partial[tid + s];    // PLANTED: no __syncthreads() after this round
    }
    if (tid == 0)
        atomicAdd(out, partial[0]);
}
