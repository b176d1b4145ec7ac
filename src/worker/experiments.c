#include "worker/experiments.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cuda_runtime_api.h>

#include "core/paths.h"
#include "core/rng.h"
#include "core/roofline.h"
#include "core/stats.h"
#include "core/trace.h"
#include "cpu/check.h"
#include "gpu/buffer.h"
#include "gpu/cudacheck.h"
#include "gpu/cupti.h"
#include "gpu/nvtx.h"
#include "gpu/timing.h"
#include "profiling.h"

#define MIB ((size_t)1 << 20)
#define X_FLOOR (16 * MIB)
#define X_MAX_SAMPLES 200
#define X_DEFAULT_BUDGET_S 0.25
#define X_CHECK_SAMPLES 4096

bool experiments_timeline_path(const char *msg, char *path, size_t n)
{
    size_t plen = strlen(EXPERIMENTS_TIMELINE_LOG);
    if (!msg || strncmp(msg, EXPERIMENTS_TIMELINE_LOG, plen) != 0 || !msg[plen])
        return false;
    const char *p = msg + plen;
    const char *end = strstr(p, " (");
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (len == 0 || len >= n)
        return false;
    memcpy(path, p, len);
    path[len] = '\0';
    return true;
}

bool experiments_timeline_file(char *out, size_t n, cl_err *e)
{
    char data[CL_PATH_MAX];
    if (!paths_data_dir(data, sizeof data, e))
        return false;
    int w = snprintf(out, n, "%s/timelines/last.json", data);
    if (w < 0 || (size_t)w >= n)
        return err_set(e, "the timeline path is too long");
    return true;
}

/* ---- the run context ----------------------------------------------------- */

typedef struct xctx {
    const run_request *req;
    const engine_sink *sink;
    run_fault *fault;
    device_info dev;
    cudaStream_t s;
    gpu_buffer flush;
    size_t l2;
    uint64_t seed;
    double budget_s;
    bool broken;
    const char *variant;    /* row being measured, for progress */
    const char *size;
} xctx;

static void x_log(const xctx *x, int level, const char *msg)
{
    if (x->sink && x->sink->log)
        x->sink->log(x->sink->ud, level, msg);
}

static void x_progress(const xctx *x, const char *phase, int rep, int of)
{
    if (!x->sink || !x->sink->progress)
        return;
    run_progress p;
    memset(&p, 0, sizeof p);
    p.run = x->req->run;
    snprintf(p.variant, sizeof p.variant, "%s", x->variant ? x->variant : "");
    snprintf(p.size, sizeof p.size, "%s", x->size ? x->size : "");
    snprintf(p.phase, sizeof p.phase, "%s", phase);
    p.rep = rep;
    p.of = of;
    x->sink->progress(x->sink->ud, &p);
}

static void timing_progress_cb(void *ud, const char *phase, int rep, int of)
{
    x_progress(ud, phase, rep, of);
}

static void row_start(xctx *x, run_result *r, const char *variant, const char *label,
                      const char *size)
{
    run_result_init(r);
    r->run = x->req->run;
    snprintf(r->variant, sizeof r->variant, "%s", variant);
    snprintf(r->label, sizeof r->label, "%s", label);
    snprintf(r->size, sizeof r->size, "%s", size);
    r->kind = RK_KERNEL;
    r->status = RS_ERROR;
    r->seed = x->seed;
    x->variant = r->variant;
    x->size = r->size;
}

static void row_emit(xctx *x, run_result *r)
{
    r->run = x->req->run;
    if (x->sink && x->sink->result)
        x->sink->result(x->sink->ud, r);
    x->variant = NULL;
}

static void row_note(run_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void row_note(run_result *r, const char *fmt, ...)
{
    size_t len = strlen(r->message);
    if (len && len + 2 < sizeof r->message) {
        snprintf(r->message + len, sizeof r->message - len, "; ");
        len += 2;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->message + len, sizeof r->message - len, fmt, ap);
    va_end(ap);
}

static void row_error(run_result *r, const char *msg)
{
    r->status = RS_ERROR;
    snprintf(r->message, sizeof r->message, "%s", msg);
}

/* After a failed call: the row becomes an RS_ERROR and true is returned
 * when the context still works; false (fault filled) when it broke. */
static bool x_failed(xctx *x, run_result *r, const cl_err *e)
{
    cudaError_t code = cudacheck_last();
    cudaError_t s1 = cudaDeviceSynchronize();
    cudaError_t s2 = cudaGetLastError();
    cudaError_t sticky = cudacheck_is_sticky(code) ? code
                         : cudacheck_is_sticky(s1) ? s1
                         : cudacheck_is_sticky(s2) ? s2
                                                    : cudaSuccess;
    row_error(r, e->msg);
    if (sticky == cudaSuccess)
        return true;
    memset(x->fault, 0, sizeof *x->fault);
    x->fault->run = x->req->run;
    snprintf(x->fault->variant, sizeof x->fault->variant, "%s", r->variant);
    snprintf(x->fault->cause, sizeof x->fault->cause, "cuda");
    snprintf(x->fault->message, sizeof x->fault->message, "%s", cudacheck_plain(sticky));
    x->broken = true;
    return false;
}

/* Emits r as an RS_ERROR row carrying e's message.  The first failure also
 * asks whether the CUDA context survived (x_failed); once it has broken,
 * later rows only carry the message. */
static void row_failed(xctx *x, run_result *r, const cl_err *e)
{
    if (x->broken)
        row_error(r, e->msg);
    else
        x_failed(x, r, e);
    row_emit(x, r);
}

/* After a failed set-up: a failed row for each id "<prefix>_<values[k]>". */
static void rows_failed(xctx *x, const char *prefix, const int *values, size_t n, const char *size,
                        const cl_err *e)
{
    for (size_t k = 0; k < n; k++) {
        char id[PROTO_ID_MAX];
        run_result r;
        snprintf(id, sizeof id, "%s_%d", prefix, values[k]);
        row_start(x, &r, id, id, size);
        row_failed(x, &r, e);
    }
}

static double peak_bw(const xctx *x)
{
    return x->dev.peak_bw_measured_gbs > 0.0 ? x->dev.peak_bw_measured_gbs
                                             : x->dev.peak_bw_theory_gbs;
}

static void set_bandwidth(const xctx *x, run_result *r, double bytes)
{
    if (r->median_ms <= 0.0)
        return;
    r->gbps = bytes / (r->median_ms * 1e6);
    if (x->dev.peak_bw_measured_gbs > 0.0)
        r->pct_peak_measured = 100.0 * r->gbps / x->dev.peak_bw_measured_gbs;
    if (x->dev.peak_bw_theory_gbs > 0.0)
        r->pct_peak_theory = 100.0 * r->gbps / x->dev.peak_bw_theory_gbs;
}

static void set_stats(run_result *r, const stats_summary *s)
{
    r->median_ms = s->median;
    r->min_ms = s->min;
    r->max_ms = s->max;
    r->spread = s->spread;
    r->samples = (int)s->n;
}

static void set_timing(run_result *r, const timing_result *tr)
{
    set_stats(r, &tr->s);
}

static void set_summary(run_result *r, double *v, int n)
{
    stats_summary s = stats_summarise(v, (size_t)n);
    set_stats(r, &s);
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Times fn on x->s with the shared rules (gpu/timing.h). */
static bool x_time(xctx *x, timing_fn fn, void *ud, size_t working_set, int min_samples,
                   int max_samples, timing_result *tr, cl_err *e)
{
    timing_opts o = {
        .stream = x->s,
        .budget_s = x->budget_s,
        .working_set = working_set,
        .l2_bytes = x->l2,
        .flush = x->flush.ptr,
        .flush_bytes = x->flush.bytes,
        .min_samples = min_samples,
        .max_samples = max_samples > 0 ? max_samples : X_MAX_SAMPLES,
        .progress = timing_progress_cb,
        .progress_ud = x,
    };
    return timing_run(&o, fn, ud, tr, e);
}

/* The largest size <= want (halving, not below floor) whose count copies
 * fit in the device's free memory; 0 when even floor does not. */
static size_t fit_device(size_t want, size_t floor_bytes, int count)
{
    for (size_t b = want; b >= floor_bytes && b > 0; b /= 2)
        if (buffer_check_free(b * (size_t)count + 64 * MIB, NULL))
            return b;
    cudaGetLastError();
    return 0;
}

static void too_little_memory(cl_err *e, size_t need)
{
    char b[32];
    buffer_format_bytes(need, b, sizeof b);
    if (buffer_check_free(need + 64 * MIB, e))
        err_set(e, "the device has too little free memory for this experiment (it needs %s)", b);
}

/* out (n x n) = in transposed, in cache-sized blocks. */
static void transpose_host(const float *in, float *out, size_t n)
{
    const size_t bs = 64;
    for (size_t i0 = 0; i0 < n; i0 += bs)
        for (size_t j0 = 0; j0 < n; j0 += bs)
            for (size_t i = i0; i < i0 + bs && i < n; i++)
                for (size_t j = j0; j < j0 + bs && j < n; j++)
                    out[j * n + i] = in[i * n + j];
}

static bool x_sync(xctx *x, cl_err *e)
{
    CUDA_CHECK(e, cudaStreamSynchronize(x->s));
    CUDA_CHECK(e, cudaGetLastError());
    return true;
}

static bool x_download(xctx *x, void *host, const void *dev, size_t bytes, cl_err *e)
{
    CUDA_CHECK(e, cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, x->s));
    return x_sync(x, e);
}

static bool x_upload(xctx *x, void *dev, const void *host, size_t bytes, cl_err *e)
{
    CUDA_CHECK(e, cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, x->s));
    return x_sync(x, e);
}

