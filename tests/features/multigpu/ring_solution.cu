// ring_solution.cu - a fast answer to the multigpu exercise, written only
// against what a learner has (<cudalab_ring.h> and the lesson): the GPU
// test runs it as a learner's kernel to show that the exercise's
// milestones can be reached from its interface.  What changed from the
// starter:
//  - one block a streaming multiprocessor (ring_blocks = 0), each owning
//    the same slice of every chunk, so a block waits only for the same
//    block of its left neighbour and the steps of different slices overlap;
//  - 16-byte loads, four of the neighbour's in flight a thread before the
//    first store.
#include <cudalab_ring.h>

extern "C" __constant__ int ring_blocks = 0;
extern "C" __constant__ int ring_threads = 512;

// One "done" flag a block, then one a (step, block): as in the starter.
#define FLAG_DONE(b) (b)
#define FLAG_STEP(s, b) (RING_MAX_BLOCKS * (1 + (s)) + (b))

__device__ int wrap(int x, int n)
{
    return ((x % n) + n) % n;
}

// The chunks: every one `per` floats (a multiple of 4) but the last ones.
__device__ long long chunk_per(long long count, int n)
{
    long long per = (count + n - 1) / n;
    return (per + 3) / 4 * 4;
}

// dst = src (+ own), n floats, src on the neighbour's GPU read through L2.
template <bool ADD>
__device__ void move(float *dst, const float *src, const float *own, long long n)
{
    const long long n4 = n / 4, T = blockDim.x;
    const float4 *s4 = reinterpret_cast<const float4 *>(src);
    const float4 *o4 = reinterpret_cast<const float4 *>(own);
    float4 *d4 = reinterpret_cast<float4 *>(dst);
    long long i = threadIdx.x;
    for (; i + 3 * T < n4; i += 4 * T) {
        float4 v[4];
#pragma unroll
        for (int u = 0; u < 4; u++)
            v[u] = __ldcg(s4 + i + u * T);
#pragma unroll
        for (int u = 0; u < 4; u++) {
            if (ADD) {
                float4 o = o4[i + u * T];
                v[u].x += o.x;
                v[u].y += o.y;
                v[u].z += o.z;
                v[u].w += o.w;
            }
            d4[i + u * T] = v[u];
        }
    }
    for (; i < n4; i += T) {
        float4 v = __ldcg(s4 + i);
        if (ADD) {
            float4 o = o4[i];
            v.x += o.x;
            v.y += o.y;
            v.z += o.z;
            v.w += o.w;
        }
        d4[i] = v;
    }
    for (long long j = n4 * 4 + threadIdx.x; j < n; j += T)
        dst[j] = __ldcg(src + j) + (ADD ? own[j] : 0.0f);
}

__device__ void wait_one(const unsigned *flag, unsigned want)
{
    if (threadIdx.x == 0)
        ring_flag_wait(flag, want);
    __syncthreads();
}

__device__ void announce(unsigned *flag, unsigned epoch)
{
    __syncthreads();
    if (threadIdx.x == 0)
        ring_flag_set(flag, epoch);
}

extern "C" __global__ void ring_allreduce(const ring_args a)
{
    const int n = a.nranks, b = blockIdx.x;
    const long long per = chunk_per(a.count, n);
    long long slice = (per + gridDim.x - 1) / gridDim.x;
    slice = (slice + 3) / 4 * 4;

    // The right neighbour's block b reads this block's slices of scratch
    // and recv: it must be done with the previous collective first.
    wait_one(a.right_flags + FLAG_DONE(b), a.epoch - 1);
    for (int s = 0; s < 2 * (n - 1); s++) {
        if (s > 0)
            wait_one(a.left_flags + FLAG_STEP(s - 1, b), a.epoch);
        const bool scatter = s < n - 1;
        const int c = scatter ? wrap(a.rank - 1 - s, n) : wrap(a.rank - (s - (n - 1)), n);
        const long long c0 = per * c < a.count ? per * c : a.count;
        const long long c1 = c0 + per < a.count ? c0 + per : a.count;
        const long long from = c0 + slice * b;
        if (from < c1) {
            const long long len = c1 - from < slice ? c1 - from : slice;
            if (scatter) {
                const float *src = s == 0 ? a.send_of[a.left] : a.scratch_of[a.left];
                float *dst = s == n - 2 ? a.recv : a.scratch;
                move<true>(dst + from, src + from, a.send + from, len);
            } else {
                move<false>(a.recv + from, a.recv_of[a.left] + from, nullptr, len);
            }
        }
        announce(a.flags + FLAG_STEP(s, b), a.epoch);
    }
    announce(a.flags + FLAG_DONE(b), a.epoch);
}
