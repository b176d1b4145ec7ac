#include "engine/engine.h"

#include <stdio.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include <nvtx3/nvToolsExt.h>

#include "gpu/buffer.h"
#include "gpu/cudacheck.h"
#include "gpu/timing.h"
#include "kernels.h"
#include "engine/engine_internal.h"
#include "engine/problem.h"

static void timing_progress(void *ud, const char *phase, int rep, int of)
{
    engine_progress(ud, phase, rep, of);
}

bool engine_gpu_failed(const engine_ctx *c, run_result *r, const cl_err *e, bool library)
{
    cudaError_t code = cudacheck_last();
    cudaError_t s1 = cudaDeviceSynchronize();
    cudaError_t s2 = cudaGetLastError();
    cudaError_t sticky = cudacheck_is_sticky(code) ? code
                         : cudacheck_is_sticky(s1) ? s1
                         : cudacheck_is_sticky(s2) ? s2
                                                    : cudaSuccess;
    if (sticky != cudaSuccess) {
        run_fault *f = c->fault;
        memset(f, 0, sizeof *f);
        f->run = c->req->run;
        snprintf(f->variant, sizeof f->variant, "%s", r->variant);
        snprintf(f->cause, sizeof f->cause, "cuda");
        snprintf(f->message, sizeof f->message, "%s", cudacheck_plain(sticky));
        f->code = (int)sticky;
        return false;
    }
    r->code = (int)code;
    const char *lib = library ? kernels_library_error() : "";
    if (lib && lib[0])
        snprintf(r->message, sizeof r->message, "%s (%s)", e->msg, lib);
    else
        snprintf(r->message, sizeof r->message, "%s", e->msg);
    r->status = RS_ERROR;
    return true;
}

bool engine_gpu_shipped_once(void *ud, cudaStream_t s, cl_err *e)
{
    shipped_call *sc = ud;
    CUDA_CHECK_LAUNCH(e, sc->p->ops->launch(sc->p, sc->k, s));
    return true;
}

bool engine_gpu_copy_once(void *ud, cudaStream_t s, cl_err *e)
{
    problem_data *p = ud;
    CUDA_CHECK(e, cudaMemcpyAsync(p->dcopy.ptr, p->dout.ptr, p->dout.bytes,
                                  cudaMemcpyDeviceToDevice, s));
    return true;
}

static bool target_once(void *ud, cudaStream_t s, cl_err *e)
{
    gpu_target *t = ud;
    if (!t->once(t->ud, s, e))
        return false;
    if (t->sync_device)
        CUDA_CHECK(e, cudaDeviceSynchronize());
    return true;
}

/* Poison, one run, download, check. */
static bool checked_run(gpu_target *t, check_report *rep, cl_err *e)
{
    problem_data *p = t->p;
    if (!problem_poison(p, engine_g.stream, e) || !target_once(t, engine_g.stream, e))
        return false;
    CUDA_CHECK(e, cudaStreamSynchronize(engine_g.stream));
    CUDA_CHECK(e, cudaGetLastError());
    if (!problem_download(p, engine_g.stream, e))
        return false;
    *rep = problem_check(p);
    return true;
}

/* Appends note to r's message, after "; " when it has one. */
static void append_note(run_result *r, const char *note)
{
    size_t len = strlen(r->message);
    snprintf(r->message + len, sizeof r->message - len, "%s%s", len ? "; " : "", note);
}

/* Before each timed run of a managed problem: the CPU writes the inputs
 * again, so every run starts with their pages in host memory. */
static bool managed_before(void *ud, cl_err *e)
{
    return problem_upload(ud, engine_g.stream, e);
}

/* Measures one GPU row into r: check with fresh inputs, time, recheck.
 * false only when the context broke (fault filled). */
