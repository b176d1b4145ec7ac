// The pipeline's steps, first GPU port.  Every step gives the right
// answer; most are slow on purpose.  The lesson's last step says where to
// start, and lua/exercise.md lists the buffers in args.
//
// The table is stored by columns: numeric column c of a buffer of eight
// starts at c * stride, and so does column j of the feature matrix X.

// A float's bits rearranged so that unsigned order is float order (-0
// before +0): selections run on these keys.
__device__ unsigned key_of(float f)
{
    unsigned u = __float_as_uint(f);
    return u ^ ((u >> 31) ? 0xffffffffu : 0x80000000u);
}

__device__ float unkey(unsigned k)
{
    return __uint_as_float(k ^ ((k >> 31) ? 0x80000000u : 0xffffffffu));
}

// ---- selection: a median, or any rank, eight bits at a time -------------------
// sel holds four words: the key bits decided so far (prefix), which bits
// they are (mask), the rank still sought among keys with that prefix, and
// a flag for "no values at all".

// Counts the next eight bits of every key with the prefix so far, each
// thread adding one to a global counter: with skewed data, most threads
// add to the same few counters and wait for each other.
extern "C" __global__ void sel_hist(const float *x, long long n, const unsigned *sel,
                                    unsigned *hist, int shift)
{
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float v = x[i];
    if (isnan(v))
        return;
    unsigned k = key_of(v);
    if ((k & sel[1]) == sel[0])
        atomicAdd(&hist[(k >> shift) & 255u], 1u);
}

// One thread walks the 256 counters to the one holding the rank, then
// clears them.  median: on the first pass the rank is (count - 1) / 2.
extern "C" __global__ void sel_pick(unsigned *sel, unsigned *hist, int shift, int median)
{
    if (median) {
        unsigned long long total = 0;
        for (int b = 0; b < 256; b++)
            total += hist[b];
        sel[3] = total == 0;
        sel[2] = total ? (unsigned)((total - 1) / 2) : 0u;
    }
    if (!sel[3]) {
        unsigned long long at = 0;
        for (int b = 0; b < 256; b++) {
            if (sel[2] < at + hist[b]) {
                sel[0] |= (unsigned)b << shift;
                sel[1] |= 255u << shift;
                sel[2] -= (unsigned)at;
                break;
            }
            at += hist[b];
        }
    }
    for (int b = 0; b < 256; b++)
        hist[b] = 0;
}

// ---- fill ----------------------------------------------------------------------
extern "C" __global__ void fill_gaps(const float *x, float *y, long long n, const unsigned *sel,
                                     float *median)
{
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    float med = sel[3] ? 0.0f : unkey(sel[0]);
    if (i == 0)
        *median = med;
    if (i < n)
        y[i] = isnan(x[i]) ? med : x[i];
}

// ---- filter --------------------------------------------------------------------
extern "C" __global__ void keep_flags(const float *filled, const int *ts, long long stride,
                                      long long n, int *flags)
{
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float fare = filled[i], dist = filled[stride + i], dur = filled[2 * stride + i];
    flags[i] = fare > 0.0f && dist > 0.0f && dist <= 100.0f && dur > 0.0f && dur <= 300.0f &&
               ts[i] < 274 * 86400;
}

// pos[i] = the number of kept rows before row i, and *count = all of them:
// one block of 1024 threads scans the whole table, one tile after another,
// while the rest of the GPU has nothing to do.
extern "C" __global__ void scan_one_block(const int *flags, long long n, int *pos, int *count)
{
    __shared__ int s[1024];
    int carry = 0;
    for (long long base = 0; base < n; base += 1024) {
        long long i = base + threadIdx.x;
        int f = i < n ? flags[i] : 0;
        s[threadIdx.x] = f;
        __syncthreads();
        for (int off = 1; off < 1024; off *= 2) {
            int v = threadIdx.x >= off ? s[threadIdx.x - off] : 0;
            __syncthreads();
            s[threadIdx.x] += v;
            __syncthreads();
        }
        if (i < n)
            pos[i] = carry + s[threadIdx.x] - f;
        carry += s[1023];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        *count = carry;
}

extern "C" __global__ void scatter_rows(const int *flags, const int *pos, long long n,
                                        long long stride, const float *filled, const int *ts,
                                        const int *pay, const int *zone, const float *label,
                                        float *kept_num, int *kept_ts, int *kept_pay,
                                        int *kept_zone, float *kept_label)
{
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= n || !flags[i])
        return;
    long long o = pos[i];
    for (int c = 0; c < 8; c++)
        kept_num[c * stride + o] = filled[c * stride + i];
    kept_ts[o] = ts[i];
    kept_pay[o] = pay[i];
    kept_zone[o] = zone[i];
    kept_label[o] = label[i];
}

