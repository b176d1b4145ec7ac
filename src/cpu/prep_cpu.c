#include "cpu/prep_cpu.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/parallel.h"
#include "cpu/prep_algo.h"
#include "cpu/prep_file.h"

/* Fewer rows than this per thread do not pay for the thread. */
#define MIN_ROWS 65536.0
#define MAX_PARTS 256

typedef float v4f __attribute__((vector_size(16)));

static int parts_for(int threads, int64_t rows)
{
    int p = parallel_threads(threads, (double)rows, MIN_ROWS);
    return p > MAX_PARTS ? MAX_PARTS : p;
}

static void rows_of(int64_t n, int part, int nparts, int64_t *a, int64_t *b)
{
    *a = n * part / nparts;
    *b = n * (part + 1) / nparts;
}

bool prep_cpu_load(prep_state *st, const char *path, int threads, cl_err *err)
{
    return prep_file_read(path, st->raw_block, st->n, threads, err);
}

/* ---- fill ------------------------------------------------------------------------ */

typedef struct fill_job {
    prep_state *st;
    int64_t count[MAX_PARTS][PREP_NUM];   /* values present, a part and column */
} fill_job;

static void count_part(void *ctx, int part, int nparts)
{
    fill_job *j = ctx;
    const prep_state *st = j->st;
    int64_t a, b;
    rows_of(st->n, part, nparts, &a, &b);
    for (int c = 0; c < PREP_NUM; c++) {
        const float *x = st->raw.num + c * st->stride;
        int64_t k = 0;
        for (int64_t i = a; i < b; i++)
            k += x[i] == x[i];
        j->count[part][c] = k;
    }
}

static void fill_part(void *ctx, int part, int nparts)
{
    prep_state *st = ((fill_job *)ctx)->st;
    int64_t a, b, s = st->stride;
    rows_of(st->n, part, nparts, &a, &b);
    for (int c = 0; c < PREP_NUM; c++) {
        const float *x = st->raw.num + c * s;
        float *y = st->filled + c * s, med = st->median[c];
        for (int64_t i = a; i < b; i++)
            y[i] = x[i] != x[i] ? med : x[i];
    }
}

void prep_cpu_fill(prep_state *st, int threads)
{
    fill_job *j = malloc(sizeof *j);
    int parts = j ? parts_for(threads, st->n) : 1;
    fill_job one;
    if (!j)
        j = &one;
    j->st = st;
    if (parts > 1)
        parallel_run(parts, count_part, j);
    for (int c = 0; c < PREP_NUM; c++) {
        const float *x = st->raw.num + c * st->stride;
        if (parts == 1) {
            uint32_t *keys = st->scratch;
            size_t cnt = 0;
            for (int64_t i = 0; i < st->n; i++) {
                keys[cnt] = prep_key(x[i]);
                cnt += x[i] == x[i];
            }
            st->median[c] = cnt ? prep_unkey(prep_select(keys, cnt, (cnt - 1) / 2)) : 0.0f;
            continue;
        }
        int64_t cnt = 0;
        for (int p = 0; p < parts; p++)
            cnt += j->count[p][c];
        if (cnt == 0) {
            st->median[c] = 0.0f;
            continue;
        }
        size_t r = (size_t)(cnt - 1) / 2;
        uint32_t k;
        prep_hist_select(x, (size_t)st->n, &r, 1, &k, parts);
        st->median[c] = prep_unkey(k);
    }
    parallel_run(parts, fill_part, j);
    if (j != &one)
        free(j);
}

/* ---- filter ------------------------------------------------------------------------ */

typedef struct filter_job {
    prep_state *st;
    int64_t start[MAX_PARTS];   /* pass 1: rows a part keeps; pass 2: where it writes */
    bool write;
} filter_job;

