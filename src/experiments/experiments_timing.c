#include "experiments/experiments.h"

#include <stdio.h>
#include <cuda_runtime_api.h>

#include "core/clock.h"
#include "prof/roofline.h"
#include "gpu/buffer.h"
#include "gpu/cudacheck.h"
#include "gpu/nvtx.h"
#include "profiling.h"
#include "experiments/experiments_internal.h"

/* ---- timing pitfalls ------------------------------------------------------------------ */

#define TIMING_REPS 20

static bool first_launch_done;

/* What the timing experiment measures with: the FMA kernel's input and
 * output, the tiny kernel's flag, two events, and the times of each row. */
typedef struct timing_bench {
    io_bufs io;
    gpu_buffer one;            /* the tiny kernel's output */
    cudaEvent_t ev0, ev1;
    size_t n;                  /* the FMA kernel's elements */
    int iters;                 /* its FMA steps, calibrated */
    float flag;                /* what the tiny kernel wrote */
    bool was_first;            /* its first launch in this worker was measured */
    double t[5][TIMING_REPS];  /* by row */
} timing_bench;

/* One launch of the tiny kernel, the host clock around launch and sync. */
static bool tiny_launch(xctx *x, timing_bench *b, double *ms, cl_err *e)
{
    double h0 = clock_now_ms();
    CUDA_CHECK(e, profiling_first_launch(b->one.ptr, x->s));
    CUDA_CHECK(e, cudaStreamSynchronize(x->s));
    *ms = clock_now_ms() - h0;
    return true;
}

/* The tiny kernel's first launch (in this worker: first_launch_done),
 * then TIMING_REPS later ones. */
static bool tiny_launches(xctx *x, timing_bench *b, cl_err *e)
{
    if (!tiny_launch(x, b, &b->t[3][0], e))
        return false;
    first_launch_done = true;
    for (int i = 0; i < TIMING_REPS; i++)
        if (!tiny_launch(x, b, &b->t[4][i], e))
            return false;
    return true;
}

/* Picks the FMA steps so that one run takes about 2 ms by events. */
static bool calibrate(xctx *x, timing_bench *b, cl_err *e)
{
    float cal = 0.0f;
    CUDA_CHECK(e, cudaEventRecord(b->ev0, x->s));
    CUDA_CHECK(e, profiling_fma(b->io.din.ptr, b->io.dout.ptr, b->n, b->iters, x->s));
    CUDA_CHECK(e, cudaEventRecord(b->ev1, x->s));
    CUDA_CHECK(e, cudaEventSynchronize(b->ev1));
    CUDA_CHECK(e, cudaEventElapsedTime(&cal, b->ev0, b->ev1));
    if (cal > 0.0f) {
        double want = (double)b->iters * 2.0 / (double)cal;
        b->iters = want < 16.0 ? 16 : want > 65536.0 ? 65536 : (int)want;
    }
    return true;
}

/* The host clock around the launch alone; the sync after it untimed. */
static bool time_host_nosync(xctx *x, timing_bench *b, cl_err *e)
{
    for (int i = 0; i < TIMING_REPS; i++) {
        engine_row_progress(&x->rows, "timing", i + 1, TIMING_REPS);
        double h0 = clock_now_ms();
        CUDA_CHECK(e, profiling_fma(b->io.din.ptr, b->io.dout.ptr, b->n, b->iters, x->s));
        b->t[0][i] = clock_now_ms() - h0;
        CUDA_CHECK(e, cudaStreamSynchronize(x->s));
    }
    return true;
}

/* The host clock around the launch and the sync. */
static bool time_host_sync(xctx *x, timing_bench *b, cl_err *e)
{
    for (int i = 0; i < TIMING_REPS; i++) {
        double h0 = clock_now_ms();
        CUDA_CHECK(e, profiling_fma(b->io.din.ptr, b->io.dout.ptr, b->n, b->iters, x->s));
        CUDA_CHECK(e, cudaStreamSynchronize(x->s));
        b->t[1][i] = clock_now_ms() - h0;
    }
    return true;
}

/* Events recorded before and after the launch on the same stream. */
static bool time_events(xctx *x, timing_bench *b, cl_err *e)
{
    for (int i = 0; i < TIMING_REPS; i++) {
        float ms = 0.0f;
        CUDA_CHECK(e, cudaEventRecord(b->ev0, x->s));
        CUDA_CHECK(e, profiling_fma(b->io.din.ptr, b->io.dout.ptr, b->n, b->iters, x->s));
        CUDA_CHECK(e, cudaEventRecord(b->ev1, x->s));
        CUDA_CHECK(e, cudaEventSynchronize(b->ev1));
        CUDA_CHECK(e, cudaEventElapsedTime(&ms, b->ev0, b->ev1));
        b->t[2][i] = (double)ms;
    }
    return true;
}

