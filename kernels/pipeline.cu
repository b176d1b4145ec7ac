// pipeline.cu - the data-pipeline lab's shipped steps (kernels/pipeline.h).
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <stdint.h>

#include "kcommon.cuh"
#include "pipeline.h"

namespace {

constexpr int THREADS = 256;
constexpr int SEL_BINS = 2048;
constexpr int PICK_PER = 4;                  // bins each thread of the pick looks at
constexpr int PICK_THREADS = SEL_BINS / PICK_PER;
constexpr size_t ALIGN = 256;

size_t up(size_t b) { return (b + ALIGN - 1) / ALIGN * ALIGN; }

// Blocks for a grid-stride loop over n items: enough to fill the device a
// few times over, no more than the items need.
unsigned blocks_for(long long n, int per_sm = 8)
{
    static int sms = 0;
    if (sms == 0 && k_sm_count(&sms) != cudaSuccess) sms = 16;
    long long want = (n + THREADS - 1) / THREADS;
    long long cap = (long long)sms * per_sm;
    if (want > cap) want = cap;
    return want < 1 ? 1u : (unsigned)want;
}

__device__ __forceinline__ uint32_t key_of(float f)
{
    uint32_t u = __float_as_uint(f);
    return u ^ ((u >> 31) ? 0xffffffffu : 0x80000000u);
}

__device__ __forceinline__ float unkey(uint32_t k)
{
    return __uint_as_float(k ^ ((k >> 31) ? 0x80000000u : 0xffffffffu));
}

__device__ __forceinline__ long long first_index() { return blockIdx.x * (long long)blockDim.x + threadIdx.x; }
__device__ __forceinline__ long long grid_step() { return (long long)gridDim.x * blockDim.x; }

// ---- fill: radix selection of each column's median ------------------------------------
struct sel_state {
    uint32_t prefix, mask;      // the key bits decided so far
    unsigned long long rank;    // the rank still sought among keys with that prefix
    int done;                   // the column has no values: its median is 0
};

// Histogram of one digit of column blockIdx.y's keys that carry the prefix so far.
__global__ void pipe_select_hist(const float *x, long long stride, long long n,
                                 const sel_state *st, unsigned *hist, int shift, unsigned digits)
{
    __shared__ unsigned h[SEL_BINS];
    const int c = blockIdx.y;
    const sel_state s = st[c];
    for (int i = threadIdx.x; i < SEL_BINS; i += blockDim.x) h[i] = 0;
    __syncthreads();
    const float *col = x + c * stride;
    for (long long i = first_index(); i < n; i += grid_step()) {
        float v = col[i];
        if (isnan(v)) continue;
        uint32_t k = key_of(v);
        if ((k & s.mask) == s.prefix) atomicAdd(&h[(k >> shift) & digits], 1u);
    }
    __syncthreads();
    unsigned *g = hist + (size_t)c * SEL_BINS;
    for (int i = threadIdx.x; i < SEL_BINS; i += blockDim.x)
        if (h[i]) atomicAdd(&g[i], h[i]);
}

// One block a column: the bin holding the sought rank; the histogram is
// cleared for the next pass.  On the first pass the rank is (count - 1) / 2.
__global__ void __launch_bounds__(PICK_THREADS) pipe_select_pick(sel_state *st, unsigned *hist,
                                                                 int shift, unsigned digits,
                                                                 int first)
{
    typedef cub::BlockScan<unsigned long long, PICK_THREADS> scan_t;
    __shared__ typename scan_t::TempStorage tmp;
    const int c = blockIdx.x, t = threadIdx.x;
    unsigned *g = hist + (size_t)c * SEL_BINS + PICK_PER * t;
    unsigned v[PICK_PER];
    unsigned long long mine = 0;
#pragma unroll
    for (int j = 0; j < PICK_PER; j++) {
        v[j] = g[j];
        mine += v[j];
    }
    const sel_state s0 = st[c];   // read by every thread before the scan's barriers
    unsigned long long before = 0, total = 0;
    scan_t(tmp).ExclusiveSum(mine, before, total);
    sel_state s = s0;
    if (first) {
        s.rank = total ? (total - 1) / 2 : 0;
        s.done = total == 0;
    }
    if (!s.done && s.rank >= before && s.rank < before + mine) {
        unsigned long long r = s.rank - before;
        int j = 0;
        while (r >= v[j]) {
            r -= v[j];
            j++;
        }
        st[c].prefix = s.prefix | ((uint32_t)(PICK_PER * t + j) << shift);
        st[c].mask = s.mask | (digits << shift);
        st[c].rank = r;
    }
    if (first && t == 0) st[c].done = s.done;
#pragma unroll
    for (int j = 0; j < PICK_PER; j++) g[j] = 0;
}

__global__ void pipe_fill_gaps(const float *x, float *y, long long stride, const sel_state *st,
                               float *median)
{
    const int c = blockIdx.y;
    const float med = st[c].done ? 0.0f : unkey(st[c].prefix);
    if (blockIdx.x == 0 && threadIdx.x == 0) median[c] = med;
    const float4 *in = reinterpret_cast<const float4 *>(x + c * stride);
    float4 *out = reinterpret_cast<float4 *>(y + c * stride);
    for (long long i = first_index(); i < stride / 4; i += grid_step()) {
        float4 v = in[i];
        v.x = isnan(v.x) ? med : v.x;
        v.y = isnan(v.y) ? med : v.y;
        v.z = isnan(v.z) ? med : v.z;
        v.w = isnan(v.w) ? med : v.w;
        out[i] = v;
    }
}

cudaError_t step_fill(const pipe_bufs *b, cudaStream_t s)
{
    sel_state *st = static_cast<sel_state *>(b->scratch);
    unsigned *hist = reinterpret_cast<unsigned *>(static_cast<char *>(b->scratch) +
                                                  up(PIPE_NUM * sizeof(sel_state)));
    KCHECK(cudaMemsetAsync(b->scratch, 0,
                           up(PIPE_NUM * sizeof(sel_state)) + PIPE_NUM * SEL_BINS * sizeof(unsigned),
                           s));
    static const int shift[3] = {21, 10, 0};
    static const unsigned digits[3] = {2047u, 2047u, 1023u};
    const dim3 grid(blocks_for(b->n, 2), PIPE_NUM);
    for (int p = 0; p < 3; p++) {
        pipe_select_hist<<<grid, THREADS, 0, s>>>(b->num, b->stride, b->n, st, hist, shift[p],
                                                   digits[p]);
        KCHECK_LAUNCH();
        pipe_select_pick<<<PIPE_NUM, PICK_THREADS, 0, s>>>(st, hist, shift[p], digits[p], p == 0);
        KCHECK_LAUNCH();
    }
    pipe_fill_gaps<<<dim3(blocks_for(b->stride / 4, 2), PIPE_NUM), THREADS, 0, s>>>(
        b->num, b->filled, b->stride, st, b->median);
    KCHECK_LAUNCH();
    return cudaSuccess;
}

// ---- filter: the kept rows' numbers with CUB, then one gather ------------------------------
struct keep_row {
    const float *filled;
    long long stride;
    const int32_t *ts;
    __host__ __device__ bool operator()(int i) const
    {
        float fare = filled[i], dist = filled[stride + i], dur = filled[2 * stride + i];
        return fare > 0.0f && dist > 0.0f && dist <= 100.0f && dur > 0.0f && dur <= 300.0f &&
               ts[i] < PIPE_CUTOFF_S;
    }
};

cudaError_t select_rows(void *tmp, size_t &bytes, const pipe_bufs *b, int *idx, cudaStream_t s)
{
    keep_row pred{b->filled, b->stride, b->ts};
    return cub::DeviceSelect::If(tmp, bytes, thrust::counting_iterator<int>(0), idx, b->count,
                                 (int)b->n, pred, s);
}

__global__ void pipe_gather(pipe_bufs b, const int *idx)
{
    const long long m = *b.count, s = b.stride;
    for (long long i = first_index(); i < m; i += grid_step()) {
        const int r = idx[i];
#pragma unroll
        for (int c = 0; c < PIPE_NUM; c++) b.kept_num[c * s + i] = b.filled[c * s + r];
        b.kept_ts[i] = b.ts[r];
        b.kept_pay[i] = b.pay[r];
        b.kept_zone[i] = b.zone[r];
        b.kept_label[i] = b.label[r];
    }
}

cudaError_t step_filter(const pipe_bufs *b, cudaStream_t s)
{
    int *idx = static_cast<int *>(b->scratch);
    size_t off = up((size_t)b->n * sizeof(int)), need = 0;
    cudaError_t err = select_rows(nullptr, need, b, idx, s);
    if (err == cudaSuccess && off + need > b->scratch_bytes) err = cudaErrorInvalidValue;
    if (err == cudaSuccess) err = select_rows(static_cast<char *>(b->scratch) + off, need, b, idx, s);
    if (err != cudaSuccess) {
        k_set_library_error("cub::DeviceSelect::If: %s", cudaGetErrorString(err));
        return err;
    }
    KCHECK_LAUNCH();
    pipe_gather<<<blocks_for(b->n), THREADS, 0, s>>>(*b, idx);
    KCHECK_LAUNCH();
    return cudaSuccess;
}

// ---- transform ---------------------------------------------------------------------------------
__global__ void pipe_transform(pipe_bufs b)
{
    const long long m = *b.count, s = b.stride;
    for (long long i = first_index(); i < m; i += grid_step()) {
#pragma unroll
        for (int c = 0; c < PIPE_NUM; c++) {
            float v = b.kept_num[c * s + i];
            if (c < PIPE_SKEWED) v = fminf(fmaxf(log1pf(v), 0.0f), PIPE_LOG_CLIP);
            b.t[c * s + i] = v;
        }
        const int ts = b.kept_ts[i];
        b.X[8 * s + i] = (float)(ts / 3600 % 24);
        b.X[9 * s + i] = (float)(ts / 86400 % 7);
    }
}

// ---- standardize -------------------------------------------------------------------------------
__global__ void pipe_std_sums(pipe_bufs b, double *sums)
{
    typedef cub::BlockReduce<double, THREADS> reduce_t;
    __shared__ typename reduce_t::TempStorage tmp;
    const long long m = *b.count, s = b.stride;
    double s1[PIPE_NUM], s2[PIPE_NUM];
#pragma unroll
    for (int c = 0; c < PIPE_NUM; c++) s1[c] = s2[c] = 0.0;
    for (long long i = first_index(); i < m; i += grid_step()) {
#pragma unroll
        for (int c = 0; c < PIPE_NUM; c++) {
            double v = (double)b.t[c * s + i];
            s1[c] += v;
            s2[c] += v * v;
        }
    }
#pragma unroll
    for (int c = 0; c < 2 * PIPE_NUM; c++) {
        double v = reduce_t(tmp).Sum(c < PIPE_NUM ? s1[c] : s2[c - PIPE_NUM]);
        if (threadIdx.x == 0) atomicAdd(&sums[c], v);
        __syncthreads();
    }
}

__global__ void pipe_std_apply(pipe_bufs b, const double *sums)
{
    __shared__ float mean[PIPE_NUM], inv[PIPE_NUM];
    const long long m = *b.count, s = b.stride;
    if (threadIdx.x < PIPE_NUM) {
        const int c = threadIdx.x;
        double mu = m ? sums[c] / (double)m : 0.0;
        double var = m ? sums[PIPE_NUM + c] / (double)m - mu * mu : 0.0;
        double sd = var > 0.0 ? sqrt(var) : 0.0;
        mean[c] = (float)mu;
        inv[c] = sd > 0.0 ? (float)(1.0 / sd) : 0.0f;
        if (blockIdx.x == 0) {
            b.stats[c] = (float)mu;
            b.stats[PIPE_NUM + c] = (float)sd;
        }
    }
    __syncthreads();
    for (long long i = first_index(); i < m; i += grid_step()) {
#pragma unroll
        for (int c = 0; c < PIPE_NUM; c++) b.X[c * s + i] = (b.t[c * s + i] - mean[c]) * inv[c];
    }
}

cudaError_t step_standardize(const pipe_bufs *b, cudaStream_t s)
{
    double *sums = static_cast<double *>(b->scratch);
    KCHECK(cudaMemsetAsync(sums, 0, 2 * PIPE_NUM * sizeof(double), s));
    pipe_std_sums<<<blocks_for(b->n, 4), THREADS, 0, s>>>(*b, sums);
    KCHECK_LAUNCH();
    pipe_std_apply<<<blocks_for(b->n), THREADS, 0, s>>>(*b, sums);
    KCHECK_LAUNCH();
    return cudaSuccess;
}

// ---- binning -----------------------------------------------------------------------------------
cudaError_t sort_fares(void *tmp, size_t &bytes, const float *in, float *out, int m, cudaStream_t s)
{
    return cub::DeviceRadixSort::SortKeys(tmp, bytes, in, out, m, 0, 32, s);
}

__global__ void pipe_edges(const float *sorted, const int32_t *count, float *edges)
{
    const long long m = *count;
    const int j = threadIdx.x;
    if (j < PIPE_BINS - 1) edges[j] = m ? sorted[(j + 1) * m / PIPE_BINS] : 0.0f;
}

__global__ void pipe_bins(pipe_bufs b)
{
    __shared__ float e[PIPE_BINS - 1];
    if (threadIdx.x < PIPE_BINS - 1) e[threadIdx.x] = b.edges[threadIdx.x];
    __syncthreads();
    const long long m = *b.count;
    for (long long i = first_index(); i < m; i += grid_step()) {
        const float x = b.kept_num[i];
        int bin = 0;
#pragma unroll
        for (int k = 0; k < PIPE_BINS - 1; k++) bin += e[k] <= x;
        b.X[10 * b.stride + i] = (float)bin;
    }
}

cudaError_t step_binning(const pipe_bufs *b, cudaStream_t s)
{
    int m = 0;
    KCHECK(pipe_kept_rows(b, &m, s));
    float *sorted = static_cast<float *>(b->scratch);
    if (m > 0) {
        size_t off = up((size_t)b->n * sizeof(float)), need = 0;
        cudaError_t err = sort_fares(nullptr, need, b->kept_num, sorted, m, s);
        if (err == cudaSuccess && off + need > b->scratch_bytes) err = cudaErrorInvalidValue;
        if (err == cudaSuccess)
            err = sort_fares(static_cast<char *>(b->scratch) + off, need, b->kept_num, sorted, m, s);
        if (err != cudaSuccess) {
            k_set_library_error("cub::DeviceRadixSort::SortKeys: %s", cudaGetErrorString(err));
            return err;
        }
        KCHECK_LAUNCH();
    }
    pipe_edges<<<1, 32, 0, s>>>(sorted, b->count, b->edges);
    KCHECK_LAUNCH();
    pipe_bins<<<blocks_for(m), THREADS, 0, s>>>(*b);
    KCHECK_LAUNCH();
    return cudaSuccess;
}

// ---- encode ------------------------------------------------------------------------------------
// Each block counts its rows' zones in shared memory, then adds its counts
// to the global histogram: one global atomic a zone a block, not a row.
__global__ void pipe_zone_hist(const int32_t *zone, const int32_t *count, int32_t *counts)
{
    __shared__ int h[PIPE_ZONES];
    for (int i = threadIdx.x; i < PIPE_ZONES; i += blockDim.x) h[i] = 0;
    __syncthreads();
    const long long m = *count;
    for (long long i = first_index(); i < m; i += grid_step()) atomicAdd(&h[zone[i]], 1);
    __syncthreads();
    for (int i = threadIdx.x; i < PIPE_ZONES; i += blockDim.x)
        if (h[i]) atomicAdd(&counts[i], h[i]);
}

__global__ void pipe_encode_cols(pipe_bufs b)
{
    const long long m = *b.count, s = b.stride;
    const float mf = (float)m;
    for (long long i = first_index(); i < m; i += grid_step()) {
        b.X[11 * s + i] = (float)b.counts[b.kept_zone[i]] / mf;
        const int pay = b.kept_pay[i];
#pragma unroll
        for (int p = 0; p < PIPE_PAY; p++) b.X[(12 + p) * s + i] = pay == p ? 1.0f : 0.0f;
    }
}

cudaError_t step_encode(const pipe_bufs *b, cudaStream_t s)
{
    KCHECK(cudaMemsetAsync(b->counts, 0, PIPE_ZONES * sizeof(int32_t), s));
    pipe_zone_hist<<<blocks_for(b->n, 1), 512, 0, s>>>(b->kept_zone, b->count, b->counts);
    KCHECK_LAUNCH();
    pipe_encode_cols<<<blocks_for(b->n), THREADS, 0, s>>>(*b);
    KCHECK_LAUNCH();
    return cudaSuccess;
}

// ---- groupby: sort by zone, reduce by key ----------------------------------------------------
struct sum_count {
    double sum;
    long long count;
};

struct to_sum_count {
    __host__ __device__ sum_count operator()(float v) const { return sum_count{(double)v, 1}; }
};

struct add_sum_count {
    __host__ __device__ sum_count operator()(const sum_count &a, const sum_count &b) const
    {
        return sum_count{a.sum + b.sum, a.count + b.count};
    }
};

struct group_bufs {
    int *keys;
    float *vals;
    int *unique;
    sum_count *aggs;
    int *runs;
    char *tmp;
};

// The groupby's arrays before CUB's temporary storage, in bytes.
size_t group_fixed_bytes(long long n)
{
    return up((size_t)n * sizeof(int)) + up((size_t)n * sizeof(float)) +
           up(PIPE_ZONES * sizeof(int)) + up(PIPE_ZONES * sizeof(sum_count)) + ALIGN;
}

group_bufs group_layout(const pipe_bufs *b)
{
    char *p = static_cast<char *>(b->scratch);
    size_t n = (size_t)b->n;
    group_bufs g;
    g.keys = reinterpret_cast<int *>(p);
    p += up(n * sizeof(int));
    g.vals = reinterpret_cast<float *>(p);
    p += up(n * sizeof(float));
    g.unique = reinterpret_cast<int *>(p);
    p += up(PIPE_ZONES * sizeof(int));
    g.aggs = reinterpret_cast<sum_count *>(p);
    p += up(PIPE_ZONES * sizeof(sum_count));
    g.runs = reinterpret_cast<int *>(p);
    g.tmp = static_cast<char *>(b->scratch) + group_fixed_bytes(b->n);
    return g;
}

cudaError_t sort_zones(void *tmp, size_t &bytes, const pipe_bufs *b, const group_bufs &g, int m,
                       cudaStream_t s)
{
    return cub::DeviceRadixSort::SortPairs(tmp, bytes, b->kept_zone, g.keys, b->kept_label,
                                           g.vals, m, 0, 14, s);
}

cudaError_t reduce_zones(void *tmp, size_t &bytes, const group_bufs &g, int m, cudaStream_t s)
{
    return cub::DeviceReduce::ReduceByKey(
        tmp, bytes, g.keys, g.unique, thrust::make_transform_iterator(g.vals, to_sum_count()),
        g.aggs, g.runs, add_sum_count(), m, s);
}

__global__ void pipe_group_means(const int *unique, const sum_count *aggs, const int *runs,
                                 float *gmean)
{
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < *runs) gmean[unique[r]] = (float)(aggs[r].sum / (double)aggs[r].count);
}

