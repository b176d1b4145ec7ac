#include "experiments/experiments.h"

#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>

#include "core/rng.h"
#include "gpu/buffer.h"
#include "gpu/cudacheck.h"
#include "gpu/nvtx.h"
#include "profiling.h"
#include "experiments/experiments_internal.h"

/* ---- transfers ----------------------------------------------------------- */

typedef struct copy_job {
    void *dst;
    const void *src;
    size_t bytes, chunk;
    enum cudaMemcpyKind kind;
} copy_job;

static bool copy_once(void *ud, cudaStream_t s, cl_err *e)
{
    const copy_job *j = ud;
    size_t chunk = j->chunk ? j->chunk : j->bytes;
    for (size_t off = 0; off < j->bytes; off += chunk) {
        size_t n = j->bytes - off < chunk ? j->bytes - off : chunk;
        CUDA_CHECK(e, cudaMemcpyAsync((char *)j->dst + off, (const char *)j->src + off, n, j->kind, s));
    }
    return true;
}

/* Times one copy job into r (samples between min and max). */
static bool time_copy(xctx *x, run_result *r, copy_job *j, int min_s, int max_s, cl_err *e)
{
    timing_result tr;
    if (!experiments_time_job(x, copy_once, j, SIZE_MAX / 4, min_s, max_s, &tr, e))
        return false;
    experiments_set_timing(r, &tr);
    r->gbps = (double)j->bytes / (r->median_ms * 1e6);
    return true;
}

/* The transfers experiment's buffers: bytes on the device, pinned and
 * pageable on the host. */
typedef struct transfer_bufs {
    gpu_buffer d;
    float *pin, *page;
    size_t bytes, n;           /* n: floats */
    char sz[32];               /* bytes, for people */
} transfer_bufs;

/* The four rows of pageable against pinned copies. */
typedef struct copy_rows {
    run_result h2d_page, h2d_pin, d2h_page, d2h_pin;
} copy_rows;

/* The buffers, the pageable one filled with fresh random floats. */
static bool transfers_setup(xctx *x, transfer_bufs *b, cl_err *e)
{
    if (b->bytes == 0) {
        experiments_too_little_memory(e, X_FLOOR);
        return false;
    }
    if (!buffer_alloc(&b->d, b->bytes, e))
        return false;
    b->page = malloc(b->bytes);
    if (!b->page)
        return err_set(e, "out of host memory (%s of pageable memory)", b->sz);
    cudacheck_reset();
    CUDA_CHECK(e, cudaMallocHost((void **)&b->pin, b->bytes));
    b->n = b->bytes / sizeof(float);
    rng_fill_uniform(b->page, b->n, x->seed++, -1.0f, 1.0f);
    return true;
}

/* Times the copy j as row r, the row progress names. */
static bool timed_copy(xctx *x, run_result *r, copy_job j, cl_err *e)
{
    x->rows.variant = r->variant;
    return time_copy(x, r, &j, 5, 40, e);
}

/* Pageable and pinned copies both ways, each checked against what was
 * sent: pageable up and pinned down, then fresh data pinned up and
 * pageable down. */
static bool pinned_vs_pageable(xctx *x, transfer_bufs *b, copy_rows *cr, cl_err *e)
{
    const enum cudaMemcpyKind up = cudaMemcpyHostToDevice, down = cudaMemcpyDeviceToHost;
    copy_job page_up = {.dst = b->d.ptr, .src = b->page, .bytes = b->bytes, .kind = up};
    copy_job pin_down = {.dst = b->pin, .src = b->d.ptr, .bytes = b->bytes, .kind = down};
    if (!timed_copy(x, &cr->h2d_page, page_up, e) || !timed_copy(x, &cr->d2h_pin, pin_down, e))
        return false;
    experiments_check_exact(&cr->h2d_page, b->pin, b->page, b->n);
    experiments_check_exact(&cr->d2h_pin, b->pin, b->page, b->n);

    rng_fill_uniform(b->pin, b->n, x->seed++, -1.0f, 1.0f);
    copy_job pin_up = {.dst = b->d.ptr, .src = b->pin, .bytes = b->bytes, .kind = up};
    copy_job page_down = {.dst = b->page, .src = b->d.ptr, .bytes = b->bytes, .kind = down};
    if (!timed_copy(x, &cr->h2d_pin, pin_up, e) || !timed_copy(x, &cr->d2h_page, page_down, e))
        return false;
    experiments_check_exact(&cr->h2d_pin, b->page, b->pin, b->n);
    experiments_check_exact(&cr->d2h_page, b->page, b->pin, b->n);
    return true;
}

