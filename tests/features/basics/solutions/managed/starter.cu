// starter.cu - SAXPY over managed memory (lab "basics", exercise "managed",
// problem managed).
//
// cudalab compiles this file with NVRTC every time you save it and runs it
// through your launcher, starter.lua.  Edit both freely: the lab's copy stays
// untouched, and "reset" keeps yours in a backup folder.
//
// The contract
//   x, y   n floats each in managed memory (cudaMallocManaged), written by
//          the CPU before every run: each run starts with their pages in
//          host memory.  Do not modify them.
//   z      n floats of ordinary device memory: z[i] = a * x[i] + y[i]
//          (poisoned before every run).
//   a, n   as in the saxpy exercise; n is 2^22 or 2^24 in the lab.
//   check  against a * x + y in double, relative tolerance 1e-5.
//   names  every kernel the launcher uses is declared extern "C" __global__.
//
// The kernel is already a good one: a grid-stride loop.  What is slow is
// where its data is when it starts.  The work of this exercise is in the
// launcher: see starter.lua.

extern "C" __global__ void saxpy(long long n, float a, const float *x, const float *y, float *z)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        z[i] = a * x[i] + y[i];
}