static void filter_part(void *ctx, int part, int nparts)
{
    filter_job *j = ctx;
    prep_state *st = j->st;
    int64_t a, b, s = st->stride;
    rows_of(st->n, part, nparts, &a, &b);
    const float *fare = st->filled, *dist = st->filled + s, *dur = st->filled + 2 * s;
    const int32_t *ts = st->raw.ts;
    if (!j->write) {
        int64_t k = 0;
        for (int64_t i = a; i < b; i++)
            k += prep_keep(fare[i], dist[i], dur[i], ts[i]);
        j->start[part] = k;
        return;
    }
    int64_t o = j->start[part];
    if (nparts == 1) {
        /* one pass, no branch: every row is written, the next one over it
         * unless it is kept (row i lands at or before i: in bounds) */
        for (int64_t i = a; i < b; i++) {
            for (int c = 0; c < PREP_NUM; c++)
                st->kept.num[c * s + o] = st->filled[c * s + i];
            st->kept.ts[o] = ts[i];
            st->kept.pay[o] = st->raw.pay[i];
            st->kept.zone[o] = st->raw.zone[i];
            st->kept.label[o] = st->raw.label[i];
            o += prep_keep(fare[i], dist[i], dur[i], ts[i]);
        }
        st->m = o;
        return;
    }
    for (int64_t i = a; i < b; i++) {
        if (!prep_keep(fare[i], dist[i], dur[i], ts[i]))
            continue;
        for (int c = 0; c < PREP_NUM; c++)
            st->kept.num[c * s + o] = st->filled[c * s + i];
        st->kept.ts[o] = ts[i];
        st->kept.pay[o] = st->raw.pay[i];
        st->kept.zone[o] = st->raw.zone[i];
        st->kept.label[o] = st->raw.label[i];
        o++;
    }
}

void prep_cpu_filter(prep_state *st, int threads)
{
    filter_job j;
    memset(&j, 0, sizeof j);
    j.st = st;
    int parts = parts_for(threads, st->n);
    if (parts == 1) {
        j.write = true;
        filter_part(&j, 0, 1);
        return;
    }
    parallel_run(parts, filter_part, &j);
    int64_t at = 0;
    for (int p = 0; p < parts; p++) {
        int64_t k = j.start[p];
        j.start[p] = at;
        at += k;
    }
    st->m = at;
    j.write = true;
    parallel_run(parts, filter_part, &j);
}

/* ---- transform ----------------------------------------------------------------------- */

static void transform_part(void *ctx, int part, int nparts)
{
    prep_state *st = ctx;
    int64_t a, b, s = st->stride;
    rows_of(st->m, part, nparts, &a, &b);
    for (int c = 0; c < PREP_NUM; c++) {
        const float *x = st->kept.num + c * s + a;
        float *y = st->t + c * s + a;
        if (c < PREP_SKEWED)
            prep_log1p_clip(x, y, (size_t)(b - a), PREP_LOG_CLIP);
        else
            memcpy(y, x, (size_t)(b - a) * sizeof *y);
    }
    float *hour = st->X + PREP_X_HOUR * s, *dow = st->X + PREP_X_DOW * s;
    for (int64_t i = a; i < b; i++) {
        int32_t ts = st->kept.ts[i];
        hour[i] = (float)(ts / 3600 % 24);
        dow[i] = (float)(ts / PREP_DAY % 7);
    }
}

void prep_cpu_transform(prep_state *st, int threads)
{
    parallel_run(parts_for(threads, st->m), transform_part, st);
}

/* ---- standardize ----------------------------------------------------------------------- */

typedef struct std_job {
    prep_state *st;
    double sum[MAX_PARTS][2 * PREP_NUM];   /* sums, then sums of squares, a part */
    float mean[PREP_NUM], inv[PREP_NUM];
    bool write;
} std_job;

static void std_part(void *ctx, int part, int nparts)
{
    std_job *j = ctx;
    prep_state *st = j->st;
    int64_t a, b, s = st->stride;
    rows_of(st->m, part, nparts, &a, &b);
    for (int c = 0; c < PREP_NUM; c++) {
        const float *x = st->t + c * s;
        if (!j->write) {
            double s1[4] = {0}, s2[4] = {0};
            int64_t i = a;
            for (; i + 4 <= b; i += 4)
                for (int k = 0; k < 4; k++) {
                    double d = (double)x[i + k];
                    s1[k] += d;
                    s2[k] += d * d;
                }
            for (; i < b; i++) {
                double d = (double)x[i];
                s1[0] += d;
                s2[0] += d * d;
            }
            j->sum[part][c] = (s1[0] + s1[1]) + (s1[2] + s1[3]);
            j->sum[part][PREP_NUM + c] = (s2[0] + s2[1]) + (s2[2] + s2[3]);
            continue;
        }
        float *z = st->X + (PREP_X_Z + c) * s;
        v4f vm = (v4f){0} + j->mean[c], vi = (v4f){0} + j->inv[c];
        int64_t i = a;
        for (; i + 4 <= b; i += 4) {
            v4f v;
            memcpy(&v, x + i, sizeof v);
            v = (v - vm) * vi;
            memcpy(z + i, &v, sizeof v);
        }
        for (; i < b; i++)
            z[i] = (x[i] - j->mean[c]) * j->inv[c];
    }
}

