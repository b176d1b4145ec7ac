// starter.cu - your SAXPY (lab "basics", exercise "saxpy", problem saxpy).
//
// cudalab compiles this file with NVRTC every time you save it and runs it
// through your launcher, starter.lua.  Edit both freely: the lab's copy stays
// untouched, and "reset" keeps yours in a backup folder.
//
// The contract
//   x, y   n floats each in device memory, uniform in [-1, 1); do not modify
//          them.
//   z      n floats: z[i] = a * x[i] + y[i].  Before every run cudalab fills
//          z with a marker NaN ("poison"), so an element no thread writes
//          fails the check.
//   a      a float from the launcher (args.a), different from size to size.
//   n      1 to 2^30, odd sizes included (2^20+3, 2^26+1): the last block
//          rarely comes out even.
//   check  against a * x + y computed in double on the CPU, relative
//          tolerance 1e-5, fresh random inputs every time.
//   names  every kernel the launcher uses is declared extern "C" __global__,
//          so C++ keeps its name as written.
//
// This first version is correct and slow: the launcher starts a single
// block, and its threads walk the whole array one block-width at a time, so
// one SM does all the work while the others idle.  Compute each thread's
// global index from blockIdx.x, blockDim.x and threadIdx.x, launch enough
// blocks (and keep the bounds check), or keep a loop that strides by the
// whole grid.

extern "C" __global__ void saxpy(long long n, float a, const float *x, const float *y, float *z)
{
    for (long long i = threadIdx.x; i < n; i += blockDim.x)
        z[i] = a * x[i] + y[i];
}
