#include "engine/problem.h"

#include <stdlib.h>

#include "core/rng.h"
#include "cpu/reduce.h"


static void reduce_shape(const problem_dims *d, problem_shape *s)
{
    s->na = (size_t)d->n;
    s->nb = 0;
    s->nidx = 0;
    s->nout = 1;
    s->scratch = kernels_reduce_scratch_bytes((size_t)d->n);
}

static void reduce_generate(problem_data *p, uint64_t seed)
{
    rng_fill_uniform(p->a, p->sh.na, seed, 0.0f, 1.0f);
}

static bool reduce_reference(problem_data *p, cl_err *e)
{
    if (!p->ref) {
        p->ref = malloc(sizeof *p->ref);
        if (!p->ref)
            return err_set(e, "out of host memory for the reference");
    }
    p->ref[0] = ref_reduce_sum(p->a, p->sh.na);
    p->nref = 1;
    return true;
}

static void reduce_cpu(problem_data *p, int threads)
{
    if (threads == 1)
        p->out[0] = cpu_reduce_sum(p->a, p->sh.na);
    else
        p->out[0] = cpu_reduce_sum_mt(p->a, p->sh.na, threads);
}

static cudaError_t reduce_launch(problem_data *p, const shipped_kernel *k, cudaStream_t s)
{
    return k->reduce(p->da.ptr, p->sh.na, p->dout.ptr, p->dscratch.ptr, p->dscratch.bytes, s);
}

static int reduce_args(const problem_data *p, problem_arg *out)
{
    out[0] = (problem_arg){.name = "input", .buf = &p->da, .count = p->sh.na};
    out[1] = (problem_arg){.name = "output", .buf = &p->dout, .count = p->sh.nout, .output = true};
    out[2] = (problem_arg){.name = "n", .value = p->d.n};
    return 3;
}

static const problem_ops reduce_ops = {
    .spec = &problem_spec_reduce,
    .shape = reduce_shape,
    .generate = reduce_generate,
    .validate = NULL,
    .reference = reduce_reference,
    .cpu = reduce_cpu,
    .launch = reduce_launch,
    .args = reduce_args,
};

const problem_ops *problem_reduce_ops(void)
{
    return &reduce_ops;
}