/* Fills outputs with NaN (all bits set) so elements a kernel skips show. */
static bool x_poison(xctx *x, void *dev, size_t bytes, cl_err *e)
{
    CUDA_CHECK(e, cudaMemsetAsync(dev, 0xff, bytes, x->s));
    return true;
}

/* One variant's measurement inside the NVTX range named range: poisons
 * dev_out, runs fn once and downloads out_bytes of it to host_out for the
 * check, then times fn (working_set: the bytes one run touches). */
static bool x_measure(xctx *x, const char *range, timing_fn fn, void *job, void *dev_out,
                      void *host_out, size_t out_bytes, size_t working_set, timing_result *tr,
                      cl_err *e)
{
    nvtx_push(range);
    bool ok = x_poison(x, dev_out, out_bytes, e) && fn(job, x->s, e) &&
              x_download(x, host_out, dev_out, out_bytes, e) &&
              x_time(x, fn, job, working_set, 5, 0, tr, e);
    nvtx_pop();
    return ok;
}

/* An experiment's input and output of equal size, on the device and on
 * the host; want (when asked for) holds the expected output. */
typedef struct io_bufs {
    gpu_buffer din, dout;
    float *hin, *hout, *want;
} io_bufs;

/* Allocates b at bytes a buffer (0: nothing fitted, see fit_device), fills
 * hin with fresh random floats and uploads it to din.  On failure the
 * caller still calls io_free. */
static bool io_setup(xctx *x, io_bufs *b, size_t bytes, bool want, const char *what,
                     cl_err *e)
{
    memset(b, 0, sizeof *b);
    if (bytes == 0) {
        too_little_memory(e, 2 * X_FLOOR);
        return false;
    }
    if (!buffer_alloc(&b->din, bytes, e) || !buffer_alloc(&b->dout, bytes, e))
        return false;
    b->hin = malloc(bytes);
    b->hout = malloc(bytes);
    b->want = want ? malloc(bytes) : NULL;
    if (!b->hin || !b->hout || (want && !b->want))
        return err_set(e, "out of host memory for the %s experiment", what);
    rng_fill_uniform(b->hin, bytes / sizeof(float), x->seed++, -1.0f, 1.0f);
    return x_upload(x, b->din.ptr, b->hin, bytes, e);
}

static void io_free(io_bufs *b)
{
    free(b->hin);
    free(b->hout);
    free(b->want);
    buffer_free(&b->din);
    buffer_free(&b->dout);
}

/* The side of gemv's and transpose's square matrices: 8192 when two of
 * them fit in the device's free memory, else 4096. */
static int square_side(void)
{
    const size_t big = (size_t)8192 * 8192 * sizeof(float);
    return fit_device(big, big, 2) ? 8192 : 4096;
}

/* Compares got[0..n) with want[0..n) bit for bit; the row's status and
 * message say how it went. */
static void check_exact(run_result *r, const float *got, const float *want, size_t n)
{
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < n; i++)
        if (memcmp(&got[i], &want[i], sizeof(float)) != 0) {
            if (bad == 0)
                first = i;
            bad++;
        }
    if (bad == 0) {
        r->status = RS_CORRECT;
        r->rel_err = 0.0;
        return;
    }
    r->status = isnan(got[first]) ? RS_UNWRITTEN : RS_WRONG;
    r->nmismatch = 1;
    r->mismatches[0].index = (int64_t)first;
    r->mismatches[0].got = (double)got[first];
    r->mismatches[0].expected = (double)want[first];
    row_note(r, "%zu of %zu elements differ; first at [%zu]: got %g, expected %g", bad, n, first,
             (double)got[first], (double)want[first]);
}

