// brent_kung.cu - rung 2 of the scan lab: the work-efficient scan (Blelloch's
// up-sweep and down-sweep over a Brent-Kung tree) in shared memory, two
// elements a thread, with padding against bank conflicts.  The launcher
// (rungs/brent_kung.lua) runs it in levels exactly like rung 1.
//
// scan_block   a block of blockDim.x threads (a power of two, at most 512)
//              scans 2 * blockDim.x elements of in into out and writes their
//              total to sums[blockIdx.x].
//                up-sweep    builds partial sums up a binary tree in place:
//                            T - 1 additions for T elements;
//                down-sweep  clears the root and walks back down, each node
//                            handing its left child the sum of everything to
//                            its left: T - 1 more additions, and every slot
//                            then holds the sum of the elements before it
//                            (an exclusive scan);
//                inclusive   each thread adds its own element back.
//              Dynamic shared memory: PADDED(2 * blockDim.x) floats.
// add_offsets  block b adds sums[b] to every element of tile b + 1 (tiles of
//              2 * blockDim.x elements).
//
// Bank conflicts: in the tree, the threads of a warp touch slots 2, 4, ...,
// 32 words apart, which without care land in few of the 32 banks.  One spare
// word after every 32 (PAD) shifts each run of 32 slots by one bank, which
// spreads every stride this tree uses over distinct banks.

#define PAD(i) ((i) + ((i) >> 5))
#define PADDED(n) ((n) + ((n) >> 5))

extern "C" __global__ void scan_block(const float *in, float *out, float *sums, long long n)
{
    extern __shared__ float s[];
    const int tid = threadIdx.x;
    const int tile = 2 * blockDim.x;
    const long long base = (long long)blockIdx.x * tile;

    // Coalesced loads: element tid, then element tid + blockDim.x.
    const int a = tid;
    const int b = tid + blockDim.x;
    const float xa = base + a < n ? in[base + a] : 0.0f;
    const float xb = base + b < n ? in[base + b] : 0.0f;
    s[PAD(a)] = xa;
    s[PAD(b)] = xb;

    // Up-sweep: after it, s[PAD(tile - 1)] holds the tile's total.
    int offset = 1;
    for (int d = tile >> 1; d > 0; d >>= 1) {
        __syncthreads();
        if (tid < d) {
            const int ai = offset * (2 * tid + 1) - 1;
            const int bi = offset * (2 * tid + 2) - 1;
            s[PAD(bi)] += s[PAD(ai)];
        }
        offset *= 2;
    }
    __syncthreads();
    if (tid == 0) {
        sums[blockIdx.x] = s[PAD(tile - 1)];
        s[PAD(tile - 1)] = 0.0f;             // the root: nothing lies before the tile
    }

    // Down-sweep: each node gives its left child its own value (the sum of
    // what lies left of the node) and adds the left child's old sum to itself.
    for (int d = 1; d < tile; d *= 2) {
        offset >>= 1;
        __syncthreads();
        if (tid < d) {
            const int ai = offset * (2 * tid + 1) - 1;
            const int bi = offset * (2 * tid + 2) - 1;
            const float left = s[PAD(ai)];
            s[PAD(ai)] = s[PAD(bi)];
            s[PAD(bi)] += left;
        }
    }
    __syncthreads();

    if (base + a < n)
        out[base + a] = s[PAD(a)] + xa;     // exclusive + own element = inclusive
    if (base + b < n)
        out[base + b] = s[PAD(b)] + xb;
}

extern "C" __global__ void add_offsets(float *out, const float *sums, long long n)
{
    const long long tile = 2LL * blockDim.x;
    const long long first = (long long)(blockIdx.x + 1) * tile;
    const float add = sums[blockIdx.x];
    for (long long i = first + threadIdx.x; i < first + tile && i < n; i += blockDim.x)
        out[i] += add;
}
