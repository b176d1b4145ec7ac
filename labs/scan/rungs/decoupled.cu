// decoupled.cu - rung 4 of the scan lab: a single pass with decoupled
// look-back.  Every element is read once and written once (8 bytes an
// element, a copy's traffic); the tiles pass their totals along a chain in a
// small status array instead of in extra passes over the data.
//
// scan_decoupled(in, out, status, ticket, n), grid = ceil(n / TILE) blocks
// of WARPS * 32 threads.  status holds one 64-bit word a tile and ticket one
// int; the launcher zeroes both before every launch (rungs/decoupled.lua).
//
// 1. Tile order.  Thread 0 takes a ticket (atomicAdd on *ticket): tiles are
//    handed out in the order blocks start, not by blockIdx.x.  A block then
//    only ever waits for tiles whose blocks started before it and are
//    therefore running, so the chain always moves.  With blockIdx.x, a
//    running block could spin on a tile whose block was never scheduled
//    because the running blocks hold every SM: a deadlock.
// 2. Local scan.  As in rung 3: rows of 128 elements a warp, four a lane in
//    registers, shuffles across the lanes, warp totals in shared memory.
// 3. Publish and look back (warp 0).  The tile's word in status packs a flag
//    (high 32 bits) with a float (low 32 bits):
//        0  nothing yet
//        1  AGGREGATE: the value is this tile's own total
//        2  PREFIX:    the value is the total of tiles 0 .. this one
//    The tile publishes its aggregate at once, then looks back: lane j reads
//    the word of tile (t - 1 - j), the warp waits until none of the 32 is 0,
//    adds every aggregate up to the nearest PREFIX and that prefix, and stops
//    there; with no PREFIX among the 32 it adds all 32 aggregates and moves
//    32 tiles further back.  Tile 0 publishes its PREFIX at once.  Then the
//    tile publishes PREFIX = what it found + its aggregate.
// 4. Each thread adds what came before its warp and writes its elements.
//
// Memory ordering.  Flag and value travel in one aligned 64-bit word,
// written with one atomicExch and read with one 64-bit volatile load (which
// goes to L2, never to a stale L1 line), so a reader sees either the old
// word or the new one, never a flag without its value.  Nothing else passes
// between blocks, so no fence is needed.  (A flag and a value in two
// separate words would need a __threadfence() between the writes and
// acquire ordering on the read.)
//
// The chain adds the tiles' totals one after another, in FP32: at 2^28 the
// running sum reaches 1.3e8, where one FP32 step is 8, so the rounding of
// 65536 additions adds up to a few hundred.  That is why the last elements of
// this rung differ from the tree-shaped rungs in their last digits.

#define FULL 0xffffffffu
#define WARPS 8
#define ROWS 4
#define TILE (WARPS * ROWS * 128)    // 4096 elements a block

#define FLAG_AGGREGATE 1ull
#define FLAG_PREFIX 2ull

__device__ __forceinline__ float4 load4(const float *p, long long i, long long n)
{
    if (i + 3 < n)
        return *reinterpret_cast<const float4 *>(p + i);
    float4 v;
    v.x = i < n ? p[i] : 0.0f;
    v.y = i + 1 < n ? p[i + 1] : 0.0f;
    v.z = i + 2 < n ? p[i + 2] : 0.0f;
    v.w = i + 3 < n ? p[i + 3] : 0.0f;
    return v;
}

__device__ __forceinline__ void store4(float *p, long long i, long long n, float4 v)
{
    if (i + 3 < n) {
        *reinterpret_cast<float4 *>(p + i) = v;
        return;
    }
    if (i < n)
        p[i] = v.x;
    if (i + 1 < n)
        p[i + 1] = v.y;
    if (i + 2 < n)
        p[i + 2] = v.z;
}

__device__ __forceinline__ float warp_sum(float v)
{
    for (int o = 16; o > 0; o /= 2)
        v += __shfl_xor_sync(FULL, v, o);
    return v;
}

__device__ __forceinline__ float scan_row(float4 &v, float carry, int lane)
{
    v.y += v.x;
    v.z += v.y;
    v.w += v.z;
    float t = v.w;
    for (int o = 1; o < 32; o *= 2) {
        const float left = __shfl_up_sync(FULL, t, o);
        if (lane >= o)
            t += left;
    }
    const float total = __shfl_sync(FULL, t, 31);
    float before = __shfl_up_sync(FULL, t, 1);
    before = (lane == 0 ? 0.0f : before) + carry;
    v.x += before;
    v.y += before;
    v.z += before;
    v.w += before;
    return total;
}

__device__ __forceinline__ unsigned long long pack(unsigned long long flag, float v)
{
    return (flag << 32) | __float_as_uint(v);
}

// The sum of every tile before `tile` (tile >= 1).  The whole of warp 0 calls it.
__device__ float look_back(const unsigned long long *status, long long tile, int lane)
{
    float prefix = 0.0f;
    long long nearest = tile - 1;              // the closest tile not yet counted
    for (;;) {
        const long long p = nearest - lane;
        unsigned long long word;
        do {
            word = p >= 0 ? *(const volatile unsigned long long *)(status + p)
                          : pack(FLAG_PREFIX, 0.0f);   // before tile 0: nothing
        } while (__any_sync(FULL, (word >> 32) == 0));
        const unsigned int prefixes = __ballot_sync(FULL, (word >> 32) == FLAG_PREFIX);
        // Lanes 0 .. stop count: aggregates, then the nearest prefix (if any).
        const int stop = prefixes ? __ffs(prefixes) - 1 : 31;
        const float v = lane <= stop ? __uint_as_float((unsigned int)word) : 0.0f;
        prefix += warp_sum(v);
        if (prefixes)
            return prefix;
        nearest -= 32;
    }
}

extern "C" __global__ void scan_decoupled(const float *in, float *out,
                                          unsigned long long *status, int *ticket,
                                          long long n)
{
    __shared__ int tile_s;
    __shared__ float warp_total[WARPS];
    __shared__ float prefix_s;
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;

    if (threadIdx.x == 0)
        tile_s = atomicAdd(ticket, 1);
    __syncthreads();
    const long long tile = tile_s;
    const long long first = tile * TILE + warp * (ROWS * 128) + lane * 4;

    float4 v[ROWS];
    float carry = 0.0f;
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
        v[r] = load4(in, first + r * 128, n);
        carry += scan_row(v[r], carry, lane);
    }
    if (lane == 0)
        warp_total[warp] = carry;
    __syncthreads();

    float before = 0.0f;                       // warps before this one in the tile
    float aggregate = 0.0f;                    // the whole tile
    for (int w = 0; w < WARPS; ++w) {
        if (w < warp)
            before += warp_total[w];
        aggregate += warp_total[w];
    }

    if (warp == 0) {
        float prefix = 0.0f;
        if (tile == 0) {
            if (lane == 0)
                atomicExch(status, pack(FLAG_PREFIX, aggregate));
        } else {
            if (lane == 0)
                atomicExch(status + tile, pack(FLAG_AGGREGATE, aggregate));
            prefix = look_back(status, tile, lane);
            if (lane == 0)
                atomicExch(status + tile, pack(FLAG_PREFIX, prefix + aggregate));
        }
        if (lane == 0)
            prefix_s = prefix;
    }
    __syncthreads();

    const float add = prefix_s + before;
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
        v[r].x += add;
        v[r].y += add;
        v[r].z += add;
        v[r].w += add;
        store4(out, first + r * 128, n, v[r]);
    }
}