static void check_report_row(run_result *r, const check_report *c)
{
    r->rel_err = c->rel_err;
    r->status = c->status == CHECK_OK          ? RS_CORRECT
                : c->status == CHECK_UNWRITTEN ? RS_UNWRITTEN
                : c->status == CHECK_NONFINITE ? RS_NAN
                                               : RS_WRONG;
    r->nmismatch = c->nmismatch < PROTO_MAX_MISMATCH ? c->nmismatch : PROTO_MAX_MISMATCH;
    for (int i = 0; i < r->nmismatch; i++) {
        r->mismatches[i].index = c->mismatch[i].index;
        r->mismatches[i].got = c->mismatch[i].got;
        r->mismatches[i].expected = c->mismatch[i].expected;
    }
    if (c->status != CHECK_OK) {
        char d[256];
        check_describe(c, d, sizeof d);
        row_note(r, "%s", d);
    }
}

/* The FMA chain of prof_fma for one element, in the same order. */
static float fma_ref(float v, int iters)
{
    float a0 = v, a1 = v + 1.0f, a2 = v + 2.0f, a3 = v + 3.0f;
    for (int k = 0; k < iters; k++) {
        a0 = fmaf(a0, 0.5f, v);
        a1 = fmaf(a1, 0.5f, v);
        a2 = fmaf(a2, 0.5f, v);
        a3 = fmaf(a3, 0.5f, v);
    }
    return (a0 + a1) + (a2 + a3);
}

/* Checks X_CHECK_SAMPLES spread elements of a prof_fma output (and the
 * whole output for unwritten elements). */
static void check_fma(run_result *r, const float *in, const float *out, size_t n, int iters,
                      uint64_t seed)
{
    size_t m = n < X_CHECK_SAMPLES ? n : X_CHECK_SAMPLES;
    int64_t *idx = malloc(m * sizeof *idx);
    double *ref = malloc(m * sizeof *ref);
    if (!idx || !ref) {
        row_error(r, "out of host memory for the check");
        goto cleanup;
    }
    rng g;
    rng_seed(&g, seed ^ 0x9e3779b97f4a7c15ull);
    for (size_t k = 0; k < m; k++) {
        size_t i = k == 0 ? 0 : k == m - 1 ? n - 1 : (size_t)(rng_next(&g) % n);
        idx[k] = (int64_t)i;
        ref[k] = (double)fma_ref(in[i], iters);
    }
    check_report c = check_compare(out, n, ref, idx, m, 1e-6);
    check_report_row(r, &c);
cleanup:
    free(idx);
    free(ref);
}

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

typedef struct scale_job {
    const float *x;
    float *y;
    size_t n;
    float a;
    int block;
} scale_job;

static bool scale_once(void *ud, cudaStream_t s, cl_err *e)
{
    const scale_job *j = ud;
    CUDA_CHECK_LAUNCH(e, profiling_scale(j->x, j->y, j->n, j->a, j->block, s));
    return true;
}

/* Times one copy job into r (samples between min and max). */
static bool time_copy(xctx *x, run_result *r, copy_job *j, int min_s, int max_s, cl_err *e)
{
    timing_result tr;
    if (!x_time(x, copy_once, j, SIZE_MAX / 4, min_s, max_s, &tr, e))
        return false;
    set_timing(r, &tr);
    r->gbps = (double)j->bytes / (r->median_ms * 1e6);
    return true;
}