/* The four copy rows' notes, and the rows sent. */
static void copy_rows_emit(xctx *x, copy_rows *cr)
{
    double gain_h2d = cr->h2d_page.median_ms / cr->h2d_pin.median_ms;
    double gain_d2h = cr->d2h_page.median_ms / cr->d2h_pin.median_ms;
    engine_row_note(&cr->h2d_page,
                    "ordinary malloc'd memory: the driver stages it through a pinned buffer");
    engine_row_note(&cr->h2d_pin, "page-locked (cudaMallocHost): %.2fx the pageable rate",
                    gain_h2d);
    engine_row_note(&cr->d2h_page, "ordinary malloc'd memory, staged by the driver");
    engine_row_note(&cr->d2h_pin, "page-locked: %.2fx the pageable rate", gain_d2h);
    engine_row_emit(&x->rows, &cr->h2d_page);
    engine_row_emit(&x->rows, &cr->h2d_pin);
    engine_row_emit(&x->rows, &cr->d2h_page);
    engine_row_emit(&x->rows, &cr->d2h_pin);
}

/* The same bytes up in pinned copies of 64 KiB each, beside the one large
 * pinned copy (h2d_pin). */
static void small_copies(xctx *x, transfer_bufs *b, const run_result *h2d_pin, cl_err *e)
{
    run_result r;
    size_t chunk = 64 * 1024;
    size_t count = b->bytes / chunk;
    char lab[RUN_ID_MAX];
    snprintf(lab, sizeof lab, "%zu x 64 KiB H2D", count);
    experiments_row_start(x, &r, "small_copies", lab, b->sz);
    nvtx_push("many small copies");
    copy_job j = {.dst = b->d.ptr, .src = b->pin, .bytes = count * chunk, .chunk = chunk,
                  .kind = cudaMemcpyHostToDevice};
    bool ok = time_copy(x, &r, &j, 3, 5, e);
    nvtx_pop();
    if (!ok || !experiments_download(x, b->page, b->d.ptr, b->bytes, e)) {
        experiments_row_failed(x, &r, e);
        return;
    }
    experiments_check_exact(&r, b->page, b->pin, count * chunk / sizeof(float));
    engine_row_note(&r,
                    "pinned; one cudaMemcpyAsync per 64 KiB: %.1f us each, %.2fx slower than "
                    "one %s copy at %.1f GB/s",
                    1e3 * r.median_ms / (double)count, r.median_ms / h2d_pin->median_ms, b->sz,
                    h2d_pin->gbps);
    engine_row_emit(&x->rows, &r);
}

/* A kernel on the data already on the device, beside bringing it there
 * (cr's host-to-device rows). */
static void compute_vs_copy(xctx *x, transfer_bufs *b, const copy_rows *cr, cl_err *e)
{
    run_result r;
    experiments_row_start(x, &r, "compute_vs_copy", "kernel on the same data", b->sz);
    size_t half = b->n / 2;
    scale_job sj = {.x = (const float *)b->d.ptr, .y = (float *)b->d.ptr + half, .n = half,
                    .a = 2.0f, .block = 256};
    nvtx_push("copy vs compute");
    timing_result tr;
    bool ok = experiments_time_job(x, experiments_scale_once, &sj, b->bytes, 5, 0, &tr, e);
    nvtx_pop();
    if (!ok || !experiments_download(x, b->page, b->d.ptr, b->bytes, e)) {
        experiments_row_failed(x, &r, e);
        return;
    }
    experiments_set_timing(&r, &tr);
    experiments_set_bandwidth(x, &r, (double)(2 * half * sizeof(float)));
    for (size_t i = 0; i < half; i++)
        b->pin[i] = 2.0f * b->page[i];
    experiments_check_exact(&r, b->page + half, b->pin, half);
    engine_row_note(&r,
                    "y = 2x over the %s on the device (read half, write half) takes %.3f ms; "
                    "bringing them from the host took %.3f ms pinned, %.3f ms pageable: "
                    "moving the data costs %.0fx computing on it",
                    b->sz, r.median_ms, cr->h2d_pin.median_ms, cr->h2d_page.median_ms,
                    cr->h2d_pin.median_ms / r.median_ms);
    engine_row_emit(&x->rows, &r);
}

