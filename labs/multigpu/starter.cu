// starter.cu - your ring all-reduce: every rank ends with the sum of all
// ranks' inputs (float32) in its recv buffer.
//
// Each rank runs ring_allreduce once a collective with ring_blocks blocks
// of ring_threads threads; the kernels of all ranks run at the same time.
// What `a` holds, and the two flag primitives, are in <cudalab_ring.h>
// (assets/nvrtc-include/, shipped with cudalab); lua/multigpu.md explains
// both.
//
// This version is correct and slow: one block, 4-byte loads one at a
// time, and at every step it waits for all of the left neighbour's blocks
// to finish the step before.  The hints (`H` in the lab) lead from here
// towards NCCL.
#include <cudalab_ring.h>

// The launch, read by cudalab before the first collective.  ring_blocks:
// blocks a rank, 1 .. RING_MAX_BLOCKS and at most one a streaming
// multiprocessor of the smallest GPU of the group, or 0 for exactly one a
// multiprocessor.  ring_threads: threads a block, a multiple of 32 up to
// 1024.  The blocks are launched cooperatively: all resident at once, so a
// block may wait for another.
extern "C" __constant__ int ring_blocks = 1;
extern "C" __constant__ int ring_threads = 512;

// This rank's flags: one "done" word a block, then one word a (step, block).
#define FLAG_DONE(b) (b)
#define FLAG_STEP(s, b) (RING_MAX_BLOCKS * (1 + (s)) + (b))

__device__ int ring_mod(int x, int n)
{
    return ((x % n) + n) % n;
}

// Chunk c of nranks: [*off, *off + *len) of the message, each chunk a
// multiple of 4 floats long but the last ones (which may be empty).
__device__ void ring_chunk(long long count, int nranks, int c, long long *off, long long *len)
{
    long long per = (count + nranks - 1) / nranks;
    per = (per + 3) / 4 * 4;
    long long from = per * c < count ? per * c : count;
    long long to = from + per < count ? from + per : count;
    *off = from;
    *len = to - from;
}

// Holds the block until each of the n flags from first on reaches want.
__device__ void wait_all(const unsigned *first, int n, unsigned want)
{
    for (int b = threadIdx.x; b < n; b += blockDim.x)
        ring_flag_wait(first + b, want);
    __syncthreads();
}

// Once every thread of the block is done, announces it in *flag.
__device__ void announce(unsigned *flag, unsigned epoch)
{
    __syncthreads();
    if (threadIdx.x == 0)
        ring_flag_set(flag, epoch);
}

extern "C" __global__ void ring_allreduce(const ring_args a)
{
    const int n = a.nranks, nblocks = gridDim.x;

    // The right neighbour reads this rank's scratch and recv: before they
    // change, it must be done with the previous collective.
    wait_all(a.right_flags + FLAG_DONE(0), nblocks, a.epoch - 1);

    for (int s = 0; s < 2 * (n - 1); s++) {
        // Step s reads what the left neighbour wrote at step s - 1.
        if (s > 0)
            wait_all(a.left_flags + FLAG_STEP(s - 1, 0), nblocks, a.epoch);
        int c;
        const float *src;
        float *dst;
        bool add;
        if (s < n - 1) {
            // Reduce-scatter: add this rank's input to the left's partial
            // sum of chunk rank-1-s (its input at the first step); the last
            // step leaves the whole sum of chunk rank+1 in recv.
            c = ring_mod(a.rank - 1 - s, n);
            src = s == 0 ? a.send_of[a.left] : a.scratch_of[a.left];
            dst = s == n - 2 ? a.recv : a.scratch;
            add = true;
        } else {
            // All-gather: copy chunk rank-k, finished by the left one step
            // before, from its recv into ours.
            c = ring_mod(a.rank - (s - (n - 1)), n);
            src = a.recv_of[a.left];
            dst = a.recv;
            add = false;
        }
        long long off, len;
        ring_chunk(a.count, n, c, &off, &len);
        const long long stride = (long long)nblocks * blockDim.x;
        for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < len; i += stride) {
            // __ldcg: through L2 only; the neighbour's memory changes between
            // collectives, and a line left in L1 must not answer
            float v = __ldcg(src + off + i);
            dst[off + i] = add ? v + a.send[off + i] : v;
        }
        announce(a.flags + FLAG_STEP(s, blockIdx.x), a.epoch);
    }
    // Done reading the left neighbour's buffers for this collective.
    announce(a.flags + FLAG_DONE(blockIdx.x), a.epoch);
}
