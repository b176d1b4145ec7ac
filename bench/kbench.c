/* kbench.c - standalone benchmark of the shipped kernels at their target sizes.
 *
 * For each problem it runs every rung, the tuning variants and the library
 * baseline, checks each result (against the library and a double-precision
 * CPU value), and prints a table: median/min/max milliseconds over CUDA-event
 * timed repetitions (L2 flushed before each), GB/s or TFLOP/s, and the ratio
 * to the library.  Usage: kbench [reduce|sgemm|embed|all] [--no-tune]. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "kernels.h"
#include "ktune.h"

#define CK(call)                                                                          \
    do {                                                                                  \
        cudaError_t ck_err_ = (call);                                                     \
        if (ck_err_ != cudaSuccess) {                                                     \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                 \
                    cudaGetErrorString(ck_err_));                                         \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

#define MAX_REPS 50

typedef struct timing {
    double med, min, max;
    int reps;
} timing;

static int failures;
static void *flush_buf;
static size_t flush_bytes;
static cudaEvent_t ev0, ev1;

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng_next(void)
{
    uint64_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    rng_state = x;
    return x;
}

/* uniform in [lo, hi) */
static float rng_float(float lo, float hi)
{
    return lo + (hi - lo) * (float)((double)(rng_next() >> 40) / (double)(1ull << 24));
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef cudaError_t (*run_fn)(void *ctx);

/* Times fn: warm-up, then repetitions with the L2 flushed before each. */
static timing time_it(run_fn fn, void *ctx)
{
    double t[MAX_REPS];
    float ms = 0.0f;
    timing r = {0, 0, 0, 0};
    CK(fn(ctx));
    CK(cudaEventRecord(ev0, 0));
    CK(fn(ctx));
    CK(cudaEventRecord(ev1, 0));
    CK(cudaEventSynchronize(ev1));
    CK(cudaEventElapsedTime(&ms, ev0, ev1));
    int reps = ms < 20.0f ? 30 : (int)(600.0f / ms);
    if (reps < 3) reps = 3;
    if (reps > MAX_REPS) reps = MAX_REPS;
    for (int i = 0; i < reps; ++i) {
        CK(cudaMemsetAsync(flush_buf, i & 0xff, flush_bytes, 0));
        CK(cudaEventRecord(ev0, 0));
        CK(fn(ctx));
        CK(cudaEventRecord(ev1, 0));
        CK(cudaEventSynchronize(ev1));
        CK(cudaEventElapsedTime(&ms, ev0, ev1));
        t[i] = ms;
    }
    qsort(t, (size_t)reps, sizeof t[0], cmp_double);
    r.reps = reps;
    r.min = t[0];
    r.max = t[reps - 1];
    r.med = reps % 2 ? t[reps / 2] : 0.5 * (t[reps / 2 - 1] + t[reps / 2]);
    return r;
}

static bool want(int argc, char **argv, const char *what)
{
    bool any = false;
    for (int i = 1; i < argc; ++i) {
        if (argv[i][0] == '-') continue;
        any = true;
        if (strcmp(argv[i], what) == 0 || strcmp(argv[i], "all") == 0) return true;
    }
    return !any;
}

static void print_row(const char *name, timing t, double rate, const char *unit, double ratio,
                      double err, const char *verdict)
{
    printf("%-42s %9.4f %9.4f %9.4f %3d %9.1f %-7s %6.3f  %.2e %s\n", name, t.med, t.min, t.max,
           t.reps, rate, unit, ratio, err, verdict);
}

static void print_head(const char *title)
{
    printf("\n## %s\n%-42s %9s %9s %9s %3s %9s %-7s %6s  %s\n", title, "kernel", "median_ms",
           "min_ms", "max_ms", "n", "rate", "unit", "vs_lib", "rel_err");
}

/* ---- reduction ------------------------------------------------------------ */
typedef struct reduce_ctx {
    reduce_launch_fn fn;
    const float *in;
    size_t n;
    float *out;
    void *scratch;
    size_t scratch_bytes;
} reduce_ctx;

static cudaError_t reduce_call(void *p)
{
    reduce_ctx *c = p;
    return c->fn(c->in, c->n, c->out, c->scratch, c->scratch_bytes, 0);
}

/* Every reduction launcher (rungs, variants, CUB) at awkward sizes and input
 * offsets against a double-precision sum; returns the number of failures. */
static int check_reduce_sizes(bool tune)
{
    static const size_t sizes[] = {1, 2, 3, 5, 31, 1025, 4097, 65537, (1u << 20) + 3, (1u << 24) + 5};
    const size_t cap = ((size_t)1 << 24) + 8;
    float *h = malloc(cap * sizeof(float));
    if (!h) exit(1);
    for (size_t i = 0; i < cap; ++i) h[i] = rng_float(0.0f, 1.0f);
    float *d_in = NULL, *d_out = NULL;
    void *scratch = NULL;
    const size_t scratch_bytes = kernels_reduce_scratch_bytes(cap);
    CK(cudaMalloc((void **)&d_in, cap * sizeof(float)));
    CK(cudaMalloc((void **)&d_out, sizeof(float)));
    CK(cudaMalloc(&scratch, scratch_bytes));
    CK(cudaMemcpy(d_in, h, cap * sizeof(float), cudaMemcpyHostToDevice));
    size_t nk = 0, nt = 0;
    const shipped_kernel *ks = kernels_shipped(&nk);
    const shipped_kernel *tv = kernels_tune_variants(&nt);
    int bad = 0, checked = 0;
    for (int pass = 0; pass < 2; ++pass) {
        const size_t cnt = pass == 0 ? nk : (tune ? nt : 0);
        for (size_t i = 0; i < cnt; ++i) {
            const shipped_kernel *k = pass == 0 ? &ks[i] : &tv[i];
            if (strcmp(k->problem, "reduce_sum") != 0) continue;
            for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; ++si)
                for (size_t off = 0; off < 4; ++off) {
                    const size_t n = sizes[si];
                    double ref = 0.0;
                    for (size_t j = 0; j < n; ++j) ref += (double)h[off + j];
                    const float poison = NAN;
                    CK(cudaMemcpy(d_out, &poison, sizeof poison, cudaMemcpyHostToDevice));
                    CK(cudaMemset(scratch, (int)(rng_next() & 0xff), scratch_bytes));
                    CK(k->reduce(d_in + off, n, d_out, scratch, scratch_bytes, 0));
                    float got = 0.0f;
                    CK(cudaMemcpy(&got, d_out, sizeof got, cudaMemcpyDeviceToHost));
                    const double err = fabs((double)got - ref) / fabs(ref);
                    ++checked;
                    if (!(err <= 1e-5)) {
                        ++bad;
                        printf("WRONG %s n=%zu offset=%zu: got %.9g expected %.9g\n", k->name, n,
                               off, (double)got, ref);
                    }
                }
        }
    }
    printf("\nreduce_sum sizes 1..2^24+5 at input offsets 0-3 floats: %d of %d checks wrong\n", bad,
           checked);
    CK(cudaFree(d_in));
    CK(cudaFree(d_out));
    CK(cudaFree(scratch));
    free(h);
    return bad;
}

