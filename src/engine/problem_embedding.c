#include "engine/problem.h"

#include <stdlib.h>

#include "core/rng.h"
#include "cpu/embedding.h"

#define EMBED_SEED_IDX 0xbf58476d1ce4e5b9ull

static void embedding_shape(const problem_dims *d, problem_shape *s)
{
    s->na = (size_t)d->V * (size_t)d->D;
    s->nb = 0;
    s->nidx = (size_t)d->T;
    s->nout = (size_t)d->T * (size_t)d->D;
    s->scratch = 0;
}

static void embedding_generate(problem_data *p, uint64_t seed)
{
    rng_fill_uniform(p->a, p->sh.na, seed, -1.0f, 1.0f);
    rng_fill_indices(p->idx, p->sh.nidx, seed ^ EMBED_SEED_IDX, p->d.V);
}

static bool embedding_check_indices(const problem_data *p, cl_err *e)
{
    int64_t bad = -1;
    if (!embedding_validate(p->idx, p->d.T, p->d.V, &bad))
        return err_set(e, "index %lld is %d, outside the table's rows [0,%d)", (long long)bad,
                       bad >= 0 ? p->idx[bad] : -1, p->d.V);
    return true;
}

static bool embedding_reference(problem_data *p, cl_err *e)
{
    size_t n = p->sh.nout, D = (size_t)p->d.D;
    if (!p->ref) {
        p->ref = malloc(n * sizeof *p->ref);
        if (!p->ref)
            return err_set(e, "out of host memory for the reference");
    }
    for (size_t t = 0; t < (size_t)p->d.T; t++) {
        const float *row = p->a + (size_t)p->idx[t] * D;
        double *dst = p->ref + t * D;
        for (size_t j = 0; j < D; j++)
            dst[j] = (double)row[j];
    }
    p->nref = n;
    return true;
}

static void embedding_cpu(problem_data *p, int threads)
{
    if (threads == 1)
        cpu_embedding(p->a, p->idx, p->out, p->d.T, p->d.D);
    else
        cpu_embedding_mt(p->a, p->idx, p->out, p->d.T, p->d.D, threads);
}

static cudaError_t embedding_launch(problem_data *p, const shipped_kernel *k, cudaStream_t s)
{
    return k->embed(p->da.ptr, p->didx.ptr, p->dout.ptr, p->d.T, p->d.D, p->d.V, s);
}

static int embedding_args(const problem_data *p, problem_arg *out)
{
    out[0] = (problem_arg){.name = "W", .buf = &p->da, .count = p->sh.na};
    out[1] = (problem_arg){.name = "idx", .buf = &p->didx, .count = p->sh.nidx, .i32 = true};
    out[2] = (problem_arg){.name = "out", .buf = &p->dout, .count = p->sh.nout, .output = true};
    out[3] = (problem_arg){.name = "T", .value = p->d.T};
    out[4] = (problem_arg){.name = "D", .value = p->d.D};
    out[5] = (problem_arg){.name = "V", .value = p->d.V};
    return 6;
}

static const problem_ops embedding_ops = {
    .spec = &problem_spec_embedding,
    .shape = embedding_shape,
    .generate = embedding_generate,
    .validate = embedding_check_indices,
    .reference = embedding_reference,
    .cpu = embedding_cpu,
    .launch = embedding_launch,
    .args = embedding_args,
};

const problem_ops *problem_embedding_ops(void)
{
    return &embedding_ops;
}
