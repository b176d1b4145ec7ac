// Expected diagnosis: wrong (the answer of the first call, replayed).
// Problem reduce_sum; size 2^20.
// A kernel of the learner's own that sums right, and one that only copies a
// kept answer: the launcher runs the sum once, keeps its result, and from
// then on replays it.  Timed on the same inputs it would pass at the speed
// of a 4-byte copy; the check after timing runs on fresh inputs.
extern "C" __global__ void reduce_sum(const float *in, float *out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(out, in[i]);
}

extern "C" __global__ void replay(const float *kept, float *out)
{
    if (threadIdx.x == 0 && blockIdx.x == 0)
        out[0] = kept[0];
}