static void exp_transfers(xctx *x)
{
    cl_err e = {{0}};
    run_result r, h2d_page, h2d_pin, d2h_page, d2h_pin;
    gpu_buffer d = {0};
    float *pin = NULL, *page = NULL;
    char sz[32];

    size_t bytes = fit_device(256 * MIB, X_FLOOR, 1);
    buffer_format_bytes(bytes, sz, sizeof sz);
    row_start(x, &h2d_page, "h2d_pageable", "H2D pageable", sz);
    row_start(x, &h2d_pin, "h2d_pinned", "H2D pinned", sz);
    row_start(x, &d2h_page, "d2h_pageable", "D2H pageable", sz);
    row_start(x, &d2h_pin, "d2h_pinned", "D2H pinned", sz);
    if (bytes == 0) {
        too_little_memory(&e, X_FLOOR);
        goto fail_all;
    }
    if (!buffer_alloc(&d, bytes, &e))
        goto fail_all;
    page = malloc(bytes);
    if (!page) {
        err_set(&e, "out of host memory (%s of pageable memory)", sz);
        goto fail_all;
    }
    cudacheck_reset();
    CUDA_CHECK_GOTO(&e, cudaMallocHost((void **)&pin, bytes), fail_all);
    size_t n = bytes / sizeof(float);
    rng_fill_uniform(page, n, x->seed++, -1.0f, 1.0f);

    nvtx_push("pageable vs pinned");
    copy_job j = {d.ptr, page, bytes, 0, cudaMemcpyHostToDevice};
    x->variant = h2d_page.variant;
    if (!time_copy(x, &h2d_page, &j, 5, 40, &e))
        goto fail_pop;
    j = (copy_job){pin, d.ptr, bytes, 0, cudaMemcpyDeviceToHost};
    x->variant = d2h_pin.variant;
    if (!time_copy(x, &d2h_pin, &j, 5, 40, &e))
        goto fail_pop;
    check_exact(&h2d_page, pin, page, n);
    check_exact(&d2h_pin, pin, page, n);

    rng_fill_uniform(pin, n, x->seed++, -1.0f, 1.0f);
    j = (copy_job){d.ptr, pin, bytes, 0, cudaMemcpyHostToDevice};
    x->variant = h2d_pin.variant;
    if (!time_copy(x, &h2d_pin, &j, 5, 40, &e))
        goto fail_pop;
    j = (copy_job){page, d.ptr, bytes, 0, cudaMemcpyDeviceToHost};
    x->variant = d2h_page.variant;
    if (!time_copy(x, &d2h_page, &j, 5, 40, &e))
        goto fail_pop;
    check_exact(&h2d_pin, page, pin, n);
    check_exact(&d2h_page, page, pin, n);
    nvtx_pop();

    double gain_h2d = h2d_page.median_ms / h2d_pin.median_ms;
    double gain_d2h = d2h_page.median_ms / d2h_pin.median_ms;
    row_note(&h2d_page, "ordinary malloc'd memory: the driver stages it through a pinned buffer");
    row_note(&h2d_pin, "page-locked (cudaMallocHost): %.2fx the pageable rate", gain_h2d);
    row_note(&d2h_page, "ordinary malloc'd memory, staged by the driver");
    row_note(&d2h_pin, "page-locked: %.2fx the pageable rate", gain_d2h);
    row_emit(x, &h2d_page);
    row_emit(x, &h2d_pin);
    row_emit(x, &d2h_page);
    row_emit(x, &d2h_pin);

    {
        size_t chunk = 64 * 1024;
        size_t count = bytes / chunk;
        char lab[PROTO_ID_MAX];
        snprintf(lab, sizeof lab, "%zu x 64 KiB H2D", count);
        row_start(x, &r, "small_copies", lab, sz);
        nvtx_push("many small copies");
        j = (copy_job){d.ptr, pin, count * chunk, chunk, cudaMemcpyHostToDevice};
        bool ok = time_copy(x, &r, &j, 3, 5, &e);
        nvtx_pop();
        if (!ok || !x_download(x, page, d.ptr, bytes, &e)) {
            row_failed(x, &r, &e);
            if (x->broken)
                goto done;
        } else {
            check_exact(&r, page, pin, count * chunk / sizeof(float));
            row_note(&r, "pinned; one cudaMemcpyAsync per 64 KiB: %.1f us each, %.2fx slower than "
                         "one %s copy at %.1f GB/s",
                     1e3 * r.median_ms / (double)count, r.median_ms / h2d_pin.median_ms, sz,
                     h2d_pin.gbps);
            row_emit(x, &r);
        }
    }

    {
        row_start(x, &r, "compute_vs_copy", "kernel on the same data", sz);
        size_t half = n / 2;
        scale_job sj = {(const float *)d.ptr, (float *)d.ptr + half, half, 2.0f, 256};
        nvtx_push("copy vs compute");
        timing_result tr;
        bool ok = x_time(x, scale_once, &sj, bytes, 5, 0, &tr, &e);
        nvtx_pop();
        if (!ok || !x_download(x, page, d.ptr, bytes, &e)) {
            row_failed(x, &r, &e);
        } else {
            set_timing(&r, &tr);
            set_bandwidth(x, &r, (double)(2 * half * sizeof(float)));
            for (size_t i = 0; i < half; i++)
                pin[i] = 2.0f * page[i];
            check_exact(&r, page + half, pin, half);
            row_note(&r, "y = 2x over the %s on the device (read half, write half) takes %.3f ms; "
                         "bringing them from the host took %.3f ms pinned, %.3f ms pageable: "
                         "moving the data costs %.0fx computing on it",
                     sz, r.median_ms, h2d_pin.median_ms, h2d_page.median_ms,
                     h2d_pin.median_ms / r.median_ms);
            row_emit(x, &r);
        }
    }
    goto done;

fail_pop:
    nvtx_pop();
fail_all:
    row_failed(x, &h2d_page, &e);
    row_failed(x, &h2d_pin, &e);
    row_failed(x, &d2h_page, &e);
    row_failed(x, &d2h_pin, &e);
done:
    if (pin)
        cudaFreeHost(pin);
    free(page);
    buffer_free(&d);
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

static void exp_overlap(xctx *x)
{
    cl_err e = {{0}};
    ov_bufs b;
    memset(&b, 0, sizeof b);
    run_result rs, ro;
    char sz[32];
    size_t bytes = fit_device(256 * MIB, X_FLOOR, 2);
    buffer_format_bytes(bytes, sz, sizeof sz);
    row_start(x, &rs, "overlap_sync", "1 stream: copy, compute, copy", sz);
    row_start(x, &ro, "overlap_streams", "4 streams, 8 chunks", sz);
    double tsync[OV_REPS], tov[OV_REPS], stage[3] = {0, 0, 0}, st_sum[3] = {0, 0, 0};
    cudacheck_reset();
    if (bytes == 0) {
        too_little_memory(&e, 2 * X_FLOOR);
        goto fail;
    }
    if (!ov_setup(x, &b, bytes, &e))
        goto fail;
    x->variant = rs.variant;
    if (!ov_calibrate(x, &b, &e))
        goto fail;

    nvtx_push("synchronous pipeline");
    for (int i = 0; i < OV_REPS; i++) {
        x_progress(x, "timing", i + 1, OV_REPS);
        if (!ov_sync_pass(x, &b, &tsync[i], stage, &e)) {
            nvtx_pop();
            goto fail;
        }
        for (int k = 0; k < 3; k++)
            st_sum[k] += stage[k];
    }
    nvtx_pop();
    x->variant = ro.variant;
    if (!x_poison(x, b.dout.ptr, bytes, &e) || !x_sync(x, &e))
        goto fail;
    nvtx_push("overlapped pipeline");
    for (int i = 0; i < OV_REPS; i++) {
        x_progress(x, "timing", i + 1, OV_REPS);
        if (!ov_stream_pass(x, &b, &tov[i], &e)) {
            nvtx_pop();
            goto fail;
        }
    }
    nvtx_pop();

    set_summary(&rs, tsync, OV_REPS);
    set_summary(&ro, tov, OV_REPS);
    check_fma(&rs, b.hin, b.hout, b.n, b.iters, x->seed);
    check_exact(&ro, b.hout2, b.hout, b.n);
    if (rs.status != RS_CORRECT && ro.status == RS_CORRECT)
        check_fma(&ro, b.hin, b.hout2, b.n, b.iters, x->seed);
    for (int k = 0; k < 3; k++)
        st_sum[k] /= OV_REPS;
    double longest = st_sum[0] > st_sum[1] ? st_sum[0] : st_sum[1];
    if (st_sum[2] > longest)
        longest = st_sum[2];
    rs.tflops = PROFILING_FMA_FLOPS(b.iters) * (double)b.n / (rs.median_ms * 1e9);
    ro.tflops = PROFILING_FMA_FLOPS(b.iters) * (double)b.n / (ro.median_ms * 1e9);
    row_note(&rs, "pinned; H2D %.2f ms, kernel %.2f ms (%d FMA steps, sized to match the copy), "
                  "D2H %.2f ms, one after the other",
             st_sum[0], st_sum[1], b.iters, st_sum[2]);
    row_note(&ro, "%.2fx faster than one stream: copies of one chunk overlap the kernel of "
                  "another; no pipeline beats the longest stage, %.2f ms",
             rs.median_ms / ro.median_ms, longest);
    row_emit(x, &rs);
    row_emit(x, &ro);
    goto done;
fail:
    row_failed(x, &rs, &e);
    row_failed(x, &ro, &e);
done:
    ov_teardown(&b);
}

/* ---- stride ------------------------------------------------------------------- */

typedef struct stride_job {
    const float *in;
    size_t nin;
    float *out;
    size_t nout;
    int stride;
} stride_job;

static bool stride_once(void *ud, cudaStream_t s, cl_err *e)
{
    const stride_job *j = ud;
    CUDA_CHECK_LAUNCH(e, profiling_stride(j->in, j->nin, j->out, j->nout, j->stride, s));
    return true;
}

static void exp_stride(xctx *x)
{
    static const int strides[] = {1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 64, 128};
    const size_t nst = sizeof strides / sizeof strides[0];
    cl_err e = {{0}};
    io_bufs io;
    run_result r;
    char sz[48], insz[32];
    size_t inb = fit_device(256 * MIB, X_FLOOR, 2);
    size_t nin = inb / sizeof(float);
    buffer_format_bytes(inb, insz, sizeof insz);
    snprintf(sz, sizeof sz, "%s in", insz);
    cudacheck_reset();
    if (!io_setup(x, &io, inb, true, "stride", &e))
        goto fail_all;

    for (size_t k = 0; k < nst; k++) {
        int s = strides[k];
        size_t nout = nin / (size_t)s;
        size_t sectors = 4 * (size_t)s < 32 ? 4 * (size_t)s : 32;
        char id[PROTO_ID_MAX], lab[PROTO_ID_MAX], range[32], outsz[32];
        snprintf(id, sizeof id, "stride_%d", s);
        if (s == 1)
            snprintf(lab, sizeof lab, "stride 1 (coalesced)");
        else
            snprintf(lab, sizeof lab, "stride %d", s);
        snprintf(range, sizeof range, "stride %d", s);
        buffer_format_bytes(nout * sizeof(float), outsz, sizeof outsz);
        char rsz[48];
        snprintf(rsz, sizeof rsz, "%s out", outsz);
        row_start(x, &r, id, lab, rsz);
        stride_job j = {io.din.ptr, nin, io.dout.ptr, nout, s};
        size_t touched = nout / 32 * sectors * 32 + nout * sizeof(float);
        timing_result tr;
        if (!x_measure(x, range, stride_once, &j, io.dout.ptr, io.hout, nout * sizeof(float),
                       touched, &tr, &e)) {
            row_failed(x, &r, &e);
            if (x->broken)
                goto done;
            continue;
        }
        for (size_t i = 0; i < nout; i++)
            io.want[i] = io.hin[i * (size_t)s];
        set_timing(&r, &tr);
        set_bandwidth(x, &r, (double)(2 * nout * sizeof(float)));
        check_exact(&r, io.hout, io.want, nout);
        row_note(&r, "out[i] = in[%d i] over %s of input; GB/s of useful data (4 B read + 4 B "
                     "written per element): a warp's 32 loads touch %zu sector%s of 32 B, so "
                     "%.0f%% of the bytes fetched are used",
                 s, insz, sectors, sectors == 1 ? "" : "s", 100.0 * 128.0 / (32.0 * (double)sectors));
        row_emit(x, &r);
    }
    goto done;
fail_all:
    rows_failed(x, "stride", strides, nst, sz, &e);
done:
    io_free(&io);
}

/* ---- gemv ----------------------------------------------------------------------- */

typedef cudaError_t (*gemv_fn)(const float *, const float *, float *, int, cudaStream_t);

typedef struct gemv_job {
    gemv_fn fn;
    const float *A, *x;
    float *y;
    int n;
} gemv_job;

static bool gemv_once(void *ud, cudaStream_t s, cl_err *e)
{
    const gemv_job *j = ud;
    CUDA_CHECK_LAUNCH(e, j->fn(j->A, j->x, j->y, j->n, s));
    return true;
}

static void exp_gemv(xctx *x)
{
    struct {
        const char *id, *label, *note;
        gemv_fn fn;
        bool colmajor;
    } v[] = {
        {"gemv_row_thread", "row-major, thread per row", "neighbouring threads read floats a row "
         "apart: every load of a warp is its own memory transaction", profiling_gemv_row, false},
        {"gemv_col_thread", "column-major, thread per row", "the same loop over a column-major "
         "copy: neighbouring threads read neighbouring floats", profiling_gemv_col, true},
        {"gemv_row_warp", "row-major, warp per row", "the row-major matrix read by a whole warp "
         "per row, lanes on adjacent floats, then a shuffle reduction", profiling_gemv_warp, false},
    };
    const size_t nv = sizeof v / sizeof v[0];
    cl_err e = {{0}};
    gpu_buffer dA = {0}, dAt = {0}, dx = {0}, dy = {0};
    float *A = NULL, *At = NULL, *hx = NULL, *hy = NULL;
    double *ref = NULL;
    run_result r;
    int n = square_side();
    size_t nn = (size_t)n * (size_t)n, mb = nn * sizeof(float);
    char sz[48];
    snprintf(sz, sizeof sz, "%dx%d", n, n);
    cudacheck_reset();
    if (!buffer_alloc(&dA, mb, &e) || !buffer_alloc(&dAt, mb, &e) ||
        !buffer_alloc(&dx, (size_t)n * sizeof(float), &e) ||
        !buffer_alloc(&dy, (size_t)n * sizeof(float), &e))
        goto fail_all;
    A = malloc(mb);
    At = malloc(mb);
    hx = malloc((size_t)n * sizeof(float));
    hy = malloc((size_t)n * sizeof(float));
    ref = malloc((size_t)n * sizeof(double));
    if (!A || !At || !hx || !hy || !ref) {
        err_set(&e, "out of host memory for the gemv experiment");
        goto fail_all;
    }
    rng_fill_uniform(A, nn, x->seed++, -1.0f, 1.0f);
    rng_fill_uniform(hx, (size_t)n, x->seed++, -1.0f, 1.0f);
    for (int i = 0; i < n; i++) {
        double acc = 0.0;
        const float *row = A + (size_t)i * (size_t)n;
        for (int k = 0; k < n; k++)
            acc += (double)row[k] * (double)hx[k];
        ref[i] = acc;
    }
    transpose_host(A, At, (size_t)n);
    if (!x_upload(x, dA.ptr, A, mb, &e) || !x_upload(x, dAt.ptr, At, mb, &e) ||
        !x_upload(x, dx.ptr, hx, (size_t)n * sizeof(float), &e))
        goto fail_all;

    for (size_t k = 0; k < nv; k++) {
        row_start(x, &r, v[k].id, v[k].label, sz);
        gemv_job j = {v[k].fn, v[k].colmajor ? dAt.ptr : dA.ptr, dx.ptr, dy.ptr, n};
        timing_result tr;
        if (!x_measure(x, v[k].id, gemv_once, &j, dy.ptr, hy, (size_t)n * sizeof(float), mb, &tr,
                       &e)) {
            row_failed(x, &r, &e);
            if (x->broken)
                goto done;
            continue;
        }
        set_timing(&r, &tr);
        set_bandwidth(x, &r, (double)(nn + 2 * (size_t)n) * sizeof(float));
        r.tflops = 2.0 * (double)nn / (r.median_ms * 1e9);
        if (x->dev.peak_bw_measured_gbs <= 0.0)
            r.pct_peak_measured = -1.0;
        check_report c = check_compare(hy, (size_t)n, ref, NULL, (size_t)n, 1e-4);
        check_report_row(&r, &c);
        row_note(&r, "%s", v[k].note);
        row_emit(x, &r);
    }
    goto done;
fail_all:
    for (size_t k = 0; k < nv; k++) {
        row_start(x, &r, v[k].id, v[k].label, sz);
        row_failed(x, &r, &e);
    }
done:
    free(A);
    free(At);
    free(hx);
    free(hy);
    free(ref);
    buffer_free(&dA);
    buffer_free(&dAt);
    buffer_free(&dx);
    buffer_free(&dy);
}

/* ---- block size ------------------------------------------------------------------- */

static void exp_blocksize(xctx *x)
{
    static const int blocks[] = {32, 64, 128, 256, 512, 1024};
    const size_t nb = sizeof blocks / sizeof blocks[0];
    cl_err e = {{0}};
    io_bufs io;
    run_result r;
    char sz[32];
    size_t bytes = fit_device(256 * MIB, X_FLOOR, 2);
    size_t n = bytes / sizeof(float);
    buffer_format_bytes(bytes, sz, sizeof sz);
    int max_threads = 0;
    cudacheck_reset();
    if (!io_setup(x, &io, bytes, true, "block-size", &e))
        goto fail_all;
    CUDA_CHECK_GOTO(&e, cudaDeviceGetAttribute(&max_threads, cudaDevAttrMaxThreadsPerMultiProcessor,
                                               x->dev.ordinal),
                    fail_all);
    for (size_t i = 0; i < n; i++)
        io.want[i] = 2.0f * io.hin[i];

    for (size_t k = 0; k < nb; k++) {
        int b = blocks[k];
        char id[PROTO_ID_MAX], lab[PROTO_ID_MAX];
        snprintf(id, sizeof id, "block_%d", b);
        snprintf(lab, sizeof lab, "%d threads per block", b);
        row_start(x, &r, id, lab, sz);
        scale_job j = {io.din.ptr, io.dout.ptr, n, 2.0f, b};
        int per_sm = 0;
        timing_result tr;
        cudaError_t ost = profiling_scale_occupancy(b, &per_sm);
        if (ost != cudaSuccess)
            cudacheck_fail(&e, ost, "cudaOccupancyMaxActiveBlocksPerMultiprocessor", __FILE__,
                           __LINE__);
        if (ost != cudaSuccess || !x_measure(x, lab, scale_once, &j, io.dout.ptr, io.hout, bytes,
                                             2 * bytes, &tr, &e)) {
            row_failed(x, &r, &e);
            if (x->broken)
                goto done;
            continue;
        }
        set_timing(&r, &tr);
        set_bandwidth(x, &r, (double)(2 * bytes));
        check_exact(&r, io.hout, io.want, n);
        int threads = per_sm * b;
        row_note(&r, "y = 2x; the runtime fits %d block%s of %d threads on an SM: %d of %d threads, "
                     "%.0f%% occupancy",
                 per_sm, per_sm == 1 ? "" : "s", b, threads, max_threads,
                 max_threads > 0 ? 100.0 * threads / max_threads : 0.0);
        row_emit(x, &r);
    }
    goto done;
fail_all:
    rows_failed(x, "block", blocks, nb, sz, &e);
done:
    io_free(&io);
}

/* ---- transpose ---------------------------------------------------------------------- */

typedef cudaError_t (*transpose_fn)(const float *, float *, int, int, cudaStream_t);

typedef struct transpose_job {
    transpose_fn fn;       /* NULL: plain copy */
    const float *in;
    float *out;
    int n;
} transpose_job;

static bool transpose_once(void *ud, cudaStream_t s, cl_err *e)
{
    const transpose_job *j = ud;
    if (j->fn)
        CUDA_CHECK_LAUNCH(e, j->fn(j->in, j->out, j->n, j->n, s));
    else
        CUDA_CHECK_LAUNCH(e, profiling_copy(j->in, j->out, (size_t)j->n * (size_t)j->n, s));
    return true;
}

static void exp_transpose(xctx *x)
{
    struct {
        const char *id, *label, *note;
        transpose_fn fn;
    } v[] = {
        {"transpose_copy", "copy (the bound)", "a plain copy of the same bytes: what a transpose "
         "can hope for", NULL},
        {"transpose_naive", "naive", "reads rows (coalesced) and writes columns straight to global "
         "memory: each warp's stores land 32 rows apart", profiling_transpose_naive},
        {"transpose_tiled", "shared-memory tile", "stages a 32x32 tile in shared memory so both "
         "global reads and writes are coalesced; reading a tile column hits one bank 32 times",
         profiling_transpose_tiled},
        {"transpose_padded", "padded tile", "the same tile with one extra column: a column's 32 "
         "floats fall in 32 different banks, no conflicts", profiling_transpose_padded},
    };
    const size_t nv = sizeof v / sizeof v[0];
    cl_err e = {{0}};
    io_bufs io;
    run_result r;
    int n = square_side();
    size_t nn = (size_t)n * (size_t)n, bytes = nn * sizeof(float);
    char sz[48];
    snprintf(sz, sizeof sz, "%dx%d", n, n);
    cudacheck_reset();
    if (!io_setup(x, &io, bytes, true, "transpose", &e))
        goto fail_all;
    transpose_host(io.hin, io.want, (size_t)n);

    for (size_t k = 0; k < nv; k++) {
        row_start(x, &r, v[k].id, v[k].label, sz);
        transpose_job j = {v[k].fn, io.din.ptr, io.dout.ptr, n};
        timing_result tr;
        if (!x_measure(x, v[k].id, transpose_once, &j, io.dout.ptr, io.hout, bytes, 2 * bytes, &tr,
                       &e)) {
            row_failed(x, &r, &e);
            if (x->broken)
                goto done;
            continue;
        }
        check_exact(&r, io.hout, v[k].fn ? io.want : io.hin, nn);
        set_timing(&r, &tr);
        set_bandwidth(x, &r, (double)(2 * bytes));
        row_note(&r, "%s", v[k].note);
        row_emit(x, &r);
    }
    goto done;
fail_all:
    for (size_t k = 0; k < nv; k++) {
        row_start(x, &r, v[k].id, v[k].label, sz);
        row_failed(x, &r, &e);
    }
done:
    io_free(&io);
}

/* ---- timing pitfalls ------------------------------------------------------------------ */

#define TIMING_REPS 20

static bool first_launch_done;

static void exp_timing(xctx *x)
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
        row_start(x, &r[i], ids[i], labels[i], i < 3 ? sz : "1 thread block");
    cudacheck_reset();
    if (!io_setup(x, &io, bytes, false, "timing", &e) || !buffer_alloc(&one, sizeof(float), &e))
        goto fail;
    CUDA_CHECK_GOTO(&e, cudaEventCreate(&ev0), fail);
    CUDA_CHECK_GOTO(&e, cudaEventCreate(&ev1), fail);

    nvtx_push("first launch");
    bool was_first = !first_launch_done;
    x->variant = r[3].variant;
    double h0 = now_ms();
    CUDA_CHECK_GOTO(&e, profiling_first_launch(one.ptr, x->s), fail_pop);
    CUDA_CHECK_GOTO(&e, cudaStreamSynchronize(x->s), fail_pop);
    t[3][0] = now_ms() - h0;
    first_launch_done = true;
    for (int i = 0; i < TIMING_REPS; i++) {
        h0 = now_ms();
        CUDA_CHECK_GOTO(&e, profiling_first_launch(one.ptr, x->s), fail_pop);
        CUDA_CHECK_GOTO(&e, cudaStreamSynchronize(x->s), fail_pop);
        t[4][i] = now_ms() - h0;
    }
    nvtx_pop();
    float flag = 0.0f;
    if (!x_download(x, &flag, one.ptr, sizeof flag, &e))
        goto fail;

    x->variant = r[2].variant;
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
        x_progress(x, "timing", i + 1, TIMING_REPS);
        h0 = now_ms();
        CUDA_CHECK_GOTO(&e, profiling_fma(io.din.ptr, io.dout.ptr, n, iters, x->s), fail_pop);
        t[0][i] = now_ms() - h0;
        CUDA_CHECK_GOTO(&e, cudaStreamSynchronize(x->s), fail_pop);
    }
    nvtx_pop();
    nvtx_push("host timer with sync");
    for (int i = 0; i < TIMING_REPS; i++) {
        h0 = now_ms();
        CUDA_CHECK_GOTO(&e, profiling_fma(io.din.ptr, io.dout.ptr, n, iters, x->s), fail_pop);
        CUDA_CHECK_GOTO(&e, cudaStreamSynchronize(x->s), fail_pop);
        t[1][i] = now_ms() - h0;
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
    if (!x_poison(x, io.dout.ptr, bytes, &e))
        goto fail;
    CUDA_CHECK_GOTO(&e, profiling_fma(io.din.ptr, io.dout.ptr, n, iters, x->s), fail);
    if (!x_download(x, io.hout, io.dout.ptr, bytes, &e))
        goto fail;

    for (int i = 0; i < 3; i++) {
        set_summary(&r[i], t[i], TIMING_REPS);
        check_fma(&r[i], io.hin, io.hout, n, iters, x->seed);
        r[i].tflops = PROFILING_FMA_FLOPS(iters) * (double)n / (r[i].median_ms * 1e9);
    }
    r[0].tflops = -1.0;
    set_summary(&r[3], t[3], 1);
    set_summary(&r[4], t[4], TIMING_REPS);
    for (int i = 3; i < 5; i++) {
        r[i].status = flag == 1.0f ? RS_CORRECT : RS_WRONG;
        if (flag != 1.0f)
            row_note(&r[i], "the kernel did not write its output (got %g)", (double)flag);
    }
    row_note(&r[0], "clock read right after the launch returned: this is the cost of queueing the "
                    "kernel, not of running it (%.0fx less than the events measure)",
             r[2].median_ms / r[0].median_ms);
    row_note(&r[1], "clock read after cudaStreamSynchronize: kernel time plus launch and wake-up "
                    "overhead, %.3f ms more than the events", r[1].median_ms - r[2].median_ms);
    row_note(&r[2], "cudaEventRecord before and after on the same stream: the GPU's own clock, "
                    "no host overhead");
    if (was_first)
        row_note(&r[3], "host clock around launch + sync of a kernel never launched before in "
                        "this worker: includes loading it (%.1fx a later launch)",
                 r[3].median_ms / r[4].median_ms);
    else
        row_note(&r[3], "this worker launched the kernel in an earlier run, so no loading was "
                        "measured; a fresh worker shows the first-launch cost");
    row_note(&r[4], "host clock around launch + sync of the same tiny kernel, %d times",
             TIMING_REPS);
    for (int i = 0; i < 5; i++)
        row_emit(x, &r[i]);
    goto done;
fail_pop:
    nvtx_pop();
fail:
    for (int i = 0; i < 5; i++)
        row_failed(x, &r[i], &e);
done:
    if (ev0)
        cudaEventDestroy(ev0);
    if (ev1)
        cudaEventDestroy(ev1);
    io_free(&io);
    buffer_free(&one);
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

static void exp_roofline(xctx *x)
{
    static const int iters[] = {0, 1, 4, 16, 64, 256, 1024};
    const size_t ni = sizeof iters / sizeof iters[0];
    cl_err e = {{0}};
    io_bufs io;
    run_result r;
    size_t bytes = fit_device(128 * MIB, X_FLOOR, 2);
    size_t n = bytes / sizeof(float);
    char sz[32];
    buffer_format_bytes(bytes, sz, sizeof sz);
    roofline roof = {x->dev.peak_fp32_tflops * 1e3, peak_bw(x)};
    cudacheck_reset();
    if (!io_setup(x, &io, bytes, false, "roofline", &e))
        goto fail_all;

    for (size_t k = 0; k < ni; k++) {
        double flops = PROFILING_FMA_FLOPS(iters[k]);
        double ai = flops / 8.0;
        char id[PROTO_ID_MAX], lab[PROTO_ID_MAX];
        snprintf(id, sizeof id, "roof_%d", iters[k]);
        snprintf(lab, sizeof lab, "%.2f FLOP/B", ai);
        row_start(x, &r, id, lab, sz);
        fma_job j = {io.din.ptr, io.dout.ptr, n, iters[k]};
        timing_result tr;
        if (!x_measure(x, lab, fma_once, &j, io.dout.ptr, io.hout, bytes, 2 * bytes, &tr, &e)) {
            row_failed(x, &r, &e);
            if (x->broken)
                goto done;
            continue;
        }
        set_timing(&r, &tr);
        r.gbps = 2.0 * (double)bytes / (r.median_ms * 1e6);
        r.tflops = flops * (double)n / (r.median_ms * 1e9);
        check_fma(&r, io.hin, io.hout, n, iters[k], x->seed);
        roofline_point p = {ai, r.tflops * 1e3};
        if (roofline_valid(&roof)) {
            double pct = roofline_pct_of_roof(&roof, &p);
            r.pct_peak_measured = pct;
            row_note(&r, "%d FMA steps per element; the ridge is at %.1f FLOP/B (%.1f TFLOP/s / "
                         "%.0f GB/s): %s, %.0f%% of the roof above it (%.2f of %.2f TFLOP/s)",
                     iters[k], roofline_ridge(&roof), roof.peak_gflops / 1e3, roof.peak_gbs,
                     roofline_side_name(roofline_side_of(&roof, ai)), pct, r.tflops,
                     roofline_attainable(&roof, ai) / 1e3);
        } else {
            row_note(&r, "%d FMA steps per element; the device's peaks are unknown, so the "
                         "roofline cannot be drawn",
                     iters[k]);
        }
        row_emit(x, &r);
    }
    goto done;
fail_all:
    rows_failed(x, "roof", iters, ni, sz, &e);
done:
    io_free(&io);
}

/* ---- the run ---------------------------------------------------------------------------------- */

typedef struct experiment {
    const char *id;
    const char *title;
    void (*run)(xctx *x);
} experiment;

static const experiment experiments[] = {
    {"transfers", "host<->device copies: pageable vs pinned, many small vs one large, copy vs compute",
     exp_transfers},
    {"overlap", "copy-compute-copy on one stream vs chunks spread over four streams", exp_overlap},
    {"stride", "coalesced vs strided global reads, stride 1 to 128", exp_stride},
    {"gemv", "matrix-vector product: row-major vs column-major, thread vs warp per row", exp_gemv},
    {"blocksize", "one bandwidth kernel at 32 to 1024 threads per block, with occupancy",
     exp_blocksize},
    {"transpose", "matrix transpose: naive vs shared-memory tile vs padded tile", exp_transpose},
    {"timing", "host timers with and without synchronisation vs CUDA events; first launch",
     exp_timing},
    {"roofline", "one kernel at rising arithmetic intensity against the roofline", exp_roofline},
};
#define NEXP (sizeof experiments / sizeof experiments[0])

static const experiment *experiment_find(const char *id)
{
    for (size_t i = 0; id && i < NEXP; i++)
        if (strcmp(experiments[i].id, id) == 0)
            return &experiments[i];
    return NULL;
}

const char *const *experiments_ids(size_t *n)
{
    static const char *ids[NEXP];
    for (size_t i = 0; i < NEXP; i++)
        ids[i] = experiments[i].id;
    *n = NEXP;
    return ids;
}

const char *experiments_title(const char *id)
{
    const experiment *xp = experiment_find(id);
    return xp ? xp->title : NULL;
}

bool experiments_known(const char *id)
{
    return experiment_find(id) != NULL;
}

static void unknown_row(xctx *x, const char *id)
{
    run_result r;
    row_start(x, &r, id, id, "");
    char known[256] = "";
    size_t len = 0;
    for (size_t i = 0; i < NEXP; i++)
        len += (size_t)snprintf(known + len, sizeof known - len, "%s%s", i ? ", " : "",
                                experiments[i].id);
    snprintf(r.message, sizeof r.message, "unknown experiment '%s' (known: %s)", id, known);
    row_emit(x, &r);
}

static void absent_rows(xctx *x, const char *const *ids, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!experiments_known(ids[i])) {
            unknown_row(x, ids[i]);
            continue;
        }
        run_result r;
        row_start(x, &r, ids[i], ids[i], "");
        row_error(&r, x->dev.reason[0] ? x->dev.reason : "no CUDA device found");
        row_emit(x, &r);
    }
}