static void bench_reduce(bool tune)
{
    failures += check_reduce_sizes(tune);
    const size_t n = (size_t)1 << 28;
    float *h = malloc(n * sizeof(float));
    if (!h) exit(1);
    double ref = 0.0;
    for (size_t i = 0; i < n; ++i) {
        h[i] = rng_float(0.0f, 1.0f);
        ref += (double)h[i];
    }
    reduce_ctx c = {0};
    c.n = n;
    c.scratch_bytes = kernels_reduce_scratch_bytes(n);
    CK(cudaMalloc((void **)&c.in, n * sizeof(float)));
    CK(cudaMalloc((void **)&c.out, sizeof(float)));
    CK(cudaMalloc(&c.scratch, c.scratch_bytes));
    CK(cudaMemcpy((void *)c.in, h, n * sizeof(float), cudaMemcpyHostToDevice));
    free(h);

    size_t nk = 0, nt = 0;
    const shipped_kernel *ks = kernels_shipped(&nk);
    const shipped_kernel *tv = kernels_tune_variants(&nt);
    const shipped_kernel *lib = kernels_find("cub_sum");
    const double bytes = (double)n * sizeof(float);
    print_head("reduce_sum, n = 2^28 floats (1 GiB); rate = GB/s of input read; vs_lib = CUB time / kernel time");
    c.fn = lib->reduce;
    const timing tl = time_it(reduce_call, &c);
    for (int pass = 0; pass < 3; ++pass) {
        const size_t cnt = pass == 0 ? nk : pass == 1 ? nt : 1;
        for (size_t i = 0; i < cnt; ++i) {
            const shipped_kernel *k = pass == 0 ? &ks[i] : pass == 1 ? &tv[i] : lib;
            if (strcmp(k->problem, "reduce_sum") != 0 || (pass == 1 && !tune)) continue;
            c.fn = k->reduce;
            const float poison = NAN;
            CK(cudaMemcpy(c.out, &poison, sizeof poison, cudaMemcpyHostToDevice));
            CK(c.fn(c.in, c.n, c.out, c.scratch, c.scratch_bytes, 0));
            float got = 0.0f;
            CK(cudaMemcpy(&got, c.out, sizeof got, cudaMemcpyDeviceToHost));
            const double err = fabs((double)got - ref) / fabs(ref);
            const timing t = time_it(reduce_call, &c);
            print_row(pass == 2 ? "cub_sum (again)" : k->name, t, bytes / (t.med * 1e6), "GB/s",
                      tl.med / t.med, err, err <= 1e-5 ? "ok" : "WRONG");
            failures += !(err <= 1e-5);
        }
    }
    CK(cudaFree((void *)c.in));
    CK(cudaFree(c.out));
    CK(cudaFree(c.scratch));
}