void experiments_transfers(xctx *ctx)
{
    cl_err e = {{0}};
    transfer_bufs b = {.bytes = experiments_fit_device(256 * MIB, X_FLOOR, 1)};
    copy_rows cr;
    buffer_format_bytes(b.bytes, b.sz, sizeof b.sz);
    experiments_row_start(ctx, &cr.h2d_page, "h2d_pageable", "H2D pageable", b.sz);
    experiments_row_start(ctx, &cr.h2d_pin, "h2d_pinned", "H2D pinned", b.sz);
    experiments_row_start(ctx, &cr.d2h_page, "d2h_pageable", "D2H pageable", b.sz);
    experiments_row_start(ctx, &cr.d2h_pin, "d2h_pinned", "D2H pinned", b.sz);
    if (!transfers_setup(ctx, &b, &e))
        goto fail_all;
    nvtx_push("pageable vs pinned");
    bool ok = pinned_vs_pageable(ctx, &b, &cr, &e);
    nvtx_pop();
    if (!ok)
        goto fail_all;
    copy_rows_emit(ctx, &cr);
    small_copies(ctx, &b, &cr.h2d_pin, &e);
    if (!ctx->broken)
        compute_vs_copy(ctx, &b, &cr, &e);
    goto done;

fail_all:
    experiments_row_failed(ctx, &cr.h2d_page, &e);
    experiments_row_failed(ctx, &cr.h2d_pin, &e);
    experiments_row_failed(ctx, &cr.d2h_page, &e);
    experiments_row_failed(ctx, &cr.d2h_pin, &e);
done:
    if (b.pin)
        cudaFreeHost(b.pin);
    free(b.page);
    buffer_free(&b.d);
}

/* ---- overlap --------------------------------------------------------------- */

#define OV_STREAMS 4
#define OV_CHUNKS 8

typedef struct ov_bufs {
    float *hin, *hout, *hout2;
    gpu_buffer din, dout;
    size_t n;
    int iters;
    cudaStream_t st[OV_STREAMS];
    int nst;
    cudaEvent_t ev[OV_STREAMS + 4];
    int nev;
} ov_bufs;

/* One synchronous pass: whole H2D, kernel, whole D2H on x->s; stage times
 * from events. */
static bool ov_sync_pass(xctx *x, ov_bufs *b, double *total, double stage[3], cl_err *e)
{
    size_t bytes = b->n * sizeof(float);
    cudaEvent_t *ev = b->ev;
    CUDA_CHECK(e, cudaEventRecord(ev[0], x->s));
    CUDA_CHECK(e, cudaMemcpyAsync(b->din.ptr, b->hin, bytes, cudaMemcpyHostToDevice, x->s));
    CUDA_CHECK(e, cudaEventRecord(ev[1], x->s));
    CUDA_CHECK_LAUNCH(e, profiling_fma(b->din.ptr, b->dout.ptr, b->n, b->iters, x->s));
    CUDA_CHECK(e, cudaEventRecord(ev[2], x->s));
    CUDA_CHECK(e, cudaMemcpyAsync(b->hout, b->dout.ptr, bytes, cudaMemcpyDeviceToHost, x->s));
    CUDA_CHECK(e, cudaEventRecord(ev[3], x->s));
    CUDA_CHECK(e, cudaEventSynchronize(ev[3]));
    float ms[4];
    CUDA_CHECK(e, cudaEventElapsedTime(&ms[0], ev[0], ev[3]));
    CUDA_CHECK(e, cudaEventElapsedTime(&ms[1], ev[0], ev[1]));
    CUDA_CHECK(e, cudaEventElapsedTime(&ms[2], ev[1], ev[2]));
    CUDA_CHECK(e, cudaEventElapsedTime(&ms[3], ev[2], ev[3]));
    *total = (double)ms[0];
    for (int i = 0; i < 3; i++)
        stage[i] = (double)ms[i + 1];
    return true;
}