/* Writes the recorded timeline to the data folder and announces it. */
static void save_timeline(xctx *x, const timeline *t)
{
    char path[CL_PATH_MAX], dir[CL_PATH_MAX], msg[CL_PATH_MAX + 128];
    cl_err e = {{0}};
    if (!experiments_timeline_file(path, sizeof path, &e)) {
        snprintf(msg, sizeof msg, "timeline not saved: %s", e.msg);
        x_log(x, 1, msg);
        return;
    }
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    if (!paths_mkdir_p(dir, &e) || !trace_write(t, path, &e)) {
        snprintf(msg, sizeof msg, "timeline not saved: %s", e.msg);
        x_log(x, 1, msg);
        return;
    }
    uint64_t t0 = 0, t1 = 0;
    timeline_span(t, &t0, &t1);
    char span[32];
    timeline_format_ns((double)(t1 - t0), span, sizeof span);
    snprintf(msg, sizeof msg, "%s%s (%zu events over %s%s)", EXPERIMENTS_TIMELINE_LOG, path,
             t->nitems, span, t->dropped ? ", some records lost" : "");
    x_log(x, 0, msg);
}

bool experiments_run(const run_request *req, const engine_sink *sink, run_fault *fault)
{
    xctx x;
    memset(&x, 0, sizeof x);
    x.req = req;
    x.sink = sink;
    x.fault = fault;
    x.seed = req->seed ? req->seed : rng_fresh_seed();
    x.budget_s = req->budget_s > 0.0 ? req->budget_s : X_DEFAULT_BUDGET_S;
    engine_probe(&x.dev);

    const char *ids[PROTO_MAX_VARIANTS];
    size_t nids = 0;
    if (req->nvariants == 0) {
        for (size_t i = 0; i < NEXP && nids < PROTO_MAX_VARIANTS; i++)
            ids[nids++] = experiments[i].id;
    } else {
        for (int i = 0; i < req->nvariants; i++)
            ids[nids++] = req->variants[i].id;
    }

    if (!x.dev.present) {
        absent_rows(&x, ids, nids);
        return true;
    }

    cl_err e = {{0}};
    cudacheck_reset();
    cudaError_t st = cudaStreamCreateWithFlags(&x.s, cudaStreamNonBlocking);
    if (st != cudaSuccess) {
        x.s = NULL;
        snprintf(x.dev.reason, sizeof x.dev.reason, "cannot create a CUDA stream: %s",
                 cudaGetErrorString(st));
        absent_rows(&x, ids, nids);
        return !cudacheck_is_sticky(st);
    }
    x.l2 = (size_t)(x.dev.l2_mib * (double)MIB);
    if (x.l2 > 0 && !buffer_alloc(&x.flush, 2 * x.l2, NULL))
        cudaGetLastError();

    bool recording = cupti_start(x.dev.name, &e);
    if (!recording) {
        char msg[CL_ERR_MAX + 64];
        snprintf(msg, sizeof msg, "timeline not recorded: %s", e.msg);
        x_log(&x, 1, msg);
    }

    for (size_t i = 0; i < nids && !x.broken; i++) {
        const experiment *xp = experiment_find(ids[i]);
        if (!xp) {
            unknown_row(&x, ids[i]);
            continue;
        }
        nvtx_push(xp->id);
        xp->run(&x);
        nvtx_pop();
    }
    bool alive = !x.broken;

    if (recording) {
        timeline t;
        if (alive && cupti_stop(&t, &e)) {
            save_timeline(&x, &t);
            timeline_free(&t);
        } else if (alive) {
            char msg[CL_ERR_MAX + 64];
            snprintf(msg, sizeof msg, "timeline not recorded: %s", e.msg);
            x_log(&x, 1, msg);
        } else {
            cupti_stop(&t, NULL);
            timeline_free(&t);
        }
        if (cupti_warnings()[0])
            x_log(&x, 1, cupti_warnings());
    }
    buffer_free(&x.flush);
    if (alive)
        cudaStreamDestroy(x.s);
    return alive;
}
