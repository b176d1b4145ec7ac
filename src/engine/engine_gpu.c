#include "engine/engine.h"

#include <stdio.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include <nvtx3/nvToolsExt.h>

#include "core/clock.h"
#include "core/stats.h"
#include "core/strfmt.h"
#include "gpu/buffer.h"
#include "gpu/cudacheck.h"
#include "gpu/timing.h"
#include "kernels.h"
#include "engine/engine_canary.h"
#include "engine/engine_internal.h"
#include "engine/problem.h"

static void timing_progress(void *ud, const char *phase, int rep, int of)
{
    engine_row_progress(ud, phase, rep, of);
}

bool engine_gpu_failed(const engine_ctx *ctx, run_result *row, const cl_err *err, bool library)
{
    cudaError_t code = cudaSuccess;
    cudaError_t sticky = engine_row_sticky_error(&code);
    if (sticky != cudaSuccess) {
        engine_row_fault(&ctx->rows, row->variant, sticky, NULL);
        return false;
    }
    row->code = (int)code;
    const char *lib = library ? kernels_library_error() : "";
    if (lib && lib[0])
        snprintf(row->message, sizeof row->message, "%s (%s)", err->msg, lib);
    else
        snprintf(row->message, sizeof row->message, "%s", err->msg);
    row->status = RS_ERROR;
    return true;
}

bool engine_row_prepare(engine_ctx *ctx, problem_data *data, run_result *row, bool *alive)
{
    cl_err e = {{0}};
    uint64_t seed = ctx->seed++;
    row->seed = seed;
    /* While the reference runs, a hang or a fault is the lab's. */
    ctx->rows.variant = RUN_FAULT_REFERENCE;
    engine_row_progress(&ctx->rows, "reference", 0, 1);
    bool prepared = problem_prepare(data, seed, &e);
    ctx->rows.variant = row->variant;
    engine_row_progress(&ctx->rows, "check", 0, 1);
    if (!prepared) {
        /* The lab's reference broke the context: the fault is the lab's. */
        *alive = !engine_reference_fault(ctx, &e);
        if (*alive)
            engine_row_error(row, e.msg);
    }
    return prepared;
}

bool engine_reference_fault(const engine_ctx *ctx, const cl_err *err)
{
    cudaError_t code = cudacheck_last();
    cudaError_t s1 = cudaDeviceSynchronize();
    cudaError_t sticky = cudacheck_is_sticky(code) ? code
                         : cudacheck_is_sticky(s1) ? s1
                                                    : cudaSuccess;
    if (sticky == cudaSuccess)
        return false;
    engine_row_fault(&ctx->rows, RUN_FAULT_REFERENCE, sticky, err->msg);
    return true;
}

bool engine_gpu_shipped_once(void *ud, cudaStream_t stream, cl_err *err)
{
    shipped_call *sc = ud;
    CUDA_CHECK_LAUNCH(err, sc->p->ops->launch(sc->p, sc->k, stream));
    return true;
}

