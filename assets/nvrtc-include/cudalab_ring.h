// cudalab_ring.h - what the multigpu lab hands your ring all-reduce
// kernel (lua/multigpu.md, "Your ring all-reduce"): its argument, and the
// two flag primitives that order the ranks' work.
//
// Every rank is a process with its own GPU.  Each runs your kernel
// ring_allreduce(const ring_args a) once a collective, on its own stream;
// the kernels of all ranks run at the same time and meet only through
// memory: the buffers and flags of every rank are mapped into every other
// rank (CUDA IPC), so a kernel may load and store a neighbour's memory
// through the link between the GPUs.
//
// A flag is a 32-bit word in device memory.  A rank announces a finished
// piece of work by storing the collective's epoch into a flag of its own
// (ring_flag_set: a system-wide fence, then a release store at system
// scope); another rank waits for that flag to reach the epoch
// (ring_flag_wait: acquire loads at system scope), after which the data
// written before the flag is visible to it.  Epochs grow by one each
// collective and never go back, so a flag needs no reset: "at least this
// collective's epoch" means "done for this collective".
#pragma once

#define RING_MAX_RANKS 8
#define RING_MAX_BLOCKS 256          // the most blocks ring_blocks may ask for
#define RING_FLAG_WORDS 8192         // flags each rank has, all 0 before the first collective

struct ring_args {
    int rank;                        // this rank, 0 .. nranks-1 (its GPU)
    int nranks;                      // ranks in the ring, 2 .. RING_MAX_RANKS
    int left, right;                 // rank - 1 and rank + 1, modulo nranks
    long long count;                 // floats in the message (0 or more; any count)
    unsigned epoch;                  // this collective's number: 1, 2, 3, ...
    int reserved;
    const float *send;               // this rank's input, count floats: never write it
    float *recv;                     // this rank's output, count floats (poisoned before a check)
    float *scratch;                  // count floats of this rank's own, for partial sums
    unsigned *flags;                 // this rank's RING_FLAG_WORDS flags
    const unsigned *left_flags;      // the left neighbour's flags, as mapped here
    const unsigned *right_flags;     // the right neighbour's flags, as mapped here
    // every rank's buffers and flags as mapped in this process ([rank] is
    // this rank's own); entries from nranks on are null
    const float *send_of[RING_MAX_RANKS];
    float *recv_of[RING_MAX_RANKS];
    float *scratch_of[RING_MAX_RANKS];
    unsigned *flags_of[RING_MAX_RANKS];
};

// Publishes value in *flag after every store this thread made before it,
// for every GPU of the system.  Call it from one thread after a
// __syncthreads(), so the whole block's stores come first.
__device__ __forceinline__ void ring_flag_set(unsigned *flag, unsigned value)
{
    __threadfence_system();
    asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(flag), "r"(value) : "memory");
}

// The flag's value, read with acquire semantics at system scope.
__device__ __forceinline__ unsigned ring_flag_load(const unsigned *flag)
{
    unsigned v;
    asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(flag) : "memory");
    return v;
}

// Spins until *flag has reached want (epochs compare modulo 2^32).  What
// the flag's writer stored before setting it is visible afterwards; let
// one thread wait and then __syncthreads(), to pass that on to the block.
__device__ __forceinline__ void ring_flag_wait(const unsigned *flag, unsigned want)
{
    while ((int)(ring_flag_load(flag) - want) < 0)
        __nanosleep(64);
}