/* ---- sgemm ------------------------------------------------------------------ */
typedef struct sgemm_ctx {
    const shipped_kernel *k;
    int M, N, K;
    const float *A, *B;
    const uint16_t *A16, *B16;   /* BF16 copies for the launchers that take them */
    float *C;
} sgemm_ctx;

static cudaError_t sgemm_call(void *p)
{
    sgemm_ctx *c = p;
    if (c->k->gemm_bf16) return c->k->gemm_bf16(c->M, c->N, c->K, c->A16, c->B16, c->C, 0);
    return c->k->sgemm(c->M, c->N, c->K, c->A, c->B, c->C, 0);
}

/* "fp32", "tf32" or "bf16". */
static const char *sgemm_precision(const shipped_kernel *k)
{
    return k->precision ? k->precision : "fp32";
}

/* Relative-norm tolerance against FP32 cuBLAS: what each precision's
 * rounding of the inputs costs, with room (catalog/precision.c states the
 * same figures for the lab). */
static double sgemm_tolerance(const shipped_kernel *k)
{
    const char *p = sgemm_precision(k);
    return strcmp(p, "tf32") == 0 ? 5e-3 : strcmp(p, "bf16") == 0 ? 3e-2 : 1e-4;
}

static void bench_sgemm(bool tune)
{
    const int M = 4096, N = 4096, K = 4096;
    const size_t na = (size_t)M * K, nb = (size_t)K * N, nc = (size_t)M * N;
    float *hA = malloc(na * sizeof(float)), *hB = malloc(nb * sizeof(float));
    float *ref = malloc(nc * sizeof(float)), *got = malloc(nc * sizeof(float));
    if (!hA || !hB || !ref || !got) exit(1);
    for (size_t i = 0; i < na; ++i) hA[i] = rng_float(-1.0f, 1.0f);
    for (size_t i = 0; i < nb; ++i) hB[i] = rng_float(-1.0f, 1.0f);
    sgemm_ctx c = {0};
    c.M = M;
    c.N = N;
    c.K = K;
    CK(cudaMalloc((void **)&c.A, na * sizeof(float)));
    CK(cudaMalloc((void **)&c.B, nb * sizeof(float)));
    CK(cudaMalloc((void **)&c.A16, na * sizeof(uint16_t)));
    CK(cudaMalloc((void **)&c.B16, nb * sizeof(uint16_t)));
    CK(cudaMalloc((void **)&c.C, nc * sizeof(float)));
    CK(cudaMemcpy((void *)c.A, hA, na * sizeof(float), cudaMemcpyHostToDevice));
    CK(cudaMemcpy((void *)c.B, hB, nb * sizeof(float), cudaMemcpyHostToDevice));
    CK(kernels_f32_to_bf16(c.A, (uint16_t *)c.A16, na, 0));
    CK(kernels_f32_to_bf16(c.B, (uint16_t *)c.B16, nb, 0));

    const shipped_kernel *lib = kernels_find("cublas_sgemm");
    c.k = lib;
    if (sgemm_call(&c) != cudaSuccess) {
        fprintf(stderr, "cublas_sgemm: %s\n", kernels_library_error());
        exit(1);
    }
    CK(cudaMemcpy(ref, c.C, nc * sizeof(float), cudaMemcpyDeviceToHost));
    /* cuBLAS itself against double-precision dot products at sampled entries. */
    double e2 = 0.0, r2 = 0.0;
    for (int s = 0; s < 512; ++s) {
        const int i = (int)(rng_next() % (uint64_t)M), j = (int)(rng_next() % (uint64_t)N);
        double d = 0.0;
        for (int k = 0; k < K; ++k) d += (double)hA[(size_t)i * K + k] * (double)hB[(size_t)k * N + j];
        const double diff = (double)ref[(size_t)i * N + j] - d;
        e2 += diff * diff;
        r2 += d * d;
    }
    printf("\ncuBLAS vs double-precision CPU at 512 sampled entries: rel err %.2e\n", sqrt(e2 / r2));

    size_t nk = 0, nt = 0;
    const shipped_kernel *ks = kernels_shipped(&nk);
    const shipped_kernel *tv = kernels_tune_variants(&nt);
    const double flops = 2.0 * M * N * (double)K;
    print_head("sgemm 4096x4096x4096; rate = TFLOP/s; vs_lib = time of cuBLAS at the row's precision / "
               "kernel time; rel_err vs FP32 cuBLAS");
    /* The library at each precision first, for the ratios. */
    const char *const precs[] = {"fp32", "tf32", "bf16"};
    double lib_ms[3] = {0, 0, 0};
    for (int p = 0; p < 3; ++p) {
        c.k = kernels_find(p == 0 ? "cublas_sgemm" : p == 1 ? "cublas_tf32" : "cublas_bf16");
        if (sgemm_call(&c) != cudaSuccess) {
            printf("%s: %s (%s)\n", c.k->name, "not run", kernels_library_error());
            continue;
        }
        lib_ms[p] = time_it(sgemm_call, &c).med;
    }
    for (int pass = 0; pass < 3; ++pass) {
        const size_t cnt = pass == 0 ? nk : pass == 1 ? nt : 1;
        for (size_t i = 0; i < cnt; ++i) {
            const shipped_kernel *k = pass == 0 ? &ks[i] : pass == 1 ? &tv[i] : lib;
            if (strcmp(k->problem, "sgemm") != 0 || (pass == 1 && !tune)) continue;
            c.k = k;
            CK(cudaMemset(c.C, 0xff, nc * sizeof(float)));
            const cudaError_t e = sgemm_call(&c);
            if (e != cudaSuccess) {
                printf("%-42s not run: %s %s\n", k->name, cudaGetErrorString(e),
                       kernels_library_error());
                continue;
            }
            CK(cudaMemcpy(got, c.C, nc * sizeof(float), cudaMemcpyDeviceToHost));
            double d2 = 0.0, n2 = 0.0;
            for (size_t e2i = 0; e2i < nc; ++e2i) {
                const double d = (double)got[e2i] - (double)ref[e2i];
                d2 += d * d;
                n2 += (double)ref[e2i] * (double)ref[e2i];
            }
            const double err = sqrt(d2 / n2);
            const timing t = time_it(sgemm_call, &c);
            int p = 0;
            while (p < 2 && strcmp(precs[p], sgemm_precision(k)) != 0) ++p;
            const double tol = sgemm_tolerance(k);
            print_row(pass == 2 ? "cublas_sgemm (again)" : k->name, t, flops / (t.med * 1e9),
                      "TFLOP/s", lib_ms[p] > 0 ? lib_ms[p] / t.med : 0.0, err,
                      err <= tol ? "ok" : "WRONG");
            failures += !(err <= tol);
        }
    }
    CK(cudaFree((void *)c.A));
    CK(cudaFree((void *)c.B));
    CK(cudaFree((void *)c.A16));
    CK(cudaFree((void *)c.B16));
    CK(cudaFree(c.C));
    free(hA);
    free(hB);
    free(ref);
    free(got);
}

