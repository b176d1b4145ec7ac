#include "engine/problem.h"

#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "cpu/cpuinfo.h"
#include "cpu/parallel.h"
#include "cpu/sgemm.h"

#define SGEMM_FULL_CHECK ((int64_t)1 << 20)
#define SGEMM_SAMPLES 4096
#define SGEMM_EDGE_POINTS 64
#define SGEMM_SEED_B 0x9e3779b97f4a7c15ull
#define SGEMM_SEED_PICK 0xd1b54a32d192ed03ull

static void sgemm_shape(const problem_dims *d, problem_shape *s)
{
    s->na = (size_t)d->M * (size_t)d->K;
    s->nb = (size_t)d->K * (size_t)d->N;
    s->nidx = 0;
    s->nout = (size_t)d->M * (size_t)d->N;
    s->scratch = 0;
}

static void sgemm_generate(problem_data *p, uint64_t seed)
{
    rng_fill_uniform(p->a, p->sh.na, seed, -1.0f, 1.0f);
    rng_fill_uniform(p->b, p->sh.nb, seed ^ SGEMM_SEED_B, -1.0f, 1.0f);
}

/* The sampled positions: corners, points along the four edges, then
 * uniformly random elements, SGEMM_SAMPLES in all. */
static void sgemm_pick(const problem_data *p, int64_t *idx, size_t n)
{
    int64_t M = p->d.M, N = p->d.N;
    size_t k = 0;
    int64_t corner[4][2] = {{0, 0}, {0, N - 1}, {M - 1, 0}, {M - 1, N - 1}};
    for (int c = 0; c < 4; c++)
        idx[k++] = corner[c][0] * N + corner[c][1];
    for (int t = 0; t < SGEMM_EDGE_POINTS; t++) {
        int64_t i = (M - 1) * t / (SGEMM_EDGE_POINTS - 1);
        int64_t j = (N - 1) * t / (SGEMM_EDGE_POINTS - 1);
        idx[k++] = 0 * N + j;
        idx[k++] = (M - 1) * N + j;
        idx[k++] = i * N + 0;
        idx[k++] = i * N + (N - 1);
    }
    rng r;
    rng_seed(&r, p->seed ^ SGEMM_SEED_PICK);
    for (; k < n; k++)
        idx[k] = (int64_t)(rng_next(&r) % (uint64_t)(M * N));
}

typedef struct sgemm_ref_job {
    const problem_data *p;
    double *ref;
    const int64_t *idx;
    size_t n;
} sgemm_ref_job;

static void sgemm_ref_part(void *ctx, int part, int nparts)
{
    sgemm_ref_job *j = ctx;
    const problem_data *p = j->p;
    size_t lo = j->n * (size_t)part / (size_t)nparts;
    size_t hi = j->n * (size_t)(part + 1) / (size_t)nparts;
    if (!j->idx) {
        /* every element: whole rows, which ref_sgemm_rows walks contiguously */
        int64_t M = p->d.M, r0 = M * part / nparts, r1 = M * (part + 1) / nparts;
        ref_sgemm_rows(p->d.M, p->d.N, p->d.K, p->a, p->b, r0, r1, j->ref + r0 * p->d.N);
        return;
    }
    for (size_t k = lo; k < hi; k++) {
        int64_t at = j->idx[k];
        j->ref[k] = ref_sgemm_at(p->d.M, p->d.N, p->d.K, p->a, p->b, at / p->d.N, at % p->d.N);
    }
}

static bool sgemm_reference(problem_data *p, cl_err *e)
{
    int64_t cells = (int64_t)p->d.M * p->d.N;
    bool full = cells <= SGEMM_FULL_CHECK;
    size_t n = full ? (size_t)cells : SGEMM_SAMPLES;
    if (!p->ref) {
        p->ref = malloc(n * sizeof *p->ref);
        if (!p->ref)
            return err_set(e, "out of host memory for the reference");
        if (!full) {
            p->ref_idx = malloc(n * sizeof *p->ref_idx);
            if (!p->ref_idx)
                return err_set(e, "out of host memory for the reference");
        }
    }
    if (!full)
        sgemm_pick(p, p->ref_idx, n);
    p->nref = n;
    sgemm_ref_job job = {.p = p, .ref = p->ref, .idx = p->ref_idx, .n = n};
    int threads = parallel_threads(0, (double)n * (double)p->d.K, 1 << 20);
    parallel_run(threads, sgemm_ref_part, &job);
    return true;
}

static void sgemm_cpu(problem_data *p, int threads)
{
    if (threads == 1)
        cpu_sgemm(p->d.M, p->d.N, p->d.K, p->a, p->b, p->out);
    else
        cpu_sgemm_mt(p->d.M, p->d.N, p->d.K, p->a, p->b, p->out, threads);
}

/* Launchers that multiply BF16 take the copies problem_upload made. */
static cudaError_t sgemm_launch(problem_data *p, const shipped_kernel *k, cudaStream_t s)
{
    if (k->gemm_bf16) {
        if (!p->bf16 || !p->da16.ptr || !p->db16.ptr)
            return cudaErrorInvalidValue;
        return k->gemm_bf16(p->d.M, p->d.N, p->d.K, p->da16.ptr, p->db16.ptr, p->dout.ptr, s);
    }
    return k->sgemm(p->d.M, p->d.N, p->d.K, p->da.ptr, p->db.ptr, p->dout.ptr, s);
}

static int sgemm_args(const problem_data *p, problem_arg *out)
{
    out[0] = (problem_arg){.name = "A", .buf = &p->da, .count = p->sh.na};
    out[1] = (problem_arg){.name = "B", .buf = &p->db, .count = p->sh.nb};
    out[2] = (problem_arg){.name = "C", .buf = &p->dout, .count = p->sh.nout, .output = true};
    out[3] = (problem_arg){.name = "M", .value = p->d.M};
    out[4] = (problem_arg){.name = "N", .value = p->d.N};
    out[5] = (problem_arg){.name = "K", .value = p->d.K};
    return 6;
}

/* The same, with A and B the BF16 copies problem_upload makes. */
static int gemm_bf16_args(const problem_data *p, problem_arg *out)
{
    int n = sgemm_args(p, out);
    out[0] = (problem_arg){.name = "A", .buf = &p->da16, .count = p->sh.na, .bf16 = true};
    out[1] = (problem_arg){.name = "B", .buf = &p->db16, .count = p->sh.nb, .bf16 = true};
    return n;
}

static const problem_ops sgemm_ops = {
    .spec = &problem_spec_sgemm,
    .shape = sgemm_shape,
    .generate = sgemm_generate,
    .validate = NULL,
    .reference = sgemm_reference,
    .cpu = sgemm_cpu,
    .launch = sgemm_launch,
    .args = sgemm_args,
};

const problem_ops *problem_sgemm_ops(void)
{
    return &sgemm_ops;
}

static const problem_ops gemm_bf16_ops = {
    .spec = &problem_spec_gemm_bf16,
    .shape = sgemm_shape,
    .generate = sgemm_generate,
    .validate = NULL,
    .reference = sgemm_reference,
    .cpu = sgemm_cpu,
    .launch = sgemm_launch,
    .args = gemm_bf16_args,
};

const problem_ops *problem_gemm_bf16_ops(void)
{
    return &gemm_bf16_ops;
}