/* The FMA kernel timed the three ways, each in its NVTX range. */
static bool time_three_ways(xctx *x, timing_bench *b, cl_err *e)
{
    nvtx_push("host timer without sync");
    bool ok = time_host_nosync(x, b, e);
    nvtx_pop();
    if (!ok)
        return false;
    nvtx_push("host timer with sync");
    ok = time_host_sync(x, b, e);
    nvtx_pop();
    if (!ok)
        return false;
    nvtx_push("CUDA events");
    ok = time_events(x, b, e);
    nvtx_pop();
    return ok;
}

/* One more run of the FMA kernel into its poisoned output, downloaded for
 * the check. */
static bool checked_fma(xctx *x, timing_bench *b, cl_err *e)
{
    size_t bytes = b->n * sizeof(float);
    if (!experiments_poison(x, b->io.dout.ptr, bytes, e))
        return false;
    CUDA_CHECK(e, profiling_fma(b->io.din.ptr, b->io.dout.ptr, b->n, b->iters, x->s));
    return experiments_download(x, b->io.hout, b->io.dout.ptr, bytes, e);
}

/* Each row's times, figures and check. */
static void timing_figures(const xctx *x, timing_bench *b, run_result r[5])
{
    for (int i = 0; i < 3; i++) {
        experiments_set_summary(&r[i], b->t[i], TIMING_REPS);
        experiments_check_fma(&r[i], b->io.hin, b->io.hout, b->n, b->iters, x->seed);
        r[i].tflops = PROFILING_FMA_FLOPS(b->iters) * (double)b->n / (r[i].median_ms * 1e9);
    }
    r[0].tflops = -1.0;
    experiments_set_summary(&r[3], b->t[3], 1);
    experiments_set_summary(&r[4], b->t[4], TIMING_REPS);
    for (int i = 3; i < 5; i++) {
        r[i].status = b->flag == 1.0f ? RS_CORRECT : RS_WRONG;
        if (b->flag != 1.0f)
            engine_row_note(&r[i], "the kernel did not write its output (got %g)",
                            (double)b->flag);
    }
}

/* What each row shows, beside the others. */
static void timing_notes(const timing_bench *b, run_result r[5])
{
    engine_row_note(
        &r[0],
        "clock read right after the launch returned: this is the cost of queueing the "
        "kernel, not of running it (%.0fx less than the events measure)",
        r[2].median_ms / r[0].median_ms);
    engine_row_note(
        &r[1],
        "clock read after cudaStreamSynchronize: kernel time plus launch and wake-up "
        "overhead, %.3f ms more than the events",
        r[1].median_ms - r[2].median_ms);
    engine_row_note(
        &r[2], "cudaEventRecord before and after on the same stream: the GPU's own clock, "
               "no host overhead");
    if (b->was_first)
        engine_row_note(&r[3],
                        "host clock around launch + sync of a kernel never launched before in "
                        "this worker: includes loading it (%.1fx a later launch)",
                        r[3].median_ms / r[4].median_ms);
    else
        engine_row_note(&r[3],
                        "this worker launched the kernel in an earlier run, so no loading was "
                        "measured; a fresh worker shows the first-launch cost");
    engine_row_note(&r[4], "host clock around launch + sync of the same tiny kernel, %d times",
                    TIMING_REPS);
}

void experiments_timing(xctx *ctx)
{
    cl_err e = {{0}};
    timing_bench b = {.n = (size_t)1 << 24, .iters = 256};
    run_result r[5];
    static const char *const ids[] = {"timing_host_nosync", "timing_host_sync", "timing_events",
                                      "timing_first_launch", "timing_steady"};
    static const char *const labels[] = {"host timer, no sync", "host timer + sync",
                                         "CUDA events", "first launch", "later launches"};
    char sz[48];
    snprintf(sz, sizeof sz, "2^24 floats");
    for (int i = 0; i < 5; i++)
        experiments_row_start(ctx, &r[i], ids[i], labels[i], i < 3 ? sz : "1 thread block");
    cudacheck_reset();
    if (!experiments_io_setup(ctx, &b.io, b.n * sizeof(float), false, "timing", &e) ||
        !buffer_alloc(&b.one, sizeof(float), &e))
        goto fail;
    CUDA_CHECK_GOTO(&e, cudaEventCreate(&b.ev0), fail);
    CUDA_CHECK_GOTO(&e, cudaEventCreate(&b.ev1), fail);

    nvtx_push("first launch");
    b.was_first = !first_launch_done;
    ctx->rows.variant = r[3].variant;
    bool ok = tiny_launches(ctx, &b, &e);
    nvtx_pop();
    if (!ok || !experiments_download(ctx, &b.flag, b.one.ptr, sizeof b.flag, &e))
        goto fail;
    ctx->rows.variant = r[2].variant;
    if (!calibrate(ctx, &b, &e) || !time_three_ways(ctx, &b, &e) || !checked_fma(ctx, &b, &e))
        goto fail;
    timing_figures(ctx, &b, r);
    timing_notes(&b, r);
    for (int i = 0; i < 5; i++)
        engine_row_emit(&ctx->rows, &r[i]);
    goto done;
fail:
    for (int i = 0; i < 5; i++)
        experiments_row_failed(ctx, &r[i], &e);
done:
    if (b.ev0)
        cudaEventDestroy(b.ev0);
    if (b.ev1)
        cudaEventDestroy(b.ev1);
    experiments_io_free(&b.io);
    buffer_free(&b.one);
}

