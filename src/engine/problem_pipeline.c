#include "engine/problem.h"

#include <stdlib.h>

#include "cpu/pipeline.h"

static void pipe_shape(const problem_dims *d, problem_shape *s)
{
    s->na = (size_t)d->rows * (size_t)d->feats;
    s->nb = 0;
    s->nidx = 0;
    s->nout = s->na;
    s->scratch = 0;
}

static void pipe_generate(problem_data *p, uint64_t seed)
{
    pipeline_inputs(p->a, (size_t)p->d.rows, (size_t)p->d.feats, seed);
}

static bool pipe_reference(problem_data *p, cl_err *e)
{
    if (!p->ref) {
        p->ref = malloc(p->sh.nout * sizeof *p->ref);
        if (!p->ref)
            return err_set(e, "out of host memory for the reference");
    }
    if (!ref_pipeline(p->a, p->ref, (size_t)p->d.rows, (size_t)p->d.feats))
        return err_set(e, "out of host memory for the reference's column sums");
    p->nref = p->sh.nout;
    return true;
}

static void pipe_cpu(problem_data *p, int threads)
{
    if (threads == 1)
        cpu_pipeline(p->a, p->out, (size_t)p->d.rows, (size_t)p->d.feats);
    else
        cpu_pipeline_mt(p->a, p->out, (size_t)p->d.rows, (size_t)p->d.feats, threads);
}

static int pipe_args(const problem_data *p, problem_arg *out)
{
    out[0] = (problem_arg){.name = "input", .host = p->a, .count = p->sh.na};
    out[1] = (problem_arg){.name = "output", .host = p->out, .count = p->sh.nout, .output = true};
    out[2] = (problem_arg){.name = "rows", .value = p->d.rows};
    out[3] = (problem_arg){.name = "features", .value = p->d.feats};
    return 4;
}

/* No shipped kernel computes the pipeline: its GPU rows are the learner's
 * launcher and the lab's starter, both Lua launchers (engine/exercise.h). */
static const problem_ops pipeline_ops = {
    .spec = &problem_spec_pipeline,
    .shape = pipe_shape,
    .generate = pipe_generate,
    .validate = NULL,
    .reference = pipe_reference,
    .cpu = pipe_cpu,
    .launch = NULL,
    .args = pipe_args,
};

const problem_ops *problem_pipeline_ops(void)
{
    return &pipeline_ops;
}