void prep_cpu_standardize(prep_state *st, int threads)
{
    std_job *j = calloc(1, sizeof *j);
    if (!j)
        return;
    j->st = st;
    int parts = parts_for(threads, st->m);
    parallel_run(parts, std_part, j);
    for (int c = 0; c < PREP_NUM; c++) {
        double s1 = 0.0, s2 = 0.0;
        for (int p = 0; p < parts; p++) {
            s1 += j->sum[p][c];
            s2 += j->sum[p][PREP_NUM + c];
        }
        double mean = st->m ? s1 / (double)st->m : 0.0;
        double var = st->m ? s2 / (double)st->m - mean * mean : 0.0;
        double sd = var > 0.0 ? sqrt(var) : 0.0;
        st->stats[c] = (float)mean;
        st->stats[PREP_NUM + c] = (float)sd;
        j->mean[c] = (float)mean;
        j->inv[c] = sd > 0.0 ? (float)(1.0 / sd) : 0.0f;
    }
    j->write = true;
    parallel_run(parts, std_part, j);
    free(j);
}

/* ---- binning ---------------------------------------------------------------------------- */

/* How many of the PREP_EDGES sorted edges are <= x: a branch-free binary
 * search over the edges padded with +inf to 16. */
static inline int bin_of(const float *e16, float x)
{
    int pos = 0;
    pos += (e16[pos + 7] <= x) * 8;
    pos += (e16[pos + 3] <= x) * 4;
    pos += (e16[pos + 1] <= x) * 2;
    pos += (e16[pos] <= x) * 1;
    return pos;
}

typedef struct bin_job {
    prep_state *st;
    float e16[16];
} bin_job;

static void keys_part(void *ctx, int part, int nparts)
{
    prep_state *st = ((bin_job *)ctx)->st;
    int64_t a, b;
    rows_of(st->m, part, nparts, &a, &b);
    uint32_t *keys = st->scratch;
    for (int64_t i = a; i < b; i++)
        keys[i] = prep_key(st->kept.num[i]);
}

static void bins_part(void *ctx, int part, int nparts)
{
    bin_job *j = ctx;
    prep_state *st = j->st;
    int64_t a, b;
    rows_of(st->m, part, nparts, &a, &b);
    float *out = st->X + PREP_X_BIN * st->stride;
    for (int64_t i = a; i < b; i++)
        out[i] = (float)bin_of(j->e16, st->kept.num[i]);
}

void prep_cpu_binning(prep_state *st, int threads)
{
    bin_job j = {st, {0}};
    int parts = parts_for(threads, st->m);
    uint32_t *keys = st->scratch;
    parallel_run(parts, keys_part, &j);
    const uint32_t *sorted = prep_radix_sort(keys, keys + st->stride, (size_t)st->m, parts);
    for (int k = 0; k < PREP_EDGES; k++)
        st->edges[k] = st->m ? prep_unkey(sorted[(k + 1) * st->m / PREP_BINS]) : 0.0f;
    memcpy(j.e16, st->edges, sizeof st->edges);
    j.e16[15] = INFINITY;
    parallel_run(parts, bins_part, &j);
}

/* ---- encode and groupby ------------------------------------------------------------------- */

typedef struct zone_job {
    prep_state *st;
    int parts;
    int32_t *count;             /* PREP_ZONES a part */
    double *sum;                /* PREP_ZONES a part (groupby) */
    bool second;
} zone_job;

static void encode_part(void *ctx, int part, int nparts)
{
    zone_job *j = ctx;
    prep_state *st = j->st;
    int64_t a, b, s = st->stride;
    rows_of(st->m, part, nparts, &a, &b);
    const int32_t *zone = st->kept.zone;
    if (!j->second) {
        int32_t *h = j->count + (size_t)part * PREP_ZONES;
        memset(h, 0, PREP_ZONES * sizeof *h);
        for (int64_t i = a; i < b; i++)
            h[zone[i]]++;
        return;
    }
    float mf = (float)st->m;
    float *freq = st->X + PREP_X_FREQ * s;
    for (int64_t i = a; i < b; i++)
        freq[i] = (float)st->counts[zone[i]] / mf;
    for (int p = 0; p < PREP_PAY; p++) {
        float *hot = st->X + (PREP_X_PAY + p) * s;
        for (int64_t i = a; i < b; i++)
            hot[i] = st->kept.pay[i] == p ? 1.0f : 0.0f;
    }
}