__global__ void pipe_target(pipe_bufs b)
{
    const long long m = *b.count;
    for (long long i = first_index(); i < m; i += grid_step())
        b.X[18 * b.stride + i] = b.gmean[b.kept_zone[i]];
}

cudaError_t step_groupby(const pipe_bufs *b, cudaStream_t s)
{
    int m = 0;
    KCHECK(pipe_kept_rows(b, &m, s));
    KCHECK(cudaMemsetAsync(b->gmean, 0, PIPE_ZONES * sizeof(float), s));
    if (m > 0) {
        group_bufs g = group_layout(b);
        size_t fixed = group_fixed_bytes(b->n);
        size_t room = b->scratch_bytes > fixed ? b->scratch_bytes - fixed : 0;
        size_t need = 0;
        cudaError_t err = sort_zones(nullptr, need, b, g, m, s);
        if (err == cudaSuccess && need > room) err = cudaErrorInvalidValue;
        if (err == cudaSuccess) err = sort_zones(g.tmp, need, b, g, m, s);
        if (err != cudaSuccess) {
            k_set_library_error("cub::DeviceRadixSort::SortPairs: %s", cudaGetErrorString(err));
            return err;
        }
        need = 0;
        err = reduce_zones(nullptr, need, g, m, s);
        if (err == cudaSuccess && need > room) err = cudaErrorInvalidValue;
        if (err == cudaSuccess) err = reduce_zones(g.tmp, need, g, m, s);
        if (err != cudaSuccess) {
            k_set_library_error("cub::DeviceReduce::ReduceByKey: %s", cudaGetErrorString(err));
            return err;
        }
        KCHECK_LAUNCH();
        pipe_group_means<<<(PIPE_ZONES + THREADS - 1) / THREADS, THREADS, 0, s>>>(
            g.unique, g.aggs, g.runs, b->gmean);
        KCHECK_LAUNCH();
    }
    pipe_target<<<blocks_for(m), THREADS, 0, s>>>(*b);
    KCHECK_LAUNCH();
    return cudaSuccess;
}

