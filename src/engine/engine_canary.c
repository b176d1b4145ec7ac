#include "engine/engine_canary.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/rng.h"
#include "gpu/cudacheck.h"
#include "kernels.h"

bool engine_fresh_prepare(engine_ctx *c, problem_data *p, const char *variant, uint64_t seed,
                          cl_err *e)
{
    c->rows.variant = RUN_FAULT_REFERENCE;
    engine_row_progress(&c->rows, "reference", 0, 1);
    /* a share from 0.5 to 1 of each declared distribution, from the seed */
    rng share;
    rng_seed(&share, seed ^ 0x243f6a8885a308d3ull);
    p->narrow = 0.5 + 0.5 * rng_uniform(&share);
    bool ok = problem_prepare(p, seed, e);
    p->narrow = 0.0;
    c->rows.variant = variant;
    return ok;
}

/* Frees the staged copies and the counter. */
static void free_stage(canary *cv)
{
    for (int i = 0; i < CANARY_MAX_INPUTS; i++)
        buffer_free(&cv->stage[i]);
    buffer_free(&cv->counter);
}

/* Device memory for a copy of every input and the counter; false with the
 * note when there is no room (nothing failed: the row has no canary). */
static bool alloc_stage(canary *cv)
{
    size_t need = sizeof(unsigned long long);
    for (int i = 0; i < cv->n; i++)
        need += cv->in[i].buf->bytes;
    cl_err e = {{0}};
    if (buffer_check_free(need + need / 16, &e) &&
        buffer_alloc(&cv->counter, sizeof(unsigned long long), &e)) {
        int i = 0;
        while (i < cv->n && buffer_alloc(&cv->stage[i], cv->in[i].buf->bytes, &e))
            i++;
        if (i == cv->n)
            return true;
    }
    (void)cudaGetLastError();
    cudacheck_reset();
    free_stage(cv);
    char sz[32];
    buffer_format_bytes(need, sz, sizeof sz);
    snprintf(cv->note, sizeof cv->note,
             "no canary repetition: no room on the device for a second copy of the inputs (%s)",
             sz);
    return false;
}

/* Every input's bytes copied from src (the inputs, or the stage) to the
 * other, on stream s. */
static bool copy_inputs(canary *cv, bool to_stage, cudaStream_t s, cl_err *e)
{
    for (int i = 0; i < cv->n; i++) {
        void *in = cv->in[i].buf->ptr, *st = cv->stage[i].ptr;
        CUDA_CHECK(e, cudaMemcpyAsync(to_stage ? st : in, to_stage ? in : st,
                                      cv->in[i].buf->bytes, cudaMemcpyDeviceToDevice, s));
    }
    return true;
}

bool canary_open(engine_ctx *c, problem_data *p, const char *variant, bool keep, canary *cv,
                 cl_err *e)
{
    memset(cv, 0, sizeof *cv);
    cv->c = c;
    cv->p = p;
    cv->variant = variant;
    cv->n = problem_inputs(p, cv->in, CANARY_MAX_INPUTS);
    if (cv->n == 0 || !alloc_stage(cv))
        return true;
    cudaStream_t s = engine_g.stream;
    /* keep: the inputs timed on go to the stage while the fresh ones are
     * made (a reference kernel reads them from p's buffers), then trade
     * places with them */
    if (keep) {
        if (!copy_inputs(cv, true, s, e))
            return false;
        CUDA_CHECK(e, cudaStreamSynchronize(s));
    }
    cv->seed = rng_secret();
    if (!engine_fresh_prepare(c, p, variant, cv->seed, e) || !problem_upload(p, s, e))
        return false;
    for (int i = 0; i < cv->n; i++) {
        if (keep)
            CUDA_CHECK(e, kernels_swap_bytes(cv->in[i].buf->ptr, cv->stage[i].ptr,
                                             cv->in[i].buf->bytes, s));
    }
    if (!keep && (!copy_inputs(cv, true, s, e) || !problem_poison(p, s, e)))
        return false;
    CUDA_CHECK(e, cudaStreamSynchronize(s));
    cv->draw = rng_secret() | 1u;
    rng_seed(&cv->mix, rng_secret());
    cv->changed = -1;
    cv->ready = true;
    return true;
}

