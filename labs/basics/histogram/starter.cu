// starter.cu - your histogram (lab "basics", exercise "histogram", problem
// histogram).
//
// cudalab compiles this file with NVRTC every time you save it and runs it
// through your launcher, starter.lua.  Edit both freely: the lab's copy stays
// untouched, and "reset" keeps yours in a backup folder.
//
// The contract
//   data   n bytes in device memory, uniform random; do not modify them.
//          (The bytes after the first n, up to a multiple of four, are
//          random too: count only the first n.)
//   bins   256 unsigned ints: bins[b] = how many of the n bytes equal b.
//          Before every run cudalab fills them with a marker ("poison"),
//          not with zeros: the launcher zeroes them (args.bins:fill(0)).
//   n      the number of bytes, 1000003 or 2^26 in the lab.
//   check  exact, against counts made on the CPU, fresh data every time.
//   names  every kernel the launcher uses is declared extern "C" __global__.
//
// This first version is correct and slow: every byte is one atomicAdd on
// one of the 256 global counters, and the atomics on one counter are carried
// out one after another.  Make it faster by counting into bins of each
// block's own in shared memory first (privatisation), then adding them to
// the global bins once a block.

extern "C" __global__ void histogram(const unsigned char *data, long long n, unsigned int *bins)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        atomicAdd(&bins[data[i]], 1u);
}