/* One pipelined pass: OV_CHUNKS chunks round-robin over the streams. */
static bool ov_stream_pass(xctx *x, ov_bufs *b, double *total, cl_err *e)
{
    cudaEvent_t start = b->ev[0], stop = b->ev[1];
    CUDA_CHECK(e, cudaEventRecord(start, x->s));
    for (int i = 0; i < b->nst; i++)
        CUDA_CHECK(e, cudaStreamWaitEvent(b->st[i], start, 0));
    size_t per = (b->n + OV_CHUNKS - 1) / OV_CHUNKS;
    for (int c = 0; c < OV_CHUNKS; c++) {
        size_t off = (size_t)c * per;
        if (off >= b->n)
            break;
        size_t cnt = b->n - off < per ? b->n - off : per;
        cudaStream_t s = b->st[c % b->nst];
        CUDA_CHECK(e, cudaMemcpyAsync((float *)b->din.ptr + off, b->hin + off, cnt * sizeof(float),
                                      cudaMemcpyHostToDevice, s));
        CUDA_CHECK_LAUNCH(e, profiling_fma((const float *)b->din.ptr + off, (float *)b->dout.ptr + off,
                                           cnt, b->iters, s));
        CUDA_CHECK(e, cudaMemcpyAsync(b->hout2 + off, (const float *)b->dout.ptr + off,
                                      cnt * sizeof(float), cudaMemcpyDeviceToHost, s));
    }
    for (int i = 0; i < b->nst; i++) {
        CUDA_CHECK(e, cudaEventRecord(b->ev[2 + i], b->st[i]));
        CUDA_CHECK(e, cudaStreamWaitEvent(x->s, b->ev[2 + i], 0));
    }
    CUDA_CHECK(e, cudaEventRecord(stop, x->s));
    CUDA_CHECK(e, cudaEventSynchronize(stop));
    float ms;
    CUDA_CHECK(e, cudaEventElapsedTime(&ms, start, stop));
    *total = (double)ms;
    return true;
}

/* Picks iters so the kernel on the whole buffer takes about as long as
 * copying it to the device. */
static bool ov_calibrate(xctx *x, ov_bufs *b, cl_err *e)
{
    double total, stage[3];
    b->iters = 64;
    for (int warm = 0; warm < 2; warm++)
        if (!ov_sync_pass(x, b, &total, stage, e))
            return false;
    if (stage[1] > 0.0) {
        double want = 64.0 * stage[0] / stage[1];
        b->iters = want < 16.0 ? 16 : want > 65536.0 ? 65536 : (int)want;
    }
    return true;
}

static bool ov_setup(xctx *x, ov_bufs *b, size_t bytes, cl_err *e)
{
    b->n = bytes / sizeof(float);
    if (!buffer_alloc(&b->din, bytes, e) || !buffer_alloc(&b->dout, bytes, e))
        return false;
    CUDA_CHECK(e, cudaMallocHost((void **)&b->hin, bytes));
    CUDA_CHECK(e, cudaMallocHost((void **)&b->hout, bytes));
    CUDA_CHECK(e, cudaMallocHost((void **)&b->hout2, bytes));
    for (; b->nst < OV_STREAMS; b->nst++)
        CUDA_CHECK(e, cudaStreamCreateWithFlags(&b->st[b->nst], cudaStreamNonBlocking));
    for (; b->nev < OV_STREAMS + 4; b->nev++)
        CUDA_CHECK(e, cudaEventCreate(&b->ev[b->nev]));
    rng_fill_uniform(b->hin, b->n, x->seed++, -1.0f, 1.0f);
    return true;
}