bool engine_gpu_copy_once(void *ud, cudaStream_t stream, cl_err *err)
{
    return problem_copy_once(ud, stream, err);
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

/* Poison, one run (its time into *ms between two events), download, check. */
static bool checked_run(gpu_target *t, check_report *rep, double *ms, cl_err *e)
{
    problem_data *p = t->p;
    cudaEvent_t ev[2] = {NULL, NULL};
    bool ok = false;
    float f = 0.0f;
    if (!problem_poison(p, engine_g.stream, e))
        return false;
    CUDA_CHECK(e, cudaEventCreate(&ev[0]));
    CUDA_CHECK_GOTO(e, cudaEventCreate(&ev[1]), done);
    CUDA_CHECK_GOTO(e, cudaEventRecord(ev[0], engine_g.stream), done);
    if (!target_once(t, engine_g.stream, e))
        goto done;
    CUDA_CHECK_GOTO(e, cudaEventRecord(ev[1], engine_g.stream), done);
    CUDA_CHECK_GOTO(e, cudaStreamSynchronize(engine_g.stream), done);
    CUDA_CHECK_GOTO(e, cudaGetLastError(), done);
    CUDA_CHECK_GOTO(e, cudaEventElapsedTime(&f, ev[0], ev[1]), done);
    *ms = (double)f;
    if (!problem_download(p, engine_g.stream, e))
        goto done;
    *rep = problem_check(p);
    ok = true;
done:
    for (int i = 0; i < 2; i++)
        if (ev[i])
            cudaEventDestroy(ev[i]);
    return ok;
}

/* A row is slow when one run takes more than this fraction of the timing
 * budget: fewer than 20 runs would fit. */
#define SLOW_RUN_FRACTION 0.05

/* One run of t on the engine's stream, timed with events, into *ms. */
static bool timed_once(gpu_target *t, double *ms, cl_err *e)
{
    cudaEvent_t ev[2] = {NULL, NULL};
    bool ok = false;
    float f = 0.0f;
    CUDA_CHECK(e, cudaEventCreate(&ev[0]));
    CUDA_CHECK_GOTO(e, cudaEventCreate(&ev[1]), done);
    CUDA_CHECK_GOTO(e, cudaEventRecord(ev[0], engine_g.stream), done);
    if (!target_once(t, engine_g.stream, e))
        goto done;
    CUDA_CHECK_GOTO(e, cudaEventRecord(ev[1], engine_g.stream), done);
    CUDA_CHECK_GOTO(e, cudaEventSynchronize(ev[1]), done);
    CUDA_CHECK_GOTO(e, cudaEventElapsedTime(&f, ev[0], ev[1]), done);
    *ms = (double)f;
    ok = true;
done:
    for (int i = 0; i < 2; i++)
        if (ev[i])
            cudaEventDestroy(ev[i]);
    return ok;
}

/* Fresh inputs, their reference and their upload for the check after
 * timing, so that a launcher replaying an answer it kept from an earlier
 * call (a scratch Buffer lives across the calls of a size) is caught: the
 * kept answer is of the old inputs.  A declared problem's inputs are drawn
 * from part of their distributions (engine_fresh_prepare): a sum of 2^24
 * values uniform in [0, 1) hardly moves with the seed (its relative spread
 * is about 1e-4, the tolerance's size), so fresh inputs alone would let a
 * kept sum pass.  The row keeps the first run's seed, the one that
 * reproduces it.  false with e when the reference or the upload failed. */
static bool fresh_inputs(engine_ctx *c, gpu_target *t, run_result *r, cl_err *e)
{
    return engine_fresh_prepare(c, t->p, r->variant, c->seed++, e) &&
           problem_upload(t->p, engine_g.stream, e);
}

/* Times a slow row with three runs and no warm-up: a run just made
 * (first_ms, after the checked one, whose time may include one-time costs
 * such as loading the kernel), one more, and the check after timing
 * (*last), on fresh inputs. */
static bool slow_timing(engine_ctx *c, gpu_target *t, double first_ms, check_report *last,
                        run_result *r, cl_err *e)
{
    double v[3] = {first_ms, 0.0, 0.0};
    if (!timed_once(t, &v[1], e) || !fresh_inputs(c, t, r, e) || !checked_run(t, last, &v[2], e))
        return false;
    stats_summary st = stats_summarise(v, 3);
    r->median_ms = st.median;
    r->min_ms = st.min;
    r->max_ms = st.max;
    r->spread = st.spread;
    r->samples = 3;
    return true;
}

/* Appends note to r's message, after "; " when it has one. */
static void append_note(run_result *r, const char *note)
{
    size_t len = strlen(r->message);
    strfmt_append(r->message, sizeof r->message, len, "%s%s", len ? "; " : "", note);
}

/* Before each timed run of a managed problem: the CPU writes the inputs
 * again, so every run starts with their pages in host memory. */
static bool managed_before(void *ud, cl_err *e)
{
    return problem_upload(ud, engine_g.stream, e);
}

/* "after timing: " before r's message: the check after timing failed. */
static void after_timing(run_result *r)
{
    char m[sizeof r->message];
    snprintf(m, sizeof m, "after timing: %s", r->message);
    snprintf(r->message, sizeof r->message, "%s", m);
}

/* Fresh inputs uploaded and the first run: checked (the copy: only run,
 * on whatever the buffers hold), its time into *first_ms. */
static bool first_run(engine_ctx *c, gpu_target *t, check_report *first, double *first_ms,
                      cl_err *e)
{
    if (!t->copy && !problem_upload(t->p, engine_g.stream, e))
        return false;
    if (t->copy) {
        if (!target_once(t, engine_g.stream, e))
            return false;
        CUDA_CHECK(e, cudaStreamSynchronize(engine_g.stream));
    } else if (!checked_run(t, first, first_ms, e)) {
        return false;
    }
    engine_row_progress(&c->rows, "check", 1, 1);
    return true;
}

/* A check-only request's row: the first run's verdict, not timed. */
static void check_only_row(const gpu_target *t, const check_report *first, run_result *r)
{
    if (t->copy) {
        r->status = RS_CORRECT;
        snprintf(r->message, sizeof r->message, "check-only run: not timed");
    } else {
        problem_report(first, r);
    }
}

/* Whether the row may be a slow one, which a second run decides: a kernel
 * row (not the copy, not a problem whose inputs and output live in host
 * memory) whose first run was correct and took over slow_ms. */
static bool first_run_slow(const engine_ctx *c, const gpu_target *t, const check_report *first,
                           double first_ms, double slow_ms)
{
    return !t->copy && !c->ops->spec->host_io && first->status == CHECK_OK &&
           first_ms > slow_ms;
}

/* A slow row (a run took again_ms): timed by slow_timing, reported and
 * derived.  false with e when a run failed. */
static bool slow_row(engine_ctx *c, gpu_target *t, const row_rates *x, const check_report *first,
                     double again_ms, run_result *r, cl_err *e)
{
    check_report last = {0};
    engine_row_progress(&c->rows, "timing", 1, 3);
    if (!slow_timing(c, t, again_ms, &last, r, e))
        return false;
    if (last.status != CHECK_OK) {
        problem_report(&last, r);
        after_timing(r);
    } else {
        problem_report(first, r);
        size_t len = strlen(r->message);
        strfmt_append(r->message, sizeof r->message, len,
                      "; slow at this size (%.0f ms a run): timed by three runs, the two "
                      "checked ones among them, without a warm-up",
                      again_ms);
    }
    engine_rows_derive(c, t->p, false, x, &engine_g.dev, r);
    engine_rows_floor(c, t->p, &engine_g.dev, false, r);
    return true;
}

/* The copy's row message: what it copied, and what it stands for. */
static void copy_message(const problem_data *p, run_result *r)
{
    r->status = RS_CORRECT;
    char sz[32];
    buffer_format_bytes((size_t)(problem_copy_bytes(p) / 2), sz, sizeof sz);
    snprintf(r->message, sizeof r->message,
             "cudaMemcpyAsync device to device of %s (the output's size): the bandwidth "
             "a kernel that reads and writes every byte once can hope for",
             sz);
}

/* After timing: the canary's verdict (cv), then, for a row that had no
 * canary (no room for it), one more checked run on fresh inputs.  The
 * row's verdict is the first run's unless only a later one failed: the
 * canary, the inputs it left, or this run. */
static bool recheck(engine_ctx *c, gpu_target *t, const check_report *first, canary *cv,
                    run_result *r, cl_err *e)
{
    check_report last = {0};
    double last_ms = 0.0;
    if (first->status != CHECK_OK) {
        problem_report(first, r);
        return true;
    }
    if (canary_judge(cv, r))
        return true;
    /* a canary that ran was this check, during timing: fresh inputs, a
     * poisoned output, one checked repetition; and the vendor library is
     * cudalab's own code */
    if ((cv->ready && cv->ran) || t->library) {
        problem_report(first, r);
        return true;
    }
    if (!fresh_inputs(c, t, r, e))
        return false;
    engine_row_progress(&c->rows, "check", 1, 2);
    if (!checked_run(t, &last, &last_ms, e))
        return false;
    if (last.status != CHECK_OK) {
        problem_report(&last, r);
        after_timing(r);
    } else {
        problem_report(first, r);
    }
    return true;
}

/* The row timed by gpu/timing.h's rules within budget_s with a canary
 * among its repetitions (cv, when staged), checked again, its figures
 * derived and its notes added.  false with e when a run failed. */
static bool timed_run(engine_ctx *c, gpu_target *t, const row_rates *x, const check_report *first,
                      double budget_s, canary *cv, run_result *r, cl_err *e)
{
    problem_data *p = t->p;
    size_t flush_bytes = 0;
    void *flush = engine_device_flush(&flush_bytes);
    timing_opts o = {
        .stream = engine_g.stream,
        .budget_s = budget_s,
        .working_set = (size_t)(t->copy ? problem_copy_bytes(p) : problem_spec_bytes(c->ops->spec, &p->d)),
        .l2_bytes = (size_t)(engine_g.dev.l2_mib * MIB),
        .flush = flush,
        .flush_bytes = flush_bytes,
        .progress = timing_progress,
        .progress_ud = &c->rows,
        .before = c->ops->spec->managed && !t->copy ? managed_before : NULL,
        .before_ud = p,
        .canary_draw = cv->ready ? cv->draw : 0,
        .canary_before = canary_before,
        .canary_after = canary_after,
        .canary_shuffle = canary_shuffle,
        .canary_ud = cv,
    };
    timing_result tr;
    if (!timing_run(&o, target_once, t, &tr, e))
        return false;
    r->median_ms = tr.s.median;
    r->min_ms = tr.s.min;
    r->max_ms = tr.s.max;
    r->spread = tr.s.spread;
    r->samples = (int)tr.s.n;
    if (t->copy)
        copy_message(p, r);
    else if (!recheck(c, t, first, cv, r, e))
        return false;
    bool cold = tr.flushed || o.working_set >= 4 * o.l2_bytes;
    if (!cold)
        append_note(r, "L2 not flushed between repetitions (no room for a flush buffer)");
    if (cv->note[0])
        append_note(r, cv->note);
    engine_rows_derive(c, p, t->copy, x, &engine_g.dev, r);
    if (!t->copy)
        engine_rows_floor(c, p, &engine_g.dev, cold, r);
    if (c->ops->spec->managed && !t->copy)
        append_note(r, "x and y were written by the CPU before each run: their pages start "
                       "in host memory, and moving them counts; GB/s counts x, y and z once "
                       "per second of that");
    return true;
}

/* timed_run with a canary staged first (not for the copy, nor for a
 * problem whose inputs the CPU writes before every run). */
static bool timed_row(engine_ctx *c, gpu_target *t, const row_rates *x, const check_report *first,
                      double budget_s, run_result *r, cl_err *e)
{
    canary cv;
    memset(&cv, 0, sizeof cv);
    bool ok = true;
    if (!t->copy && !t->library && !c->ops->spec->managed && first->status == CHECK_OK)
        ok = canary_open(c, t->p, r->variant, true, &cv, e);
    ok = ok && timed_run(c, t, x, first, budget_s, &cv, r, e);
    canary_close(&cv);
    return ok;
}

/* The prepared row: first run, then (unless check-only) a slow row's
 * timing or the usual one.  false with e when a run failed. */
static bool measure_prepared(engine_ctx *c, gpu_target *t, const row_rates *x, run_result *r,
                             cl_err *e)
{
    check_report first = {0};
    double first_ms = 0.0;
    if (!first_run(c, t, &first, &first_ms, e))
        return false;
    if (c->req->check_only) {
        check_only_row(t, &first, r);
        return true;
    }
    double budget_s = c->req->budget_s > 0.0 ? c->req->budget_s : TIMING_DEFAULT_BUDGET_S;
    double slow_ms = SLOW_RUN_FRACTION * 1e3 * budget_s;
    /* A slow first run may only have paid for loading the kernel: a second
     * one decides. */
    if (first_run_slow(c, t, &first, first_ms, slow_ms)) {
        double again_ms = 0.0;
        if (!timed_once(t, &again_ms, e))
            return false;
        if (again_ms > slow_ms)
            return slow_row(c, t, x, &first, again_ms, r, e);
    }
    return timed_row(c, t, x, &first, budget_s, r, e);
}

/* Measures one GPU row into row: check with fresh inputs, time, recheck.
 * false only when the context broke (fault filled). */
bool engine_gpu_measure(engine_ctx *ctx, gpu_target *target, const row_rates *rates,
                        run_result *row)
{
    cl_err e = {{0}};
    double t0 = clock_now_ms();
    ctx->rows.variant = row->variant;
    cudacheck_reset();
    nvtxRangePushA(row->variant);
    bool ok = false;
    /* the copy moves bytes whatever they are: no inputs or reference */
    if (target->copy || engine_row_prepare(ctx, target->p, row, &ok)) {
        ok = measure_prepared(ctx, target, rates, row, &e);
        if (!ok)
            ok = engine_gpu_failed(ctx, row, &e, target->library);
    }
    row->wall_ms = clock_now_ms() - t0;
    nvtxRangePop();
    ctx->rows.variant = NULL;
    return ok;
}
