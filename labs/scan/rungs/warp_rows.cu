// warp_rows.cu - rung 3 of the scan lab: several elements a thread in
// registers, warp shuffles instead of shared-memory rounds, and the
// reduce-then-scan order of passes (rungs/warp_rows.lua):
//
//   tile_totals   each block sums its tile of TILE elements into sums[b];
//   scan_totals   one block scans sums in place (inclusive);
//   scan_tiles    each block scans its tile again, adds sums[b - 1], writes.
//
// The input is read twice and the output written once: 12 bytes an element,
// where rungs 1 and 2 move 16.
//
// Inside a block: a block of WARPS warps owns a tile of WARPS * ROWS rows of
// 128 elements, each warp ROWS consecutive rows.  A lane loads four
// consecutive elements of a row with one 16-byte load (the 32 lanes read 512
// contiguous bytes: fully coalesced), adds them up in its registers (three
// additions), and the warp scans the 32 lane totals with five shuffles.
// Each row starts from the total of the warp's rows before it (carry).  Then
// the warps' totals meet in shared memory, once a tile: one barrier where
// rung 1 needed ten.
//
// Loads and stores of four floats need 16-byte alignment: cudalab's buffers
// start on 256-byte boundaries and every group of four starts at a multiple
// of four elements.  The last, partial group of a tile is read and written
// one float at a time.

#define FULL 0xffffffffu
#define WARPS 8                      // warps a block (tile_totals, scan_tiles)
#define ROWS 4                       // rows of 128 elements a warp
#define TILE (WARPS * ROWS * 128)    // 4096 elements a block

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
    return v;                        // every lane holds the sum
}

// v holds elements 4 * lane .. 4 * lane + 3 of a row of 128.  Replaces them
// with carry + the inclusive scan of the row, and returns the row's total
// (the same in every lane).  The whole warp calls it.
__device__ __forceinline__ float scan_row(float4 &v, float carry, int lane)
{
    v.y += v.x;
    v.z += v.y;
    v.w += v.z;
    float t = v.w;                   // this lane's total
    for (int o = 1; o < 32; o *= 2) {
        const float left = __shfl_up_sync(FULL, t, o);
        if (lane >= o)
            t += left;               // t: lanes 0..lane
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

extern "C" __global__ void tile_totals(const float *in, float *sums, long long n)
{
    __shared__ float warp_total[WARPS];
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    const long long first = (long long)blockIdx.x * TILE + warp * (ROWS * 128) + lane * 4;

    float s = 0.0f;
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
        const float4 v = load4(in, first + r * 128, n);
        s += (v.x + v.y) + (v.z + v.w);
    }
    s = warp_sum(s);
    if (lane == 0)
        warp_total[warp] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        float t = 0.0f;
        for (int w = 0; w < WARPS; ++w)
            t += warp_total[w];
        sums[blockIdx.x] = t;
    }
}

// One block of blockDim.x threads (a multiple of 32, at most 1024) scans
// sums[0 .. count - 1] in place, one row of 128 a warp per round.
extern "C" __global__ void scan_totals(float *sums, long long count)
{
    __shared__ float warp_total[32];
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    const int warps = blockDim.x >> 5;

    float carry = 0.0f;                         // the same in every thread
    for (long long base = 0; base < count; base += (long long)warps * 128) {
        const long long i = base + warp * 128 + lane * 4;
        float4 v = load4(sums, i, count);
        const float total = scan_row(v, 0.0f, lane);
        if (lane == 0)
            warp_total[warp] = total;
        __syncthreads();
        float before = carry;                   // rows of earlier warps this round
        for (int w = 0; w < warp; ++w)
            before += warp_total[w];
        float round = 0.0f;
        for (int w = 0; w < warps; ++w)
            round += warp_total[w];
        v.x += before;
        v.y += before;
        v.z += before;
        v.w += before;
        store4(sums, i, count, v);
        carry += round;
        __syncthreads();                        // warp_total is rewritten next round
    }
}

extern "C" __global__ void scan_tiles(const float *in, float *out, const float *sums,
                                      long long n)
{
    __shared__ float warp_total[WARPS];
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    const long long first = (long long)blockIdx.x * TILE + warp * (ROWS * 128) + lane * 4;

    float4 v[ROWS];
    float carry = 0.0f;
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
        v[r] = load4(in, first + r * 128, n);
        carry += scan_row(v[r], carry, lane);   // carry: this warp's rows so far
    }
    if (lane == 0)
        warp_total[warp] = carry;
    __syncthreads();

    float add = blockIdx.x > 0 ? sums[blockIdx.x - 1] : 0.0f;   // tiles before this one
    for (int w = 0; w < warp; ++w)
        add += warp_total[w];                                  // warps before this one
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
        v[r].x += add;
        v[r].y += add;
        v[r].z += add;
        v[r].w += add;
        store4(out, first + r * 128, n, v[r]);
    }
}
