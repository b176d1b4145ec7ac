// An error inside a template, reported where it is instantiated.
template <typename T> __device__ T twice(T x) { return x.value * 2; }

extern "C" __global__ void k(float *x) { x[0] = twice(x[1]); }
