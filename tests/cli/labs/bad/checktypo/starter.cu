// starter.cu - your sum of n floats (lab "reduction", problem reduce_sum).
//
// cudalab compiles this file with NVRTC every time you save it and runs it
// through your launcher, starter.lua.  Edit both freely: the lab's copy stays
// untouched, and "reset" keeps yours in a backup folder.
//
// The contract
//   input   n floats in device memory, uniform in [0, 1); do not modify them.
//   output  one float in device memory: the sum of all n.  Before every run
//           cudalab fills it with a marker NaN ("poison"), so a run that never
//           writes it fails.  If you add into it with atomicAdd, zero it first
//           in the launcher: args.output:fill(0).
//   n       1 to 2^30 (fits in an int).
//   check   against a double-precision sum on the CPU, relative tolerance
//           1e-5, with fresh random inputs every time.
//   names   every kernel the launcher uses is declared extern "C" __global__,
//           so C++ keeps its name as written (otherwise reduce_sum would be
//           renamed _Z10reduce_sumPKfPfi and the launcher could not find it).
//
// This first version is correct and slow.  Each block of blockDim.x threads
// (a power of two) loads one element a thread into shared memory and halves
// the number of active threads at each step (interleaved addressing: the
// active threads are scattered over every warp); thread 0 writes the block's
// sum to out[blockIdx.x].  The launcher repeats the launch on the partial
// sums until one value is left.  Ideas for making it faster are in the
// lesson: sequential addressing, adding two elements during the load, warp
// shuffles, many elements per thread, one launch with atomicAdd.

extern "C" __global__ void reduce_sum(const float *in, float *out, int n)
{
    extern __shared__ float partial[];        // blockDim.x floats, sized by the launcher
    const unsigned int tid = threadIdx.x;
    const unsigned int i = blockIdx.x * blockDim.x + tid;

    partial[tid] = (i < (unsigned int)n) ? in[i] : 0.0f;
    __syncthreads();

    for (unsigned int stride = 1; stride < blockDim.x; stride *= 2) {
        if (tid % (2 * stride) == 0)
            partial[tid] += partial[tid + stride];
        __syncthreads();
    }

    if (tid == 0)
        out[blockIdx.x] = partial[0];
}