/* ---- embedding ----------------------------------------------------------------- */
typedef struct embed_ctx {
    embed_launch_fn fn;
    const float *W;
    const int32_t *idx;
    float *out;
    int T, D, V;
} embed_ctx;

static cudaError_t embed_call(void *p)
{
    embed_ctx *c = p;
    return c->fn(c->W, c->idx, c->out, c->T, c->D, c->V, 0);
}

static cudaError_t copy_call(void *p)
{
    embed_ctx *c = p;
    /* The library baseline: a device-to-device copy of as many bytes as the output. */
    return cudaMemcpyAsync(c->out, c->W, (size_t)c->T * (size_t)c->D * sizeof(float),
                           cudaMemcpyDeviceToDevice, 0);
}

static void bench_embed(bool tune)
{
    embed_ctx c = {0};
    c.T = 16384;
    c.D = 4096;
    c.V = 32000;
    const size_t nw = (size_t)c.V * c.D, no = (size_t)c.T * c.D;
    float *hW = malloc(nw * sizeof(float)), *got = malloc(no * sizeof(float));
    int32_t *hidx = malloc((size_t)c.T * sizeof(int32_t));
    if (!hW || !got || !hidx) exit(1);
    for (size_t i = 0; i < nw; ++i) hW[i] = rng_float(-1.0f, 1.0f);
    for (int t = 0; t < c.T; ++t) hidx[t] = (int32_t)(rng_next() % (uint64_t)c.V);
    CK(cudaMalloc((void **)&c.W, nw * sizeof(float)));
    CK(cudaMalloc((void **)&c.idx, (size_t)c.T * sizeof(int32_t)));
    CK(cudaMalloc((void **)&c.out, no * sizeof(float)));
    CK(cudaMemcpy((void *)c.W, hW, nw * sizeof(float), cudaMemcpyHostToDevice));
    CK(cudaMemcpy((void *)c.idx, hidx, (size_t)c.T * sizeof(int32_t), cudaMemcpyHostToDevice));

    const double out_bytes = (double)no * sizeof(float);
    print_head("embedding T=16384 D=4096 V=32000; rate = GB/s counting rows read + output written; vs_lib = D2D copy time / kernel time");
    const timing tc = time_it(copy_call, &c);
    print_row("cudaMemcpyAsync D2D (same bytes)", tc, 2.0 * out_bytes / (tc.med * 1e6), "GB/s", 1.0,
              0.0, "");
    size_t nk = 0, nt = 0;
    const shipped_kernel *ks = kernels_shipped(&nk);
    const shipped_kernel *tv = kernels_tune_variants(&nt);
    for (int pass = 0; pass < 2; ++pass) {
        const size_t cnt = pass == 0 ? nk : nt;
        for (size_t i = 0; i < cnt; ++i) {
            const shipped_kernel *k = pass == 0 ? &ks[i] : &tv[i];
            if (strcmp(k->problem, "embedding") != 0 || (pass == 1 && !tune)) continue;
            c.fn = k->embed;
            CK(cudaMemset(c.out, 0xff, no * sizeof(float)));
            CK(embed_call(&c));
            CK(cudaMemcpy(got, c.out, no * sizeof(float), cudaMemcpyDeviceToHost));
            size_t bad = 0;
            for (int t = 0; t < c.T; ++t)
                bad += memcmp(got + (size_t)t * c.D, hW + (size_t)hidx[t] * c.D,
                              (size_t)c.D * sizeof(float)) != 0;
            const timing t = time_it(embed_call, &c);
            print_row(k->name, t, 2.0 * out_bytes / (t.med * 1e6), "GB/s", tc.med / t.med,
                      (double)bad, bad ? "WRONG(rows)" : "ok");
        }
    }
    const timing tc2 = time_it(copy_call, &c);
    print_row("cudaMemcpyAsync D2D (again)", tc2, 2.0 * out_bytes / (tc2.med * 1e6), "GB/s",
              tc.med / tc2.med, 0.0, "");
    CK(cudaFree((void *)c.W));
    CK(cudaFree((void *)c.idx));
    CK(cudaFree(c.out));
    free(hW);
    free(got);
    free(hidx);
}

