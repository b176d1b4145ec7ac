// occupancy.cu - the kernels of the basics lab's occupancy experiment.
//
// cudalab compiles this file at run time with NVRTC (ptxas's resource report
// on), so the experiment can show what ptxas said about each kernel beside
// the occupancy the runtime computes and the time each takes.  It is here to
// be read: the experiment runs the lab's copy, not one in your workspace.
//
// Every kernel does the same walk: each thread follows a chain of `steps`
// loads through `next`, each load waiting for the one before (its speed is
// set by memory latency, so it needs many warps in flight to keep the
// memory busy), while it keeps R running counts of its own: at each step
// every count adds 1 when the index just read is odd.  Float additions do
// not reassociate, so the compiler must keep all R counts, in registers if
// it can.  More counts, more registers a thread, fewer warps an SM can
// hold; the R additions a step are little work beside the wait for memory.
//
// The contract: out[t] = (the index after `steps` hops from (t * 7919) % n)
// + the sum of the R counts, count k starting at (t + k) % 16.

template <int R>
__device__ __forceinline__ void walk(const int *__restrict__ next, int n, int steps, int *out)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    float keep[R];
#pragma unroll
    for (int k = 0; k < R; ++k)
        keep[k] = (float)((t + k) & 15);
    int i = (int)(((long long)t * 7919) % n);
    for (int s = 0; s < steps; ++s) {
        i = next[i];
        const float odd = (float)(i & 1);
#pragma unroll
        for (int k = 0; k < R; ++k)
            keep[k] += odd;
    }
    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k < R; ++k)
        sum += keep[k];
    out[t] = i + (int)sum;
}

// The same walk keeping 8, 32, 64 and 128 values: ptxas gives each the
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

// 128 values again, but __launch_bounds__(256, 4) promises four blocks of
// 256 threads an SM: at most 65536 / 1024 = 64 registers a thread.  What
// does not fit goes to local memory (a stack frame in DRAM, cached in L1):
// ptxas reports the spill stores and loads, and every step now reads and
// writes the spilled values there.
extern "C" __global__ void __launch_bounds__(256, 4) occ_spill(const int *next, int n, int steps,
                                                               int *out)
{
    walk<128>(next, n, steps, out);
}