static void ov_teardown(ov_bufs *b)
{
    for (int i = 0; i < b->nev; i++)
        cudaEventDestroy(b->ev[i]);
    for (int i = 0; i < b->nst; i++)
        cudaStreamDestroy(b->st[i]);
    if (b->hin)
        cudaFreeHost(b->hin);
    if (b->hout)
        cudaFreeHost(b->hout);
    if (b->hout2)
        cudaFreeHost(b->hout2);
    buffer_free(&b->din);
    buffer_free(&b->dout);
}

#define OV_REPS 5

void experiments_overlap(xctx *ctx)
{
    cl_err e = {{0}};
    ov_bufs b;
    memset(&b, 0, sizeof b);
    run_result rs, ro;
    char sz[32];
    size_t bytes = experiments_fit_device(256 * MIB, X_FLOOR, 2);
    buffer_format_bytes(bytes, sz, sizeof sz);
    experiments_row_start(ctx, &rs, "overlap_sync", "1 stream: copy, compute, copy", sz);
    experiments_row_start(ctx, &ro, "overlap_streams", "4 streams, 8 chunks", sz);
    double tsync[OV_REPS], tov[OV_REPS], stage[3] = {0, 0, 0}, st_sum[3] = {0, 0, 0};
    cudacheck_reset();
    if (bytes == 0) {
        experiments_too_little_memory(&e, 2 * X_FLOOR);
        goto fail;
    }
    if (!ov_setup(ctx, &b, bytes, &e))
        goto fail;
    ctx->rows.variant = rs.variant;
    if (!ov_calibrate(ctx, &b, &e))
        goto fail;

    nvtx_push("synchronous pipeline");
    for (int i = 0; i < OV_REPS; i++) {
        engine_row_progress(&ctx->rows, "timing", i + 1, OV_REPS);
        if (!ov_sync_pass(ctx, &b, &tsync[i], stage, &e)) {
            nvtx_pop();
            goto fail;
        }
        for (int k = 0; k < 3; k++)
            st_sum[k] += stage[k];
    }
    nvtx_pop();
    ctx->rows.variant = ro.variant;
    if (!experiments_poison(ctx, b.dout.ptr, bytes, &e) || !experiments_sync(ctx, &e))
        goto fail;
    nvtx_push("overlapped pipeline");
    for (int i = 0; i < OV_REPS; i++) {
        engine_row_progress(&ctx->rows, "timing", i + 1, OV_REPS);
        if (!ov_stream_pass(ctx, &b, &tov[i], &e)) {
            nvtx_pop();
            goto fail;
        }
    }
    nvtx_pop();

    experiments_set_summary(&rs, tsync, OV_REPS);
    experiments_set_summary(&ro, tov, OV_REPS);
    experiments_check_fma(&rs, b.hin, b.hout, b.n, b.iters, ctx->seed);
    experiments_check_exact(&ro, b.hout2, b.hout, b.n);
    if (rs.status != RS_CORRECT && ro.status == RS_CORRECT)
        experiments_check_fma(&ro, b.hin, b.hout2, b.n, b.iters, ctx->seed);
    for (int k = 0; k < 3; k++)
        st_sum[k] /= OV_REPS;
    double longest = st_sum[0] > st_sum[1] ? st_sum[0] : st_sum[1];
    if (st_sum[2] > longest)
        longest = st_sum[2];
    rs.tflops = PROFILING_FMA_FLOPS(b.iters) * (double)b.n / (rs.median_ms * 1e9);
    ro.tflops = PROFILING_FMA_FLOPS(b.iters) * (double)b.n / (ro.median_ms * 1e9);
    engine_row_note(
        &rs,
        "pinned; H2D %.2f ms, kernel %.2f ms (%d FMA steps, sized to match the copy), "
        "D2H %.2f ms, one after the other",
        st_sum[0], st_sum[1], b.iters, st_sum[2]);
    engine_row_note(&ro,
                    "%.2fx faster than one stream: copies of one chunk overlap the kernel of "
                    "another; no pipeline beats the longest stage, %.2f ms",
                    rs.median_ms / ro.median_ms, longest);
    engine_row_emit(&ctx->rows, &rs);
    engine_row_emit(&ctx->rows, &ro);
    goto done;
fail:
    experiments_row_failed(ctx, &rs, &e);
    experiments_row_failed(ctx, &ro, &e);
done:
    ov_teardown(&b);
}
