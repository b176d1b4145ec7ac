// occupancy.cu - the kernels of the basics lab's occupancy experiment.
//
// cudalab compiles this file at run time with NVRTC (ptxas's resource report
// on), so the experiment can show what ptxas said about each kernel beside
// the occupancy the runtime computes and the time each takes.  It is here to
// be read: the experiment runs the lab's copy, not one in your workspace.
//
// Every kernel does the same walk: each thread follows a chain of `steps`
// loads through `next`, a small table the L1 cache holds, each load waiting
// for the one before.  A warp's 32 loads at a step fall on neighbouring
// words (one cache line), so the walk is limited by the latency of each
// load, and an SM needs many warps in flight to keep busy.  Along the way
// each thread keeps R running counts: at step s, count s % R adds 1 when the
// index just read is odd.  Every count is live for the whole walk and float
// additions do not reassociate, so the compiler must keep all R of them, in
// registers if it can; the work is the same for every R (one load and one
// addition a step).  More counts, more registers a thread, fewer warps an
// SM can hold.
//
// The contract: out[t] = (the index after `steps` hops from t % n)
// + the sum of the counts, count k starting at (t + k) % 16.
// n is a power of two and steps a multiple of 128.

template <int R>
__device__ __forceinline__ void walk(const int *__restrict__ next, int n, int steps, int *out)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    float keep[R];
#pragma unroll
    for (int k = 0; k < R; ++k)
        keep[k] = (float)((t + k) & 15);
    int i = t & (n - 1);
    for (int s = 0; s < steps; s += R) {
#pragma unroll
        for (int k = 0; k < R; ++k) {
            i = next[i];
            keep[k] += (float)(i & 1);
        }
    }
    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k < R; ++k)
        sum += keep[k];
    out[t] = i + (int)sum;
}

// The same walk keeping 8, 32, 64 and 128 counts: ptxas gives each the
// registers it needs (__launch_bounds__(256): blocks of at most 256 threads,
// so up to 255 registers a thread).
extern "C" __global__ void __launch_bounds__(256) occ_r8(const int *next, int n, int steps, int *out)
{
    walk<8>(next, n, steps, out);
}

extern "C" __global__ void __launch_bounds__(256) occ_r32(const int *next, int n, int steps, int *out)
{
    walk<32>(next, n, steps, out);
}

extern "C" __global__ void __launch_bounds__(256) occ_r64(const int *next, int n, int steps, int *out)
{
    walk<64>(next, n, steps, out);
}

extern "C" __global__ void __launch_bounds__(256) occ_r128(const int *next, int n, int steps, int *out)
{
    walk<128>(next, n, steps, out);
}

// 128 counts again, but __launch_bounds__(256, 4) promises four blocks of
// 256 threads an SM: at most 65536 / 1024 = 64 registers a thread.  What
// does not fit goes to local memory (a stack frame in DRAM, cached in L1):
// ptxas reports the spill stores and loads, and the walk now moves the
// spilled counts in and out of local memory as it goes.
extern "C" __global__ void __launch_bounds__(256, 4) occ_spill(const int *next, int n, int steps,
                                                               int *out)
{
    walk<128>(next, n, steps, out);
}
