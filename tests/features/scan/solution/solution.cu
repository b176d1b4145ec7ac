// solution.cu - a reference solution of the scan exercise: one pass over
// memory, tiles chained by a decoupled look-back.
//
// scan_onepass(in, out, state, counter, n): one block of THREADS threads a
// tile of TILE elements; state holds a 64-bit word a tile and counter one
// unsigned int, both zeroed by the launcher before each launch.
//
//   - The tile number comes from atomicAdd(counter): tiles start in order, so
//     a tile only waits for tiles that are already running.
//   - Each thread owns ITEMS consecutive elements (two 16-byte loads), scans
//     them in registers, and the warp scans the threads' totals with
//     __shfl_up_sync; warp 0 scans the warps' totals.
//   - Warp 0 publishes the tile's total (flag 1), looks back over the
//     previous tiles' words 32 at a time, adding totals until it meets an
//     inclusive prefix (flag 2), then publishes its own inclusive prefix.
//     Flag and value share one 64-bit word, written with atomicExch and read
//     with a volatile load, so a reader never sees one without the other.

#define FULL 0xffffffffu
#define THREADS 512
#define WARPS (THREADS / 32)
#define ITEMS 8
#define TILE (THREADS * ITEMS)

#define HAS_TOTAL 1ull
#define HAS_PREFIX 2ull

__device__ __forceinline__ unsigned long long word(unsigned long long flag, float v)
{
    return (flag << 32) | __float_as_uint(v);
}

// Inclusive scan of v over the warp's lanes.
__device__ __forceinline__ float warp_inclusive(float v, int lane)
{
#pragma unroll
    for (int o = 1; o < 32; o *= 2) {
        const float u = __shfl_up_sync(FULL, v, o);
        if (lane >= o)
            v += u;
    }
    return v;
}

// The sum of every tile before `tile` (tile >= 1), computed by warp 0: lane i
// waits for the word of tile (tile - 1 - i), then the warp adds every total
// up to the nearest inclusive prefix; with none among its 32 tiles it adds
// all 32 and looks 32 tiles further back.
__device__ float prefix_before(const unsigned long long *state, long long tile, int lane)
{
    float sum = 0.0f;
    for (long long j = tile - 1 - lane;; j -= 32) {
        unsigned long long w = word(HAS_PREFIX, 0.0f);      // before tile 0: nothing
        if (j >= 0) {
            do {
                w = *(const volatile unsigned long long *)(state + j);
            } while ((w >> 32) == 0);
        }
        const unsigned int prefixes = __ballot_sync(FULL, (w >> 32) == HAS_PREFIX);
        const int last = prefixes ? __ffs(prefixes) - 1 : 31;
        float v = lane <= last ? __uint_as_float((unsigned int)w) : 0.0f;
#pragma unroll
        for (int o = 16; o > 0; o /= 2)
            v += __shfl_xor_sync(FULL, v, o);
        sum += v;
        if (prefixes)
            return sum;
    }
}

extern "C" __global__ void __launch_bounds__(THREADS)
scan_onepass(const float *in, float *out, unsigned long long *state, unsigned int *counter,
             long long n)
{
    __shared__ unsigned int tile_s;
    __shared__ float warp_s[WARPS];
    __shared__ float prefix_s;
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;

    if (tid == 0)
        tile_s = atomicAdd(counter, 1u);
    __syncthreads();
    const long long tile = tile_s;
    const long long first = tile * TILE + (long long)tid * ITEMS;

    float x[ITEMS];
    if (first + ITEMS <= n) {
        const float4 a = *reinterpret_cast<const float4 *>(in + first);
        const float4 b = *reinterpret_cast<const float4 *>(in + first + 4);
        x[0] = a.x; x[1] = a.y; x[2] = a.z; x[3] = a.w;
        x[4] = b.x; x[5] = b.y; x[6] = b.z; x[7] = b.w;
    } else {
#pragma unroll
        for (int i = 0; i < ITEMS; ++i)
            x[i] = first + i < n ? in[first + i] : 0.0f;
    }

#pragma unroll
    for (int i = 1; i < ITEMS; ++i)
        x[i] += x[i - 1];
    const float incl = warp_inclusive(x[ITEMS - 1], lane);
    float before = __shfl_up_sync(FULL, incl, 1);
    if (lane == 0)
        before = 0.0f;
    if (lane == 31)
        warp_s[warp] = incl;
    __syncthreads();

    if (warp == 0) {
        const float w = lane < WARPS ? warp_s[lane] : 0.0f;
        const float w_incl = warp_inclusive(w, lane);
        const float tile_total = __shfl_sync(FULL, w_incl, WARPS - 1);
        float w_before = __shfl_up_sync(FULL, w_incl, 1);
        if (lane < WARPS)
            warp_s[lane] = lane == 0 ? 0.0f : w_before;   // each warp's offset in the tile
        float p = 0.0f;
        if (tile == 0) {
            if (lane == 0)
                atomicExch(state, word(HAS_PREFIX, tile_total));
        } else {
            if (lane == 0)
                atomicExch(state + tile, word(HAS_TOTAL, tile_total));
            p = prefix_before(state, tile, lane);
            if (lane == 0)
                atomicExch(state + tile, word(HAS_PREFIX, p + tile_total));
        }
        if (lane == 0)
            prefix_s = p;
    }
    __syncthreads();

    const float add = prefix_s + warp_s[warp] + before;
#pragma unroll
    for (int i = 0; i < ITEMS; ++i)
        x[i] += add;
    if (first + ITEMS <= n) {
        *reinterpret_cast<float4 *>(out + first) = make_float4(x[0], x[1], x[2], x[3]);
        *reinterpret_cast<float4 *>(out + first + 4) = make_float4(x[4], x[5], x[6], x[7]);
    } else {
#pragma unroll
        for (int i = 0; i < ITEMS; ++i)
            if (first + i < n)
                out[first + i] = x[i];
    }
}
