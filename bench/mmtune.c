/* mmtune.c - the matmul autotuning sweep: every shipped matmul rung from
 * warptile up and every tuning variant (kernels/ktune.h), at each size,
 * checked and timed beside cuBLAS at the same precision.
 *
 *   mmtune [--sizes 1024,2048,4224x4096x4096] [--rounds R] [--reps N] [--filter TEXT]
 *
 * Per size: fresh seeded inputs (and their BF16 copies, made on the
 * device); a double-precision reference at sampled outputs; cuBLAS in
 * FP32, TF32 and BF16 timed before and after the candidates (its drift
 * shows); then each candidate, checked once against the reference within
 * its precision's tolerance (every output written and finite), and timed
 * in R rounds of N repetitions, the rounds interleaved across candidates
 * so that a slow drift of the clock spreads over all of them.  A
 * repetition is one launch between two CUDA events on the default stream,
 * with the L2 cleared before it.  Each row: median, minimum and maximum
 * over all repetitions, TFLOP/s, the ratio to cuBLAS at the row's
 * precision (cuBLAS time / row time, the median of cuBLAS's two
 * measurements), the error against the reference, and the kernel's
 * registers, shared memory, local memory and blocks a multiprocessor.
 * At the end, per size and precision, the fastest correct candidate and
 * the configuration the shipped rung runs, as Markdown for
 * bench/KERNELS.md.  Exit status 1 when any candidate is wrong. */
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

#define MAX_CAND 80
#define MAX_SAMPLES 400
#define MAX_SIZES 6
#define SAMPLES 2048

typedef struct candidate {
    const shipped_kernel *k;
    bool ok;                 /* ran and checked correct */
    char why[160];           /* why not, when !ok */
    double err;
    double t[MAX_SAMPLES];
    int n;
    kernel_resources res;
    bool have_res;
} candidate;

typedef struct gemm {
    int M, N, K;
    float *A, *B, *C;
    uint16_t *A16, *B16;
} gemm;

static uint64_t rng_state = 0x2545f4914f6cdd1dull;
static void *flush_buf;
static size_t flush_bytes;
static cudaEvent_t ev0, ev1;
static int failures;

static uint64_t rng_next(void)
{
    uint64_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    rng_state = x;
    return x;
}

