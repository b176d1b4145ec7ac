// Expected diagnosis: wrong (the answer of the first call, replayed).
// Problem reduce_sum; size 2^20.
// A kernel of the learner's own that sums right, and one that only copies a
// kept answer: the launcher runs the sum once, keeps its result, and from
// then on replays it.  Timed on the same inputs it would pass at the speed
// of a 4-byte copy; the check after timing runs on fresh inputs.
// The sum itself is accurate (a warp's shuffles, then one atomicAdd a
// warp), so that only the replay can make the row wrong.
extern "C" __global__ void reduce_sum(const float *in, float *out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? in[i] : 0.0f;
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
    if ((threadIdx.x & 31) == 0) atomicAdd(out, v);
}

extern "C" __global__ void replay(const float *kept, float *out)
{
    if (threadIdx.x == 0 && blockIdx.x == 0)
        out[0] = kept[0];
}
