// starter.cu - your inclusive prefix sum of n floats (lab "scan").
//
// cudalab compiles this file with NVRTC every time you save it and runs it
// through your launcher, starter.lua.  Edit both freely: the lab's copy stays
// untouched, and "reset" keeps yours in a backup folder.
//
// The contract
//   input   n floats in device memory, uniform in [0, 1); do not modify them.
//   output  n floats: output[i] = input[0] + input[1] + ... + input[i] (an
//           inclusive scan: element i counts itself).  Before every run
//           cudalab fills output with a marker NaN ("poison"), so an element
//           that no thread writes fails.
//   n       1 to 2^28, odd sizes included (a long long in the kernels here;
//           an int would do, since 2^28 fits).
//   check   against a double-precision scan of the same floats, relative
//           tolerance 2e-5: the whole output's error norm must be within
//           2e-5 of the reference's norm, and so must every element's error
//           (within 2e-5 of its own value, or of the output's RMS where the
//           value is small).  FP32 sums differ from the exact ones in their
//           last bits whatever the order of the additions; a missing or extra
//           element, or a block's total added to the wrong block, does not
//           pass.  Fresh random inputs every time.
//   names   every kernel the launcher uses is declared extern "C" __global__,
//           so C++ keeps its name as written.
//
// This first version is correct and slow: the lab's first rung.  Each block of
// blockDim.x threads (a power of two) scans blockDim.x elements in shared
// memory with Kogge-Stone rounds (one element a thread, log2(blockDim.x)
// rounds of additions) and writes its total to sums[blockIdx.x]; the launcher
// scans the totals with the same kernel, then add_offsets adds each block's
// scanned total to the next block.  Ideas for making it faster are in the
// lesson: fewer additions (Brent-Kung), several elements a thread in registers
// with warp shuffles, fewer passes over memory, one pass with a look-back.

extern "C" __global__ void scan_block(const float *in, float *out, float *sums, long long n)
{
    extern __shared__ float buf[];            // 2 * blockDim.x floats, sized by the launcher
    const unsigned int tid = threadIdx.x;
    const long long i = (long long)blockIdx.x * blockDim.x + tid;

    float *src = buf;                         // this round reads src, writes dst
    float *dst = buf + blockDim.x;
    src[tid] = i < n ? in[i] : 0.0f;
    __syncthreads();

    for (unsigned int offset = 1; offset < blockDim.x; offset *= 2) {
        float v = src[tid];
        if (tid >= offset)
            v += src[tid - offset];
        dst[tid] = v;
        __syncthreads();
        float *t = src;
        src = dst;
        dst = t;
    }

    if (i < n)
        out[i] = src[tid];
    if (tid == blockDim.x - 1)
        sums[blockIdx.x] = src[tid];          // the block's total
}

// Block b adds sums[b] (blocks 0..b, once sums is scanned) to block b + 1.
extern "C" __global__ void add_offsets(float *out, const float *sums, long long n)
{
    const long long i = (long long)(blockIdx.x + 1) * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] += sums[blockIdx.x];
}