static float rng_float(void)
{
    return -1.0f + 2.0f * (float)((double)(rng_next() >> 40) / (double)(1ull << 24));
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static const char *prec_of(const shipped_kernel *k)
{
    return k->precision ? k->precision : "fp32";
}

/* The engine's tolerances (catalog/precision.c). */
static double tol_of(const shipped_kernel *k)
{
    const char *p = prec_of(k);
    return strcmp(p, "tf32") == 0 ? 5e-3 : strcmp(p, "bf16") == 0 ? 3e-2 : 1e-4;
}

static cudaError_t launch(const shipped_kernel *k, const gemm *g)
{
    if (k->gemm_bf16) return k->gemm_bf16(g->M, g->N, g->K, g->A16, g->B16, g->C, 0);
    return k->sgemm(g->M, g->N, g->K, g->A, g->B, g->C, 0);
}

/* n timed launches of k appended to c->t. */
static void time_reps(candidate *c, const gemm *g, int n)
{
    for (int i = 0; i < n && c->n < MAX_SAMPLES; ++i) {
        CK(cudaMemsetAsync(flush_buf, i & 0xff, flush_bytes, 0));
        CK(cudaEventRecord(ev0, 0));
        CK(launch(c->k, g));
        CK(cudaEventRecord(ev1, 0));
        CK(cudaEventSynchronize(ev1));
        float ms = 0.0f;
        CK(cudaEventElapsedTime(&ms, ev0, ev1));
        c->t[c->n++] = ms;
    }
}

static double median_of(const candidate *c, double *lo, double *hi)
{
    double v[MAX_SAMPLES];
    memcpy(v, c->t, (size_t)c->n * sizeof v[0]);
    qsort(v, (size_t)c->n, sizeof v[0], cmp_double);
    if (lo) *lo = v[0];
    if (hi) *hi = v[c->n - 1];
    return c->n % 2 ? v[c->n / 2] : 0.5 * (v[c->n / 2 - 1] + v[c->n / 2]);
}

/* Runs k once on a poisoned C and compares with the sampled reference. */
static void check(candidate *c, const gemm *g, const int64_t *idx, const double *ref, float *host)
{
    const size_t nc = (size_t)g->M * g->N;
    CK(cudaMemset(g->C, 0xff, nc * sizeof(float)));
    const cudaError_t e = launch(c->k, g);
    if (e != cudaSuccess) {
        snprintf(c->why, sizeof c->why, "not run: %s %s", cudaGetErrorString(e),
                 kernels_library_error());
        (void)cudaGetLastError();
        return;
    }
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(host, g->C, nc * sizeof(float), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < nc; ++i)
        if (!isfinite(host[i])) {
            snprintf(c->why, sizeof c->why, "WRONG: C[%zu] not written or not finite", i);
            failures++;
            return;
        }
    double d2 = 0.0, r2 = 0.0;
    for (int s = 0; s < SAMPLES; ++s) {
        const double d = (double)host[idx[s]] - ref[s];
        d2 += d * d;
        r2 += ref[s] * ref[s];
    }
    c->err = sqrt(d2 / r2);
    if (!(c->err <= tol_of(c->k))) {
        snprintf(c->why, sizeof c->why, "WRONG: relative error %.2e over %.0e", c->err,
                 tol_of(c->k));
        failures++;
        return;
    }
    c->ok = true;
}

static bool wanted(const shipped_kernel *k, const char *filter)
{
    if (strcmp(k->problem, "sgemm") != 0) return false;
    if (filter && !strstr(k->name, filter)) return false;
    return true;
}

static void print_res(const candidate *c)
{
    if (!c->have_res) {
        printf("  -");
        return;
    }
    printf("  %3d regs %6d B smem %4d B local %d/SM", c->res.registers,
           c->res.static_smem + c->res.dynamic_smem, c->res.local_bytes, c->res.blocks_per_sm);
}

static void sweep(int M, int N, int K, int rounds, int reps, const char *filter)
{
    const size_t na = (size_t)M * K, nb = (size_t)K * N, nc = (size_t)M * N;
    float *hA = malloc(na * 4), *hB = malloc(nb * 4), *hC = malloc(nc * 4);
    int64_t *idx = malloc(SAMPLES * sizeof *idx);
    double *ref = malloc(SAMPLES * sizeof *ref);
    static candidate cand[MAX_CAND];
    if (!hA || !hB || !hC || !idx || !ref) exit(1);
    for (size_t i = 0; i < na; ++i) hA[i] = rng_float();
    for (size_t i = 0; i < nb; ++i) hB[i] = rng_float();
    for (int s = 0; s < SAMPLES; ++s) {
        const int64_t i = s < 4 ? (s & 1) * (M - 1) : (int64_t)(rng_next() % (uint64_t)M);
        const int64_t j = s < 4 ? (s >> 1) * (N - 1) : (int64_t)(rng_next() % (uint64_t)N);
        idx[s] = i * N + j;
        double d = 0.0;
        for (int p = 0; p < K; ++p) d += (double)hA[i * K + p] * (double)hB[(int64_t)p * N + j];
        ref[s] = d;
    }
    gemm g = {M, N, K, NULL, NULL, NULL, NULL, NULL};
    CK(cudaMalloc((void **)&g.A, na * 4));
    CK(cudaMalloc((void **)&g.B, nb * 4));
    CK(cudaMalloc((void **)&g.C, nc * 4));
    CK(cudaMalloc((void **)&g.A16, na * 2));
    CK(cudaMalloc((void **)&g.B16, nb * 2));
    CK(cudaMemcpy(g.A, hA, na * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(g.B, hB, nb * 4, cudaMemcpyHostToDevice));
    CK(kernels_f32_to_bf16(g.A, g.A16, na, 0));
    CK(kernels_f32_to_bf16(g.B, g.B16, nb, 0));

    /* Candidates: cuBLAS at each precision first, the rungs from warptile
     * on, the tuning variants, cuBLAS again. */
    int nk = 0;
    static const char *const libs[] = {"cublas_sgemm", "cublas_tf32", "cublas_bf16"};
    for (int i = 0; i < 3; ++i) cand[nk++].k = kernels_find(libs[i]);
    static const char *const rungs[] = {"sgemm_warptile", "gemm_wmma_tf32", "gemm_wmma_bf16",
                                        "gemm_wmma_async", "gemm_wgmma", "gemm_wgmma_persist",
                                        "gemm_wgmma_cluster", "gemm_wgmma_tmastore"};
    for (int i = 0; i < 8; ++i)
        if (wanted(kernels_find(rungs[i]), filter)) cand[nk++].k = kernels_find(rungs[i]);
    size_t nt = 0;
    const shipped_kernel *tv = kernels_tune_variants(&nt);
    for (size_t i = 0; i < nt && nk < MAX_CAND - 3; ++i)
        if (wanted(&tv[i], filter)) cand[nk++].k = &tv[i];
    const int first_again = nk;
    for (int i = 0; i < 3; ++i) cand[nk++].k = kernels_find(libs[i]);

    for (int i = 0; i < nk; ++i) {
        candidate *c = &cand[i];
        c->ok = false;
        c->why[0] = '\0';
        c->n = 0;
        c->err = 0.0;
        check(c, &g, idx, ref, hC);
        c->have_res = kernels_tune_resources(c->k->name, M, N, &c->res);
        if (c->ok) time_reps(c, &g, 2); /* warm-up, dropped below */
        c->n = 0;
    }
    for (int r = 0; r < rounds; ++r)
        for (int i = 0; i < nk; ++i)
            if (cand[i].ok) time_reps(&cand[i], &g, reps);

    double lib_ms[3] = {0, 0, 0};
    for (int p = 0; p < 3; ++p)
        if (cand[p].ok && cand[first_again + p].ok) {
            const double a = median_of(&cand[p], NULL, NULL);
            const double b = median_of(&cand[first_again + p], NULL, NULL);
            lib_ms[p] = 0.5 * (a + b);
        }
    const double flops = 2.0 * M * N * (double)K;
    printf("\n## %dx%dx%d: %d rounds of %d repetitions; vs_lib = cuBLAS (same precision) time / "
           "row time\n",
           M, N, K, rounds, reps);
    printf("%-48s %-4s %9s %9s %9s %8s %7s %9s  %s\n", "kernel", "prec", "median_ms", "min_ms",
           "max_ms", "TFLOP/s", "vs_lib", "rel_err", "resources");
    int best[3] = {-1, -1, -1};
    for (int i = 0; i < nk; ++i) {
        const candidate *c = &cand[i];
        const char *p = prec_of(c->k);
        const int pi = strcmp(p, "tf32") == 0 ? 1 : strcmp(p, "bf16") == 0 ? 2 : 0;
        const char *name = i >= first_again ? "(again)" : "";
        if (!c->ok) {
            printf("%-40s%-8s %-4s %s\n", c->k->name, name, p, c->why);
            continue;
        }
        double lo = 0, hi = 0;
        const double med = median_of(c, &lo, &hi);
        printf("%-40s%-8s %-4s %9.4f %9.4f %9.4f %8.1f %7.3f %9.2e", c->k->name, name, p, med, lo,
               hi, flops / (med * 1e9), lib_ms[pi] > 0 ? lib_ms[pi] / med : 0.0, c->err);
        print_res(c);
        printf("\n");
        if (!c->k->library && (best[pi] < 0 || med < median_of(&cand[best[pi]], NULL, NULL)))
            best[pi] = i;
    }

    printf("\n### %dx%dx%d, the fastest correct configuration per precision\n\n", M, N, K);
    printf("| precision | fastest | TFLOP/s | vs cuBLAS | shipped rung runs | its vs cuBLAS |\n");
    printf("| --- | --- | --- | --- | --- | --- |\n");
    static const char *const shipped_rung[3] = {"sgemm_warptile", NULL, "gemm_wmma_async"};
    static const char *const pname[3] = {"FP32", "TF32", "BF16"};
    for (int pi = 0; pi < 3; ++pi) {
        if (best[pi] < 0 || lib_ms[pi] <= 0) continue;
        const double med = median_of(&cand[best[pi]], NULL, NULL);
        printf("| %s | `%s` | %.1f | %.3fx |", pname[pi], cand[best[pi]].k->name,
               flops / (med * 1e9), lib_ms[pi] / med);
        const char *as = shipped_rung[pi] ? kernels_tune_shipped_as(shipped_rung[pi], M, N) : NULL;
        const candidate *sc = NULL;
        for (int i = 0; i < first_again; ++i)
            if (shipped_rung[pi] && strcmp(cand[i].k->name, shipped_rung[pi]) == 0) sc = &cand[i];
        if (as && sc && sc->ok)
            printf(" `%s` | %.3fx |\n", as, lib_ms[pi] / median_of(sc, NULL, NULL));
        else
            printf(" - | - |\n");
    }
    fflush(stdout);
    cudaFree(g.A);
    cudaFree(g.B);
    cudaFree(g.C);
    cudaFree(g.A16);
    cudaFree(g.B16);
    free(hA);
    free(hB);
    free(hC);
    free(idx);
    free(ref);
}

/* One dimension of a size: a number from 1 to 16384 ending at a separator
 * (',', 'x' or the end); -1 otherwise. */
static int parse_dim(const char **s)
{
    char *end = NULL;
    const long v = strtol(*s, &end, 10);
    if (end == *s || v < 1 || v > 16384 || (*end && *end != ',' && *end != 'x')) return -1;
    *s = end;
    return (int)v;
}

/* "1024,4224x4096x4096": a lone number is a cube, MxNxK a product of its own. */
static int parse_sizes(const char *s, int (*out)[3])
{
    int n = 0;
    while (*s && n < MAX_SIZES) {
        int d[3];
        int have = 0;
        for (; have < 3; ++have) {
            if ((d[have] = parse_dim(&s)) < 0) return -1;
            if (*s != 'x') break;
            ++s;
        }
        if (have == 0) {
            d[1] = d[2] = d[0];
        } else if (have != 2) {
            return -1;
        }
        memcpy(out[n++], d, sizeof d);
        if (*s == ',') ++s;
    }
    return n;
}

int main(int argc, char **argv)
{
    int sizes[MAX_SIZES][3] = {{1024, 1024, 1024}, {2048, 2048, 2048}, {4096, 4096, 4096}};
    int nsizes = 3, rounds = 3, reps = 10;
    const char *filter = NULL;
    for (int i = 1; i < argc; ++i) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(argv[i], "--sizes") == 0 && v) {
            nsizes = parse_sizes(v, sizes);
            ++i;
        } else if (strcmp(argv[i], "--rounds") == 0 && v) {
            rounds = atoi(v);
            ++i;
        } else if (strcmp(argv[i], "--reps") == 0 && v) {
            reps = atoi(v);
            ++i;
        } else if (strcmp(argv[i], "--filter") == 0 && v) {
            filter = v;
            ++i;
        } else {
            fprintf(stderr, "usage: mmtune [--sizes 1024,2048,4224x4096x4096] [--rounds R] [--reps N] "
                            "[--filter TEXT]\n");
            return 2;
        }
    }
    if (nsizes < 1 || rounds < 1 || reps < 1 || rounds * reps > MAX_SAMPLES) {
        fprintf(stderr, "mmtune: bad --sizes, --rounds or --reps (rounds x reps <= %d)\n",
                MAX_SAMPLES);
        return 2;
    }
    int count = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count == 0) {
        printf("no CUDA device found: %s\n", err != cudaSuccess ? cudaGetErrorString(err) : "count is 0");
        return 77;
    }
    struct cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    int clock_khz = 0;
    CK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
    printf("device: %s, sm_%d%d, %d SMs, SM clock %.0f MHz, L2 %d MiB\n", p.name, p.major,
           p.minor, p.multiProcessorCount, clock_khz / 1e3, p.l2CacheSize >> 20);
    flush_bytes = (size_t)p.l2CacheSize * 2;
    CK(cudaMalloc(&flush_buf, flush_bytes));
    CK(cudaEventCreate(&ev0));
    CK(cudaEventCreate(&ev1));
    for (int i = 0; i < nsizes; ++i) sweep(sizes[i][0], sizes[i][1], sizes[i][2], rounds, reps, filter);
    kernels_shutdown();
    CK(cudaFree(flush_buf));
    printf("\n%d wrong\n", failures);
    return failures ? 1 : 0;
}