bool canary_before(void *ud, cudaStream_t stream, cl_err *e)
{
    canary *cv = ud;
    return copy_inputs(cv, false, stream, e) && problem_poison(cv->p, stream, e);
}

/* The first input whose bytes differ from its staged copy (-1: none), and
 * how many of its bytes do. */
static bool changed_input(canary *cv, int *which, unsigned long long *bytes, cl_err *e)
{
    cudaStream_t s = engine_g.stream;
    *which = -1;
    *bytes = 0;
    for (int i = 0; i < cv->n && *which < 0; i++) {
        unsigned long long n = 0;
        CUDA_CHECK(e, kernels_count_diff(cv->in[i].buf->ptr, cv->stage[i].ptr,
                                         cv->in[i].buf->bytes, cv->counter.ptr, s));
        CUDA_CHECK(e, cudaMemcpyAsync(&n, cv->counter.ptr, sizeof n, cudaMemcpyDeviceToHost, s));
        CUDA_CHECK(e, cudaStreamSynchronize(s));
        if (n) {
            *which = i;
            *bytes = n;
        }
    }
    return true;
}

bool canary_after(void *ud, cl_err *e)
{
    canary *cv = ud;
    if (!problem_download(cv->p, engine_g.stream, e))
        return false;
    cv->rep = problem_check(cv->p);
    cv->ran = true;
    return changed_input(cv, &cv->changed, &cv->changed_bytes, e);
}

/* The smallest power of two at least n. */
static size_t pow2_at_least(size_t n)
{
    size_t p = 1;
    while (p < n && p <= SIZE_MAX / 2)
        p *= 2;
    return p;
}

bool canary_shuffle(void *ud, cudaStream_t stream, cl_err *e)
{
    canary *cv = ud;
    uint64_t draw = rng_next(&cv->mix);
    for (int i = 0; i < cv->n; i++) {
        const problem_input *in = &cv->in[i];
        if (in->elem_bytes == 0 || in->count < 2)
            continue;
        /* one mask for every input of the same length, so that inputs
         * made from each other (a matrix and its BF16 copy) stay alike */
        uint64_t mask = draw & (uint64_t)(pow2_at_least(in->count) - 1);
        CUDA_CHECK(e, kernels_xor_pairs(in->buf->ptr, in->count, in->elem_bytes,
                                        mask ? mask : 1u, stream));
    }
    return true;
}

/* r wrong with a canary's failed check: its words after why. */
static void wrong_because(run_result *r, const check_report *rep, const char *why)
{
    problem_report(rep, r);
    char m[sizeof r->message];
    snprintf(m, sizeof m, "%s: %s", why, r->message);
    snprintf(r->message, sizeof r->message, "%s", m);
    r->status = RS_WRONG;
}

bool canary_judge(const canary *cv, run_result *r)
{
    if (!cv->ready || !cv->ran)
        return false;
    if (cv->rep.status != CHECK_OK) {
        wrong_because(r, &cv->rep,
                      "wrong on fresh inputs during timing (one timed run, chosen at random, "
                      "was given new inputs and checked): the kernel seems to replay an earlier "
                      "answer or to skip work on some calls");
        return true;
    }
    if (cv->changed < 0)
        return false;
    r->status = RS_WRONG;
    r->nmismatch = 0;
    snprintf(r->message, sizeof r->message,
             "the kernel changed its input '%s' during timing (%llu bytes differ from what "
             "cudalab gave it): inputs must be left as they are, or a kernel could mark "
             "inputs it has already seen and replay their answer",
             cv->in[cv->changed].name, cv->changed_bytes);
    return true;
}

void canary_close(canary *cv)
{
    free_stage(cv);
    cv->ready = false;
}
