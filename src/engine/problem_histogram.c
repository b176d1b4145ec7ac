/* problem_histogram.c - the basics lab's 256-bin histogram of n bytes.
 *
 * The bytes live in the problem's int32 index buffer, four to an element
 * (ceil(n/4) elements; the bytes past n are random too, so a kernel that
 * reads past n counts them and is caught).  The output is 256 uint32 counts;
 * after the download decode turns each into the float the checker compares
 * (exact: a count of n <= 2^30 bytes, and uniform random bytes keep every
 * bin far below 2^24), leaving the poison pattern as it is, so a bin no
 * kernel wrote reads as unwritten and one added to without zeroing first
 * reads as wrong. */
#include "engine/problem.h"

#include <stdlib.h>
#include <string.h>

#include "cpu/basics.h"
#include "cpu/check.h"

static void hist_shape(const problem_dims *d, problem_shape *s)
{
    s->na = 0;
    s->nb = 0;
    s->nidx = ((size_t)d->n + 3) / 4;
    s->nout = BASICS_BINS;
    s->scratch = 0;
}

static const uint8_t *bytes_of(const problem_data *p)
{
    return (const uint8_t *)p->idx;
}

static void hist_generate(problem_data *p, uint64_t seed)
{
    basics_fill_bytes((uint8_t *)p->idx, p->sh.nidx * 4, seed);
}

static void counts_to_floats(const uint32_t *bins, float *out)
{
    for (int b = 0; b < BASICS_BINS; b++)
        out[b] = (float)bins[b];
}

static bool hist_reference(problem_data *p, cl_err *e)
{
    if (!p->ref) {
        p->ref = malloc(BASICS_BINS * sizeof *p->ref);
        if (!p->ref)
            return err_set(e, "out of host memory for the reference");
    }
    uint32_t bins[BASICS_BINS];
    cpu_histogram(bytes_of(p), (size_t)p->d.n, bins);
    for (int b = 0; b < BASICS_BINS; b++)
        p->ref[b] = (double)bins[b];
    p->nref = BASICS_BINS;
    return true;
}

static void hist_cpu(problem_data *p, int threads)
{
    uint32_t bins[BASICS_BINS];
    if (threads == 1)
        cpu_histogram(bytes_of(p), (size_t)p->d.n, bins);
    else
        cpu_histogram_mt(bytes_of(p), (size_t)p->d.n, bins, threads);
    counts_to_floats(bins, p->out);
}

static void hist_decode(problem_data *p)
{
    for (size_t b = 0; b < p->sh.nout; b++) {
        if (check_is_poison(p->out[b]))
            continue;
        uint32_t v;
        memcpy(&v, &p->out[b], sizeof v);
        p->out[b] = (float)v;
    }
}

static cudaError_t hist_launch(problem_data *p, const shipped_kernel *k, cudaStream_t s)
{
    return k->hist((const unsigned char *)p->didx.ptr, (size_t)p->d.n,
                   (unsigned int *)p->dout.ptr, s);
}

static int hist_args(const problem_data *p, problem_arg *out)
{
    out[0] = (problem_arg){.name = "data", .buf = &p->didx, .count = p->sh.nidx, .i32 = true};
    out[1] = (problem_arg){.name = "bins", .buf = &p->dout, .count = BASICS_BINS, .i32 = true,
                           .output = true};
    out[2] = (problem_arg){.name = "n", .value = p->d.n};
    return 3;
}

static const problem_ops hist_ops = {
    .spec = &problem_spec_histogram,
    .shape = hist_shape,
    .generate = hist_generate,
    .reference = hist_reference,
    .cpu = hist_cpu,
    .launch = hist_launch,
    .args = hist_args,
    .decode = hist_decode,
};

const problem_ops *problem_histogram_ops(void)
{
    return &hist_ops;
}
