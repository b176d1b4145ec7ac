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

void experiments_timing(xctx *x)
{
    cl_err e = {{0}};
    io_bufs io;
    gpu_buffer one = {0};
    cudaEvent_t ev0 = NULL, ev1 = NULL;
    run_result r[5];
    static const char *const ids[] = {"timing_host_nosync", "timing_host_sync", "timing_events",
                                      "timing_first_launch", "timing_steady"};
    static const char *const labels[] = {"host timer, no sync", "host timer + sync",
                                         "CUDA events", "first launch", "later launches"};
    double t[5][TIMING_REPS];
    size_t n = (size_t)1 << 24, bytes = n * sizeof(float);
    int iters = 256;
    char sz[48];
    snprintf(sz, sizeof sz, "2^24 floats");
    for (int i = 0; i < 5; i++)
        experiments_row_start(x, &r[i], ids[i], labels[i], i < 3 ? sz : "1 thread block");
    cudacheck_reset();
    if (!experiments_io_setup(x, &io, bytes, false, "timing", &e) ||
        !buffer_alloc(&one, sizeof(float), &e))
        goto fail;
    CUDA_CHECK_GOTO(&e, cudaEventCreate(&ev0), fail);
    CUDA_CHECK_GOTO(&e, cudaEventCreate(&ev1), fail);

    nvtx_push("first launch");
    bool was_first = !first_launch_done;
    x->rows.variant = r[3].variant;
    double h0 = clock_now_ms();
    CUDA_CHECK_GOTO(&e, profiling_first_launch(one.ptr, x->s), fail_pop);
    CUDA_CHECK_GOTO(&e, cudaStreamSynchronize(x->s), fail_pop);
    t[3][0] = clock_now_ms() - h0;
    first_launch_done = true;
    for (int i = 0; i < TIMING_REPS; i++) {
        h0 = clock_now_ms();
        CUDA_CHECK_GOTO(&e, profiling_first_launch(one.ptr, x->s), fail_pop);
        CUDA_CHECK_GOTO(&e, cudaStreamSynchronize(x->s), fail_pop);
        t[4][i] = clock_now_ms() - h0;
    }
    nvtx_pop();
    float flag = 0.0f;
    if (!experiments_download(x, &flag, one.ptr, sizeof flag, &e))
        goto fail;

    x->rows.variant = r[2].variant;
    CUDA_CHECK_GOTO(&e, cudaEventRecord(ev0, x->s), fail);
    CUDA_CHECK_GOTO(&e, profiling_fma(io.din.ptr, io.dout.ptr, n, iters, x->s), fail);
    CUDA_CHECK_GOTO(&e, cudaEventRecord(ev1, x->s), fail);
    CUDA_CHECK_GOTO(&e, cudaEventSynchronize(ev1), fail);
    float cal = 0.0f;
    CUDA_CHECK_GOTO(&e, cudaEventElapsedTime(&cal, ev0, ev1), fail);
    if (cal > 0.0f) {
        double want = (double)iters * 2.0 / (double)cal;
        iters = want < 16.0 ? 16 : want > 65536.0 ? 65536 : (int)want;
    }

    nvtx_push("host timer without sync");
    for (int i = 0; i < TIMING_REPS; i++) {
        engine_row_progress(&x->rows, "timing", i + 1, TIMING_REPS);
        h0 = clock_now_ms();
        CUDA_CHECK_GOTO(&e, profiling_fma(io.din.ptr, io.dout.ptr, n, iters, x->s), fail_pop);
        t[0][i] = clock_now_ms() - h0;
        CUDA_CHECK_GOTO(&e, cudaStreamSynchronize(x->s), fail_pop);
    }
    nvtx_pop();
    nvtx_push("host timer with sync");
    for (int i = 0; i < TIMING_REPS; i++) {
        h0 = clock_now_ms();
        CUDA_CHECK_GOTO(&e, profiling_fma(io.din.ptr, io.dout.ptr, n, iters, x->s), fail_pop);
        CUDA_CHECK_GOTO(&e, cudaStreamSynchronize(x->s), fail_pop);
        t[1][i] = clock_now_ms() - h0;
    }
    nvtx_pop();
    nvtx_push("CUDA events");
    for (int i = 0; i < TIMING_REPS; i++) {
        float ms = 0.0f;
        CUDA_CHECK_GOTO(&e, cudaEventRecord(ev0, x->s), fail_pop);
        CUDA_CHECK_GOTO(&e, profiling_fma(io.din.ptr, io.dout.ptr, n, iters, x->s), fail_pop);
        CUDA_CHECK_GOTO(&e, cudaEventRecord(ev1, x->s), fail_pop);
        CUDA_CHECK_GOTO(&e, cudaEventSynchronize(ev1), fail_pop);
        CUDA_CHECK_GOTO(&e, cudaEventElapsedTime(&ms, ev0, ev1), fail_pop);
        t[2][i] = (double)ms;
    }
    nvtx_pop();
    if (!experiments_poison(x, io.dout.ptr, bytes, &e))
        goto fail;
    CUDA_CHECK_GOTO(&e, profiling_fma(io.din.ptr, io.dout.ptr, n, iters, x->s), fail);
    if (!experiments_download(x, io.hout, io.dout.ptr, bytes, &e))
        goto fail;

    for (int i = 0; i < 3; i++) {
        experiments_set_summary(&r[i], t[i], TIMING_REPS);
        experiments_check_fma(&r[i], io.hin, io.hout, n, iters, x->seed);
        r[i].tflops = PROFILING_FMA_FLOPS(iters) * (double)n / (r[i].median_ms * 1e9);
    }
    r[0].tflops = -1.0;
    experiments_set_summary(&r[3], t[3], 1);
    experiments_set_summary(&r[4], t[4], TIMING_REPS);
    for (int i = 3; i < 5; i++) {
        r[i].status = flag == 1.0f ? RS_CORRECT : RS_WRONG;
        if (flag != 1.0f)
            engine_row_note(&r[i], "the kernel did not write its output (got %g)",
                                 (double)flag);
    }
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
    if (was_first)
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
    for (int i = 0; i < 5; i++)
        engine_row_emit(&x->rows, &r[i]);
    goto done;
fail_pop:
    nvtx_pop();
fail:
    for (int i = 0; i < 5; i++)
        experiments_row_failed(x, &r[i], &e);
done:
    if (ev0)
        cudaEventDestroy(ev0);
    if (ev1)
        cudaEventDestroy(ev1);
    experiments_io_free(&io);
    buffer_free(&one);
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

void experiments_roofline(xctx *x)
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
    roofline roof = {x->dev.peak_fp32_tflops * 1e3, peak_bw(x)};
    cudacheck_reset();
    if (!experiments_io_setup(x, &io, bytes, false, "roofline", &e))
        goto fail_all;

    for (size_t k = 0; k < ni; k++) {
        double flops = PROFILING_FMA_FLOPS(iters[k]);
        double ai = flops / 8.0;
        char id[RUN_ID_MAX], lab[RUN_ID_MAX];
        snprintf(id, sizeof id, "roof_%d", iters[k]);
        snprintf(lab, sizeof lab, "%.2f FLOP/B", ai);
        experiments_row_start(x, &r, id, lab, sz);
        fma_job j = {io.din.ptr, io.dout.ptr, n, iters[k]};
        timing_result tr;
        if (!experiments_measure(x, lab, fma_once, &j, io.dout.ptr, io.hout, bytes, 2 * bytes, &tr,
                                 &e)) {
            experiments_row_failed(x, &r, &e);
            if (x->broken)
                goto done;
            continue;
        }
        experiments_set_timing(&r, &tr);
        r.gbps = 2.0 * (double)bytes / (r.median_ms * 1e6);
        r.tflops = flops * (double)n / (r.median_ms * 1e9);
        experiments_check_fma(&r, io.hin, io.hout, n, iters[k], x->seed);
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
        engine_row_emit(&x->rows, &r);
    }
    goto done;
fail_all:
    experiments_rows_failed(x, "roof", iters, ni, sz, &e);
done:
    experiments_io_free(&io);
}
