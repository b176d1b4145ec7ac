// starter.cu - a SAXPY with one planted bug (lab "debugging", exercise
// "oob", problem saxpy).
//
// The contract (the basics lab's SAXPY)
//   x, y   n floats each in device memory, uniform in [-1, 1); do not modify
//          them.
//   z      n floats: z[i] = a * x[i] + y[i].  cudalab fills z with a marker
//          NaN before every run, so an element no thread writes fails.
//   n      100003 or 2^20+3: the last block is never full.
//   check  against a * x + y in double on the CPU, relative tolerance 1e-5.
//
// Something here is wrong, and the row may still say "correct".  Run it,
// then ask the tool the lesson pairs with this kind of bug (hint 1 names
// it), read the line it reports, and fix the kernel.

extern "C" __global__ void saxpy(long long n, float a, const float *x, const float *y, float *z)
{
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    z[i] = a * x[i] + y[i];
}
