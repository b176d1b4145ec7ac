// kogge_stone.cu - rung 1 of the scan lab: one element a thread, Kogge-Stone
// (Hillis-Steele) inside each block, and a launcher that scans the blocks'
// totals and adds them back (rungs/kogge_stone.lua).
//
// scan_block   each block of blockDim.x threads (a power of two, at most 1024)
//              scans its blockDim.x elements of in into out, and writes their
//              total to sums[blockIdx.x].  Round d adds the value 2^d places
//              to the left, so after log2(blockDim.x) rounds every element
//              holds the sum of itself and everything before it in the block.
//              Two shared arrays take turns (read one, write the other), so a
//              round never reads a value that the same round already changed.
//              Dynamic shared memory: 2 * blockDim.x floats.
// add_offsets  block b adds sums[b] (the inclusive scan of the totals, so the
//              sum of blocks 0..b) to every element of block b + 1.  The grid
//              has one block fewer than scan_block had.
//
// in and out may be the same buffer: each block reads all its elements before
// it writes any, and no block touches another block's elements.

extern "C" __global__ void scan_block(const float *in, float *out, float *sums, long long n)
{
    extern __shared__ float buf[];
    const unsigned int tid = threadIdx.x;
    const long long i = (long long)blockIdx.x * blockDim.x + tid;

    float *src = buf;
    float *dst = buf + blockDim.x;
    src[tid] = i < n ? in[i] : 0.0f;          // past the end: 0 changes no sum
    __syncthreads();

    for (unsigned int offset = 1; offset < blockDim.x; offset *= 2) {
        float v = src[tid];
        if (tid >= offset)
            v += src[tid - offset];
        dst[tid] = v;
        __syncthreads();                      // the whole round is written
        float *t = src;
        src = dst;
        dst = t;
    }

    if (i < n)
        out[i] = src[tid];
    if (tid == blockDim.x - 1)
        sums[blockIdx.x] = src[tid];
}

extern "C" __global__ void add_offsets(float *out, const float *sums, long long n)
{
    const long long i = (long long)(blockIdx.x + 1) * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] += sums[blockIdx.x];
}