int main(int argc, char **argv)
{
    bool tune = true;
    for (int i = 1; i < argc; ++i)
        if (strcmp(argv[i], "--no-tune") == 0) tune = false;
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count == 0) {
        printf("no CUDA device found: %s\n", err != cudaSuccess ? cudaGetErrorString(err) : "count is 0");
        return 77;
    }
    struct cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    int clock_khz = 0, mem_khz = 0, bus = 0;
    CK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
    CK(cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, 0));
    CK(cudaDeviceGetAttribute(&bus, cudaDevAttrGlobalMemoryBusWidth, 0));
    printf("device: %s, sm_%d%d, %d SMs, SM clock %.0f MHz, L2 %d MiB, %.1f GiB, "
           "nominal memory bandwidth %.0f GB/s\n",
           p.name, p.major, p.minor, p.multiProcessorCount, clock_khz / 1e3,
           p.l2CacheSize >> 20, (double)p.totalGlobalMem / (1 << 30),
           2.0 * mem_khz * 1e3 * (bus / 8) / 1e9);
    flush_bytes = (size_t)p.l2CacheSize * 4;
    CK(cudaMalloc(&flush_buf, flush_bytes));
    CK(cudaEventCreate(&ev0));
    CK(cudaEventCreate(&ev1));
    if (want(argc, argv, "embed")) bench_embed(tune);
    if (want(argc, argv, "reduce")) bench_reduce(tune);
    if (want(argc, argv, "sgemm")) bench_sgemm(tune);
    kernels_shutdown();
    CK(cudaFree(flush_buf));
    return failures ? 1 : 0;
}
