/* problem_managed.c - the basics lab's SAXPY, z = a x + y, over managed
 * memory the CPU wrote last (problem managed, whose inputs engine/problem.c
 * keeps in managed buffers and rewrites on the CPU before every run).  It
 * stays in C because its inputs live in managed memory the CPU writes
 * before every timed run, which a declared problem's buffers cannot say;
 * its SAXPY over ordinary memory is declared in lua/problems/saxpy.lua. */
#include "engine/problem.h"

#include <stdlib.h>

#include "core/rng.h"
#include "cpu/basics.h"

#define SAXPY_SEED_Y 0x9e3779b97f4a7c15ull

/* a changes with the size (0.5 to 2, exact in float), so a kernel that
 * wrote its own a would be caught; it stays the same for every check of a
 * size, as the launcher's args are built once a size. */
float problem_saxpy_a(uint64_t elements)
{
    return 0.5f + 0.25f * (float)(elements % 7u);
}

static void saxpy_shape(const problem_dims *d, problem_shape *s)
{
    s->na = (size_t)d->n;
    s->nb = (size_t)d->n;
    s->nidx = 0;
    s->nout = (size_t)d->n;
    s->scratch = 0;
}

static void managed_shape(const problem_dims *d, problem_shape *s)
{
    saxpy_shape(d, s);
    s->scratch = 2 * (size_t)d->n * sizeof(float);   /* um_copy's device copies of x and y */
}

static void saxpy_generate(problem_data *p, uint64_t seed)
{
    rng_fill_uniform(p->a, p->sh.na, seed, -1.0f, 1.0f);
    rng_fill_uniform(p->b, p->sh.nb, seed ^ SAXPY_SEED_Y, -1.0f, 1.0f);
}

static bool saxpy_reference(problem_data *p, cl_err *e)
{
    if (!p->ref) {
        p->ref = malloc(p->sh.nout * sizeof *p->ref);
        if (!p->ref)
            return err_set(e, "out of host memory for the reference");
    }
    ref_saxpy(p->sh.nout, problem_saxpy_a((uint64_t)p->d.n), p->a, p->b, p->ref);
    p->nref = p->sh.nout;
    return true;
}

static void saxpy_cpu(problem_data *p, int threads)
{
    float a = problem_saxpy_a((uint64_t)p->d.n);
    if (threads == 1)
        cpu_saxpy(p->sh.nout, a, p->a, p->b, p->out);
    else
        cpu_saxpy_mt(p->sh.nout, a, p->a, p->b, p->out, threads);
}

static cudaError_t saxpy_launch(problem_data *p, const shipped_kernel *k, cudaStream_t s)
{
    return k->saxpy(p->sh.nout, problem_saxpy_a((uint64_t)p->d.n), p->da.ptr, p->db.ptr,
                    p->dout.ptr, p->dscratch.ptr, p->dscratch.bytes, s);
}

static int saxpy_args(const problem_data *p, problem_arg *out)
{
    bool m = p->ops->spec->managed;
    out[0] = (problem_arg){.name = "x", .buf = &p->da, .count = p->sh.na, .managed = m};
    out[1] = (problem_arg){.name = "y", .buf = &p->db, .count = p->sh.nb, .managed = m};
    out[2] = (problem_arg){.name = "z", .buf = &p->dout, .count = p->sh.nout, .output = true};
    out[3] = (problem_arg){.name = "a", .is_number = true,
                           .number = problem_saxpy_a((uint64_t)p->d.n)};
    out[4] = (problem_arg){.name = "n", .value = p->d.n};
    return 5;
}

static const problem_ops managed_ops = {
    .spec = &problem_spec_managed,
    .shape = managed_shape,
    .generate = saxpy_generate,
    .reference = saxpy_reference,
    .cpu = saxpy_cpu,
    .launch = saxpy_launch,
    .args = saxpy_args,
};

const problem_ops *problem_managed_ops(void)
{
    return &managed_ops;
}
