// collective.cu - the multigpu lab's own all-reduces: flags shared between
// processes, the naive all-reduce's sum, and the ring (collective.h).
//
// Ranks are processes, one a GPU, that map each other's buffers through
// CUDA IPC.  Order between them rests on two primitives: a release store
// of a flag at system scope after the data it announces, and an acquire
// load that waits for it.  One thread of a block polls and a barrier
// passes what it saw to the others, as NCCL's own kernels do.

#include "kcommon.cuh"
#include "collective.h"

__device__ __forceinline__ unsigned coll_load_acquire(const unsigned *p)
{
    unsigned v;
    asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

__device__ __forceinline__ void coll_store_release(unsigned *p, unsigned v)
{
    asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

// Spins until *p has reached want (epochs compare modulo 2^32).
__device__ __forceinline__ void coll_wait(const unsigned *p, unsigned want)
{
    while ((int)(coll_load_acquire(p) - want) < 0)
        __nanosleep(100);
}

// ---- flags ---------------------------------------------------------------

__global__ void coll_flag_set_kernel(unsigned *flag, unsigned value)
{
    __threadfence_system();
    coll_store_release(flag, value);
}

typedef struct coll_flag_list {
    const unsigned *p[KCOLL_MAX_RANKS];
} coll_flag_list;

__global__ void coll_flag_wait_kernel(coll_flag_list flags, int n, unsigned want)
{
    if ((int)threadIdx.x < n)
        coll_wait(flags.p[threadIdx.x], want);
}

extern "C" cudaError_t kcoll_flag_set(unsigned *flag, unsigned value, cudaStream_t stream)
{
    if (!flag)
        return cudaErrorInvalidValue;
    coll_flag_set_kernel<<<1, 1, 0, stream>>>(flag, value);
    KCHECK_LAUNCH();
    return cudaSuccess;
}

extern "C" cudaError_t kcoll_flag_wait(const unsigned *const *flags, int n, unsigned want,
                                       cudaStream_t stream)
{
    if (n < 1 || n > KCOLL_MAX_RANKS || !flags)
        return cudaErrorInvalidValue;
    coll_flag_list l = {};
    for (int k = 0; k < n; k++)
        l.p[k] = flags[k];
    coll_flag_wait_kernel<<<1, 32, 0, stream>>>(l, n, want);
    KCHECK_LAUNCH();
    return cudaSuccess;
}

// ---- the naive all-reduce's sum --------------------------------------------

typedef struct coll_inputs {
    const float *p[KCOLL_MAX_RANKS];
} coll_inputs;

__global__ void coll_reduce_kernel(float *out, coll_inputs in, int nin, size_t n)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    const size_t n4 = n / 4;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
        float4 s = reinterpret_cast<const float4 *>(in.p[0])[i];
        for (int k = 1; k < nin; k++) {
            float4 v = reinterpret_cast<const float4 *>(in.p[k])[i];
            s.x += v.x;
            s.y += v.y;
            s.z += v.z;
            s.w += v.w;
        }
        reinterpret_cast<float4 *>(out)[i] = s;
    }
    for (size_t i = n4 * 4 + (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        float s = in.p[0][i];
        for (int k = 1; k < nin; k++)
            s += in.p[k][i];
        out[i] = s;
    }
}

extern "C" cudaError_t kcoll_reduce(float *out, const float *const *ins, int nin, size_t n,
                                    cudaStream_t stream)
{
    if (nin < 1 || nin > KCOLL_MAX_RANKS || !out || !ins)
        return cudaErrorInvalidValue;
    if (n == 0)
        return cudaSuccess;
    coll_inputs in = {};
    for (int k = 0; k < nin; k++) {
        if (!k_aligned16(ins[k]))
            return cudaErrorMisalignedAddress;
        in.p[k] = ins[k];
    }
    if (!k_aligned16(out))
        return cudaErrorMisalignedAddress;
    int sms = 0;
    KCHECK(k_sm_count(&sms));
    size_t blocks = k_ceil_div(n / 4 + 1, 256);
    unsigned grid = (unsigned)(blocks < (size_t)sms * 4 ? blocks : (size_t)sms * 4);
    coll_reduce_kernel<<<grid, 256, 0, stream>>>(out, in, nin, n);
    KCHECK_LAUNCH();
    return cudaSuccess;
}

// ---- the ring ---------------------------------------------------------------

// dst[i] = src[i] (+ own[i] when ADD) for i < n, all 16-byte aligned but
// the tail; src is the neighbour's memory, read through L2 only
// (ld.global.cg): each element is read once, and a line cached in L1 from
// an earlier epoch must not answer.  Four 16-byte loads of the neighbour's
// memory in flight per thread before the first store.
template <bool ADD>
__device__ void coll_ring_move(float *__restrict__ dst, const float *__restrict__ src,
                               const float *__restrict__ own, int64_t n)
{
    const int64_t n4 = n / 4, T = blockDim.x;
    const float4 *s4 = reinterpret_cast<const float4 *>(src);
    const float4 *o4 = reinterpret_cast<const float4 *>(own);
    float4 *d4 = reinterpret_cast<float4 *>(dst);
    int64_t i = threadIdx.x;
    for (; i + 3 * T < n4; i += 4 * T) {
        float4 v[4];
#pragma unroll
        for (int u = 0; u < 4; u++)
            v[u] = __ldcg(s4 + i + u * T);
#pragma unroll
        for (int u = 0; u < 4; u++) {
            if (ADD) {
                const float4 o = o4[i + u * T];
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
            const float4 o = o4[i];
            v.x += o.x;
            v.y += o.y;
            v.z += o.z;
            v.w += o.w;
        }
        d4[i] = v;
    }
    for (int64_t j = n4 * 4 + threadIdx.x; j < n; j += T)
        dst[j] = __ldcg(src + j) + (ADD ? own[j] : 0.0f);
}

// Announces (after a barrier: every thread's stores are done) that this
// block finished a piece.
__device__ __forceinline__ void coll_block_announce(unsigned *flag, unsigned epoch)
{
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence_system();
        coll_store_release(flag, epoch);
    }
}

// Holds the block until *flag reaches want.
__device__ __forceinline__ void coll_block_wait(const unsigned *flag, unsigned want)
{
    if (threadIdx.x == 0)
        coll_wait(flag, want);
    __syncthreads();
}

__global__ void __launch_bounds__(KCOLL_RING_THREADS) coll_ring_kernel(const kcoll_ring_args a)
{
    const int b = blockIdx.x;
    // The right neighbour reads this rank's partial sums and output: it
    // must be done with the previous collective's before they change.
    coll_block_wait(a.right_flags + KCOLL_FLAG_DONE(b), a.war_epoch);
    for (int s = 0; s < a.nsteps; s++) {
        const kcoll_step st = a.steps[s];
        if (s > 0)
            coll_block_wait(a.left_flags + KCOLL_FLAG_STEP(s - 1, b), a.epoch);
        const int64_t start = (int64_t)b * a.slice;
        if (start < st.count) {
            const int64_t n = st.count - start < a.slice ? st.count - start : a.slice;
            const int64_t at = st.off + start;
            const float *src = st.src == KCOLL_LEFT_SEND      ? a.left_send
                               : st.src == KCOLL_LEFT_SCRATCH ? a.left_scratch
                                                              : a.left_recv;
            float *dst = st.dst == KCOLL_MY_SCRATCH ? a.scratch : a.recv;
            if (st.add_own)
                coll_ring_move<true>(dst + at, src + at, a.send + at, n);
            else
                coll_ring_move<false>(dst + at, src + at, nullptr, n);
        }
        coll_block_announce(a.flags + KCOLL_FLAG_STEP(s, b), a.epoch);
    }
    // Done reading the left neighbour's buffers for this collective.
    coll_block_announce(a.flags + KCOLL_FLAG_DONE(b), a.epoch);
}

extern "C" cudaError_t kcoll_ring(const kcoll_ring_args *args, cudaStream_t stream)
{
    if (!args || args->nblocks < 1 || args->nblocks > KCOLL_MAX_BLOCKS || args->nsteps < 2
        || args->nsteps > KCOLL_MAX_STEPS || args->slice < 4 || args->slice % 4)
        return cudaErrorInvalidValue;
    kcoll_ring_args a = *args;
    void *params[] = {&a};
    KCHECK(cudaLaunchCooperativeKernel((const void *)coll_ring_kernel, dim3(a.nblocks),
                                       dim3(KCOLL_RING_THREADS), params, 0, stream));
    KCHECK_LAUNCH();
    return cudaSuccess;
}
