// Expected diagnosis: memory_access (misaligned address).  The kernel skips the first
// element and reads the rest as float4, but in + 1 is not on a 16-byte boundary.
// Problem reduce_sum; size 2^20.

extern "C" __global__ void reduce_sum(const float *in, float *out, int n)
{
    const float4 *in4 = reinterpret_cast<const float4 *>(in + 1);
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = 0.0f;
    if (i < (n - 1) / 4) {
        const float4 q = in4[i];
        v = q.x + q.y + q.z + q.w;
    }
    if (i == 0)
        v += in[0];
    atomicAdd(out, v);
}
