#include "engine/problem.h"

#include <stdlib.h>

#include "cpu/pipeline.h"

#define PIPE_MAX_ELEMS ((int64_t)1 << 30)

static bool pipe_parse(const char *label, problem_dims *d, cl_err *e)
{
    int64_t v[2];
    int n = 0;
    if (!problem_parse_dims(label, 2, PIPE_MAX_ELEMS, v, &n, e))
        return false;
    if (n != 2)
        return err_set(e, "give ROWSxFEATURES: table rows x feature columns, e.g. 1048576x16");
    if (v[1] > PIPELINE_MAX_FEATURES)
        return err_set(e, "%lld features: the limit is %d", (long long)v[1],
                       PIPELINE_MAX_FEATURES);
    if (v[0] * v[1] > PIPE_MAX_ELEMS)
        return err_set(e, "the table would hold more than 2^30 values");
    d->rows = v[0];
    d->feats = (int)v[1];
    return true;
}

static void pipe_shape(const problem_dims *d, problem_shape *s)
{
    s->na = (size_t)d->rows * (size_t)d->feats;
    s->nb = 0;
    s->nidx = 0;
    s->nout = s->na;
    s->scratch = 0;
}

/* The table once from host memory and once back: the bytes that must
 * cross the link whatever the kernels do. */
static double pipe_bytes(const problem_dims *d)
{
    return 8.0 * (double)d->rows * (double)d->feats;
}

static double pipe_flops(const problem_dims *d)
{
    (void)d;
    return -1.0;
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
    .name = "pipeline",
    .library = NULL,
    .size_help = "ROWSxFEATURES: 1048576x16, 2^22x32",
    .bandwidth_bound = true,
    .host_io = true,
    .tolerance = 1e-4,
    .parse = pipe_parse,
    .shape = pipe_shape,
    .bytes = pipe_bytes,
    .flops = pipe_flops,
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