void prep_cpu_encode(prep_state *st, int threads)
{
    int parts = parts_for(threads, st->m);
    zone_job j = {.st = st, .parts = parts,
                  .count = malloc((size_t)parts * PREP_ZONES * sizeof(int32_t)), .sum = NULL,
                  .second = false};
    if (!j.count)
        return;
    parallel_run(parts, encode_part, &j);
    for (int z = 0; z < PREP_ZONES; z++) {
        int32_t c = 0;
        for (int p = 0; p < parts; p++)
            c += j.count[(size_t)p * PREP_ZONES + z];
        st->counts[z] = c;
    }
    j.second = true;
    parallel_run(parts, encode_part, &j);
    free(j.count);
}

static void groupby_part(void *ctx, int part, int nparts)
{
    zone_job *j = ctx;
    prep_state *st = j->st;
    int64_t a, b;
    rows_of(st->m, part, nparts, &a, &b);
    const int32_t *zone = st->kept.zone;
    if (!j->second) {
        int32_t *h = j->count + (size_t)part * PREP_ZONES;
        double *sum = j->sum + (size_t)part * PREP_ZONES;
        memset(h, 0, PREP_ZONES * sizeof *h);
        memset(sum, 0, PREP_ZONES * sizeof *sum);
        for (int64_t i = a; i < b; i++) {
            h[zone[i]]++;
            sum[zone[i]] += (double)st->kept.label[i];
        }
        return;
    }
    float *te = st->X + PREP_X_TARGET * st->stride;
    for (int64_t i = a; i < b; i++)
        te[i] = st->gmean[zone[i]];
}

void prep_cpu_groupby(prep_state *st, int threads)
{
    int parts = parts_for(threads, st->m);
    zone_job j = {.st = st, .parts = parts,
                  .count = malloc((size_t)parts * PREP_ZONES * sizeof(int32_t)),
                  .sum = malloc((size_t)parts * PREP_ZONES * sizeof(double)), .second = false};
    if (!j.count || !j.sum) {
        free(j.count);
        free(j.sum);
        return;
    }
    parallel_run(parts, groupby_part, &j);
    for (int z = 0; z < PREP_ZONES; z++) {
        int64_t c = 0;
        double sum = 0.0;
        for (int p = 0; p < parts; p++) {
            c += j.count[(size_t)p * PREP_ZONES + z];
            sum += j.sum[(size_t)p * PREP_ZONES + z];
        }
        st->gmean[z] = c ? (float)(sum / (double)c) : 0.0f;
    }
    j.second = true;
    parallel_run(parts, groupby_part, &j);
    free(j.count);
    free(j.sum);
}

/* ---- gemm ------------------------------------------------------------------------------------ */

static void gemm_part(void *ctx, int part, int nparts)
{
    prep_state *st = ctx;
    int64_t a, b;
    rows_of(st->m, part, nparts, &a, &b);
    prep_gemm_rows(st->X, st->stride, st->W, st->Y, a, b);
}

void prep_cpu_gemm(prep_state *st, int threads)
{
    parallel_run(parts_for(threads, st->m), gemm_part, st);
}

bool prep_cpu_step(prep_state *st, prep_step step, const char *path, int threads, cl_err *err)
{
    switch (step) {
    case PREP_LOAD: return prep_cpu_load(st, path, threads, err);
    case PREP_FILL: prep_cpu_fill(st, threads); return true;
    case PREP_FILTER: prep_cpu_filter(st, threads); return true;
    case PREP_TRANSFORM: prep_cpu_transform(st, threads); return true;
    case PREP_STANDARDIZE: prep_cpu_standardize(st, threads); return true;
    case PREP_BINNING: prep_cpu_binning(st, threads); return true;
    case PREP_ENCODE: prep_cpu_encode(st, threads); return true;
    case PREP_GROUPBY: prep_cpu_groupby(st, threads); return true;
    case PREP_GEMM: prep_cpu_gemm(st, threads); return true;
    default: return err_set(err, "no step %d", (int)step);
    }
}