static double peak_bw(const xctx *x)
{
    return x->dev.peak_bw_measured_gbs > 0.0 ? x->dev.peak_bw_measured_gbs
                                             : x->dev.peak_bw_theory_gbs;
}

/* ---- roofline ---------------------------------------------------------------------------- */

typedef struct fma_job {
    const float *in;
    float *out;
    size_t n;
    int iters;
} fma_job;

static bool fma_once(void *ud, cudaStream_t s, cl_err *e)
{
    const fma_job *j = ud;
    CUDA_CHECK_LAUNCH(e, profiling_fma(j->in, j->out, j->n, j->iters, s));
    return true;
}

void experiments_roofline(xctx *ctx)
{
    static const int iters[] = {0, 1, 4, 16, 64, 256, 1024};
    const size_t ni = sizeof iters / sizeof iters[0];
    cl_err e = {{0}};
    io_bufs io;
    run_result r;
    size_t bytes = experiments_fit_device(128 * MIB, X_FLOOR, 2);
    size_t n = bytes / sizeof(float);
    char sz[32];
    buffer_format_bytes(bytes, sz, sizeof sz);
    roofline roof = {ctx->dev.peak_fp32_tflops * 1e3, peak_bw(ctx)};
    cudacheck_reset();
    if (!experiments_io_setup(ctx, &io, bytes, false, "roofline", &e))
        goto fail_all;

    for (size_t k = 0; k < ni; k++) {
        double flops = PROFILING_FMA_FLOPS(iters[k]);
        double ai = flops / 8.0;
        char id[RUN_ID_MAX], lab[RUN_ID_MAX];
        snprintf(id, sizeof id, "roof_%d", iters[k]);
        snprintf(lab, sizeof lab, "%.2f FLOP/B", ai);
        experiments_row_start(ctx, &r, id, lab, sz);
        fma_job j = {.in = io.din.ptr, .out = io.dout.ptr, .n = n, .iters = iters[k]};
        timing_result tr;
        if (!experiments_measure(ctx, lab, fma_once, &j, io.dout.ptr, io.hout, bytes, 2 * bytes,
                                 &tr, &e)) {
            experiments_row_failed(ctx, &r, &e);
            if (ctx->broken)
                goto done;
            continue;
        }
        experiments_set_timing(&r, &tr);
        r.gbps = 2.0 * (double)bytes / (r.median_ms * 1e6);
        r.tflops = flops * (double)n / (r.median_ms * 1e9);
        experiments_check_fma(&r, io.hin, io.hout, n, iters[k], ctx->seed);
        roofline_point p = {ai, r.tflops * 1e3};
        if (roofline_valid(&roof)) {
            double pct = roofline_pct_of_roof(&roof, &p);
            r.pct_peak_measured = pct;
            engine_row_note(
                &r,
                "%d FMA steps per element; the ridge is at %.1f FLOP/B (%.1f TFLOP/s / "
                "%.0f GB/s): %s, %.0f%% of the roof above it (%.2f of %.2f TFLOP/s)",
                iters[k], roofline_ridge(&roof), roof.peak_gflops / 1e3, roof.peak_gbs,
                roofline_side_name(roofline_side_of(&roof, ai)), pct, r.tflops,
                roofline_attainable(&roof, ai) / 1e3);
        } else {
            engine_row_note(&r,
                            "%d FMA steps per element; the device's peaks are unknown, so the "
                            "roofline cannot be drawn",
                            iters[k]);
        }
        engine_row_emit(&ctx->rows, &r);
    }
    goto done;
fail_all:
    experiments_rows_failed(ctx, "roof", iters, ni, sz, &e);
done:
    experiments_io_free(&io);
}