bool engine_gpu_measure(engine_ctx *c, gpu_target *t, const row_rates *x, run_result *r)
{
    problem_data *p = t->p;
    cl_err e = {{0}};
    c->variant = r->variant;
    cudacheck_reset();
    nvtxRangePushA(r->variant);
    bool ok = false;

    uint64_t seed = c->seed++;
    r->seed = seed;
    engine_progress(c, "check", 0, 1);
    if (!problem_prepare(p, seed, &e)) {
        engine_row_error(r, e.msg);
        ok = true;
        goto done;
    }
    check_report first = {0}, last = {0};
    if (!problem_upload(p, engine_g.stream, &e))
        goto gpu_error;
    if (t->copy) {
        if (!target_once(t, engine_g.stream, &e))
            goto gpu_error;
        CUDA_CHECK_GOTO(&e, cudaStreamSynchronize(engine_g.stream), gpu_error);
    } else if (!checked_run(t, &first, &e)) {
        goto gpu_error;
    }
    engine_progress(c, "check", 1, 1);

    if (c->req->check_only) {
        if (t->copy) {
            r->status = RS_CORRECT;
            snprintf(r->message, sizeof r->message, "check-only run: not timed");
        } else {
            problem_report(&first, r);
        }
        ok = true;
        goto done;
    }

    size_t flush_bytes = 0;
    void *flush = engine_device_flush(&flush_bytes);
    timing_opts o = {
        .stream = engine_g.stream,
        .budget_s = c->req->budget_s > 0.0 ? c->req->budget_s : TIMING_DEFAULT_BUDGET_S,
        .working_set = (size_t)(t->copy ? 8.0 * (double)p->sh.nout : c->ops->spec->bytes(&p->d)),
        .l2_bytes = (size_t)(engine_g.dev.l2_mib * MIB),
        .flush = flush,
        .flush_bytes = flush_bytes,
        .progress = timing_progress,
        .progress_ud = c,
        .before = c->ops->spec->managed && !t->copy ? managed_before : NULL,
        .before_ud = p,
    };
    timing_result tr;
    if (!timing_run(&o, target_once, t, &tr, &e))
        goto gpu_error;
    r->median_ms = tr.s.median;
    r->min_ms = tr.s.min;
    r->max_ms = tr.s.max;
    r->spread = tr.s.spread;
    r->samples = (int)tr.s.n;

    if (t->copy) {
        r->status = RS_CORRECT;
        char sz[32];
        buffer_format_bytes(p->dout.bytes, sz, sizeof sz);
        snprintf(r->message, sizeof r->message,
                 "cudaMemcpyAsync device to device of %s (the output's size): the bandwidth "
                 "a kernel that reads and writes every byte once can hope for",
                 sz);
    } else {
        engine_progress(c, "check", 1, 2);
        if (!checked_run(t, &last, &e))
            goto gpu_error;
        if (first.status != CHECK_OK) {
            problem_report(&first, r);
        } else if (last.status != CHECK_OK) {
            problem_report(&last, r);
            char m[sizeof r->message];
            snprintf(m, sizeof m, "after timing: %s", r->message);
            snprintf(r->message, sizeof r->message, "%s", m);
        } else {
            problem_report(&first, r);
        }
    }
    if (!tr.flushed && o.working_set < 4 * o.l2_bytes) {
        size_t len = strlen(r->message);
        snprintf(r->message + len, sizeof r->message - len,
                 "%sL2 not flushed between repetitions (no room for a flush buffer)",
                 len ? "; " : "");
    }
    engine_rows_derive(c, p, t->copy, x, &engine_g.dev, r);
    if (c->ops->spec->managed && !t->copy)
        append_note(r, "x and y were written by the CPU before each run: their pages start "
                       "in host memory, and moving them counts; GB/s counts x, y and z once "
                       "per second of that");
    ok = true;
    goto done;

gpu_error:
    ok = engine_gpu_failed(c, r, &e, t->library);
done:
    nvtxRangePop();
    c->variant = NULL;
    return ok;
}