__global__ void pipe_poison_kernel(uint32_t *p, size_t count, uint32_t bits)
{
    for (long long i = first_index(); i < (long long)count; i += grid_step()) p[i] = bits;
}

} // namespace

// ---- the C interface -------------------------------------------------------------------------

extern "C" size_t pipe_scratch_bytes(long long n)
{
    if (n < 1) return 0;
    pipe_bufs b = {};
    b.n = n;
    size_t sel = up(PIPE_NUM * sizeof(sel_state)) + PIPE_NUM * SEL_BINS * sizeof(unsigned);
    size_t filter = 0, sort = 0, pairs = 0, reduce = 0;
    if (select_rows(nullptr, filter, &b, nullptr, 0) != cudaSuccess ||
        sort_fares(nullptr, sort, nullptr, nullptr, (int)n, 0) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    group_bufs g = {};
    size_t group_fixed = group_fixed_bytes(n);
    if (sort_zones(nullptr, pairs, &b, g, (int)n, 0) != cudaSuccess ||
        reduce_zones(nullptr, reduce, g, (int)n, 0) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    size_t need = sel;
    size_t f = up((size_t)n * sizeof(int)) + filter;
    size_t s = up((size_t)n * sizeof(float)) + sort;
    size_t gr = group_fixed + (pairs > reduce ? pairs : reduce);
    need = f > need ? f : need;
    need = s > need ? s : need;
    need = gr > need ? gr : need;
    return up(need) + ALIGN;
}

extern "C" cudaError_t pipe_kept_rows(const pipe_bufs *b, int *m, cudaStream_t stream)
{
    int32_t h = 0;
    KCHECK(cudaMemcpyAsync(&h, b->count, sizeof h, cudaMemcpyDeviceToHost, stream));
    KCHECK(cudaStreamSynchronize(stream));
    *m = h < 0 ? 0 : h > b->n ? (int)b->n : h;
    return cudaSuccess;
}

extern "C" cudaError_t pipe_gemm_rows(const pipe_bufs *b, int m, cudaStream_t stream)
{
    if (m <= 0) return cudaSuccess;
    return k_cublas_sgemm_cm(m, PIPE_HIDDEN, PIPE_FEATURES, b->X, (int)b->stride, b->W,
                             PIPE_FEATURES, b->Y, (int)b->stride, stream);
}

extern "C" cudaError_t pipe_step(int step, const pipe_bufs *b, cudaStream_t stream)
{
    k_set_library_error("");
    if (!b || b->n < 1 || !b->scratch) return cudaErrorInvalidValue;
    switch (step) {
    case PIPE_FILL: return step_fill(b, stream);
    case PIPE_FILTER: return step_filter(b, stream);
    case PIPE_TRANSFORM:
        pipe_transform<<<blocks_for(b->n), THREADS, 0, stream>>>(*b);
        KCHECK_LAUNCH();
        return cudaSuccess;
    case PIPE_STANDARDIZE: return step_standardize(b, stream);
    case PIPE_BINNING: return step_binning(b, stream);
    case PIPE_ENCODE: return step_encode(b, stream);
    case PIPE_GROUPBY: return step_groupby(b, stream);
    case PIPE_GEMM: {
        int m = 0;
        KCHECK(pipe_kept_rows(b, &m, stream));
        return pipe_gemm_rows(b, m, stream);
    }
    default: return cudaErrorInvalidValue;
    }
}

extern "C" cudaError_t pipe_poison(void *p, size_t count, uint32_t bits, cudaStream_t stream)
{
    if (count == 0) return cudaSuccess;
    pipe_poison_kernel<<<blocks_for((long long)count), THREADS, 0, stream>>>(static_cast<uint32_t *>(p),
                                                                         count, bits);
    KCHECK_LAUNCH();
    return cudaSuccess;
}
