// A sum that only comes out right when every kind of parameter arrives
// intact from the Lua launcher: a pointer, a 64-bit count, a float and a
// double (their product is 1), a 16-bit integer (7) and a bool (true).
// Used by the GPU tests of the launcher API.

extern "C" __global__ void sum_scaled(const float *in, float *out, long long n, float scale,
                                      double dscale, short check16, bool on)
{
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    float v = 0.0f;
    if (i < n && on && check16 == 7)
        v = in[i] * scale * (float)dscale;
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    if ((threadIdx.x & 31) == 0)
        atomicAdd(out, v);
}