// ---- transform -----------------------------------------------------------------
// log1p in double precision: exact enough, and on most GPUs many times
// slower than log1pf.
extern "C" __global__ void transform_rows(const float *kept_num, const int *kept_ts,
                                          long long stride, long long m, float *t, float *X)
{
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= m)
        return;
    for (int c = 0; c < 8; c++) {
        float v = kept_num[c * stride + i];
        if (c < 4) {
            double y = log1p((double)v);
            v = (float)(y < 0.0 ? 0.0 : y > 5.0 ? 5.0 : y);
        }
        t[c * stride + i] = v;
    }
    int ts = kept_ts[i];
    X[8 * stride + i] = (float)(ts / 3600 % 24);
    X[9 * stride + i] = (float)(ts / 86400 % 7);
}

// ---- standardize ---------------------------------------------------------------
// One block per column: eight blocks on a GPU with a hundred
// multiprocessors, each walking down millions of rows.
extern "C" __global__ void column_stats(const float *t, long long stride, long long m,
                                        float *stats)
{
    __shared__ double s1[256], s2[256];
    int c = blockIdx.x;
    double a = 0.0, b = 0.0;
    for (long long r = threadIdx.x; r < m; r += blockDim.x) {
        double v = t[c * stride + r];
        a += v;
        b += v * v;
    }
    s1[threadIdx.x] = a;
    s2[threadIdx.x] = b;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) {
            s1[threadIdx.x] += s1[threadIdx.x + half];
            s2[threadIdx.x] += s2[threadIdx.x + half];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        double mean = m ? s1[0] / (double)m : 0.0;
        double var = m ? s2[0] / (double)m - mean * mean : 0.0;
        stats[c] = (float)mean;
        stats[8 + c] = var > 0.0 ? (float)sqrt(var) : 0.0f;
    }
}

extern "C" __global__ void zscores(const float *t, const float *stats, long long stride,
                                   long long m, float *X)
{
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= 8 * m)
        return;
    int c = (int)(i / m);
    long long r = i % m;
    float sd = stats[8 + c];
    X[c * stride + r] = sd > 0.0f ? (t[c * stride + r] - stats[c]) / sd : 0.0f;
}

// ---- binning -------------------------------------------------------------------
extern "C" __global__ void store_edge(const unsigned *sel, float *edge)
{
    *edge = unkey(sel[0]);
}

extern "C" __global__ void bins(const float *fare, const float *edges, long long stride,
                                long long m, float *X)
{
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= m)
        return;
    int b = 0;
    for (int k = 0; k < 15; k++)
        b += edges[k] <= fare[i];
    X[10 * stride + i] = (float)b;
}

// ---- encode ----------------------------------------------------------------------
// Every row adds one to its zone's global counter: the busiest zones'
// counters are fought over.
extern "C" __global__ void zone_counts(const int *zone, long long m, int *counts)
{
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < m)
        atomicAdd(&counts[zone[i]], 1);
}

extern "C" __global__ void encode_cols(const int *zone, const int *pay, const int *counts,
                                       long long stride, long long m, float *X)
{
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= m)
        return;
    X[11 * stride + i] = (float)counts[zone[i]] / (float)m;
    for (int p = 0; p < 6; p++)
        X[(12 + p) * stride + i] = pay[i] == p ? 1.0f : 0.0f;
}

// ---- groupby ---------------------------------------------------------------------
extern "C" __global__ void zone_sums(const int *zone, const float *label, long long m,
                                     double *sum, int *count)
{
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= m)
        return;
    atomicAdd(&sum[zone[i]], (double)label[i]);
    atomicAdd(&count[zone[i]], 1);
}

extern "C" __global__ void zone_means(const double *sum, const int *count, float *gmean)
{
    int z = blockIdx.x * blockDim.x + threadIdx.x;
    if (z < 10000)
        gmean[z] = count[z] ? (float)(sum[z] / count[z]) : 0.0f;
}

extern "C" __global__ void target_encode(const int *zone, const float *gmean, long long stride,
                                         long long m, float *X)
{
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < m)
        X[18 * stride + i] = gmean[zone[i]];
}
