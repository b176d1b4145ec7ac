#include "experiments/experiments.h"

#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime_api.h>

#include "core/rng.h"
#include "cpu/check.h"
#include "gpu/buffer.h"
#include "gpu/cudacheck.h"
#include "profiling.h"
#include "experiments/experiments_internal.h"

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

void experiments_stride(xctx *ctx)
{
    static const int strides[] = {1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 64, 128};
    const size_t nst = sizeof strides / sizeof strides[0];
    cl_err e = {{0}};
    io_bufs io;
    run_result r;
    char sz[48], insz[32];
    size_t inb = experiments_fit_device(256 * MIB, X_FLOOR, 2);
    size_t nin = inb / sizeof(float);
    buffer_format_bytes(inb, insz, sizeof insz);
    snprintf(sz, sizeof sz, "%s in", insz);
    cudacheck_reset();
    if (!experiments_io_setup(ctx, &io, inb, true, "stride", &e))
        goto fail_all;

    for (size_t k = 0; k < nst; k++) {
        int s = strides[k];
        size_t nout = nin / (size_t)s;
        size_t sectors = 4 * (size_t)s < 32 ? 4 * (size_t)s : 32;
        char id[RUN_ID_MAX], lab[RUN_ID_MAX], range[32], outsz[32];
        snprintf(id, sizeof id, "stride_%d", s);
        if (s == 1)
            snprintf(lab, sizeof lab, "stride 1 (coalesced)");
        else
            snprintf(lab, sizeof lab, "stride %d", s);
        snprintf(range, sizeof range, "stride %d", s);
        buffer_format_bytes(nout * sizeof(float), outsz, sizeof outsz);
        char rsz[48];
        snprintf(rsz, sizeof rsz, "%s out", outsz);
        experiments_row_start(ctx, &r, id, lab, rsz);
        stride_job j = {.in = io.din.ptr, .nin = nin, .out = io.dout.ptr, .nout = nout,
                        .stride = s};
        size_t touched = nout / 32 * sectors * 32 + nout * sizeof(float);
        timing_result tr;
        if (!experiments_measure(ctx, range, stride_once, &j, io.dout.ptr, io.hout,
                                 nout * sizeof(float), touched, &tr, &e)) {
            experiments_row_failed(ctx, &r, &e);
            if (ctx->broken)
                goto done;
            continue;
        }
        for (size_t i = 0; i < nout; i++)
            io.want[i] = io.hin[i * (size_t)s];
        experiments_set_timing(&r, &tr);
        experiments_set_bandwidth(ctx, &r, (double)(2 * nout * sizeof(float)));
        experiments_check_exact(&r, io.hout, io.want, nout);
        engine_row_note(
            &r,
            "out[i] = in[%d i] over %s of input; GB/s of useful data (4 B read + 4 B "
            "written per element): a warp's 32 loads touch %zu sector%s of 32 B, so "
            "%.0f%% of the bytes fetched are used",
            s, insz, sectors, sectors == 1 ? "" : "s", 100.0 * 128.0 / (32.0 * (double)sectors));
        engine_row_emit(&ctx->rows, &r);
    }
    goto done;
fail_all:
    experiments_rows_failed(ctx, "stride", strides, nst, sz, &e);
done:
    experiments_io_free(&io);
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

/* One gemv row: its id and label, what it shows, the kernel, and whether
 * it reads the column-major copy. */
typedef struct gemv_variant {
    const char *id, *label, *note;
    gemv_fn fn;
    bool colmajor;
} gemv_variant;

static const gemv_variant gemv_variants[] = {
    {.id = "gemv_row_thread", .label = "row-major, thread per row",
     .note = "neighbouring threads read floats a row apart: every load of a warp is its own "
             "memory transaction",
     .fn = profiling_gemv_row, .colmajor = false},
    {.id = "gemv_col_thread", .label = "column-major, thread per row",
     .note = "the same loop over a column-major copy: neighbouring threads read neighbouring "
             "floats",
     .fn = profiling_gemv_col, .colmajor = true},
    {.id = "gemv_row_warp", .label = "row-major, warp per row",
     .note = "the row-major matrix read by a whole warp per row, lanes on adjacent floats, then "
             "a shuffle reduction",
     .fn = profiling_gemv_warp, .colmajor = false},
};
#define NGEMV (sizeof gemv_variants / sizeof gemv_variants[0])

/* The gemv experiment's matrix (row-major and a column-major copy), its
 * vectors, and the double-precision reference of y. */
typedef struct gemv_bench {
    int n;                     /* the matrix is n x n */
    gpu_buffer dA, dAt, dx, dy;
    float *A, *At, *hx, *hy;
    double *ref;
} gemv_bench;

/* Fresh random A and x, the reference y = A x, A's transpose, all
 * uploaded; false with e when they cannot be had. */
static bool gemv_setup(xctx *x, gemv_bench *b, cl_err *e)
{
    int n = b->n;
    size_t nn = (size_t)n * (size_t)n, mb = nn * sizeof(float);
    if (!buffer_alloc(&b->dA, mb, e) || !buffer_alloc(&b->dAt, mb, e) ||
        !buffer_alloc(&b->dx, (size_t)n * sizeof(float), e) ||
        !buffer_alloc(&b->dy, (size_t)n * sizeof(float), e))
        return false;
    b->A = malloc(mb);
    b->At = malloc(mb);
    b->hx = malloc((size_t)n * sizeof(float));
    b->hy = malloc((size_t)n * sizeof(float));
    b->ref = malloc((size_t)n * sizeof(double));
    if (!b->A || !b->At || !b->hx || !b->hy || !b->ref)
        return err_set(e, "out of host memory for the gemv experiment");
    rng_fill_uniform(b->A, nn, x->seed++, -1.0f, 1.0f);
    rng_fill_uniform(b->hx, (size_t)n, x->seed++, -1.0f, 1.0f);
    for (int i = 0; i < n; i++) {
        double acc = 0.0;
        const float *row = b->A + (size_t)i * (size_t)n;
        for (int k = 0; k < n; k++)
            acc += (double)row[k] * (double)b->hx[k];
        b->ref[i] = acc;
    }
    experiments_transpose_host(b->A, b->At, (size_t)n);
    return experiments_upload(x, b->dA.ptr, b->A, mb, e) &&
           experiments_upload(x, b->dAt.ptr, b->At, mb, e) &&
           experiments_upload(x, b->dx.ptr, b->hx, (size_t)n * sizeof(float), e);
}

/* One gemv row, measured, checked and emitted (failed or not). */
static void gemv_row(xctx *x, gemv_bench *b, const gemv_variant *v, const char *sz, cl_err *e)
{
    run_result r;
    int n = b->n;
    size_t nn = (size_t)n * (size_t)n;
    experiments_row_start(x, &r, v->id, v->label, sz);
    gemv_job j = {.fn = v->fn, .A = v->colmajor ? b->dAt.ptr : b->dA.ptr, .x = b->dx.ptr,
                  .y = b->dy.ptr, .n = n};
    timing_result tr;
    if (!experiments_measure(x, v->id, gemv_once, &j, b->dy.ptr, b->hy, (size_t)n * sizeof(float),
                             nn * sizeof(float), &tr, e)) {
        experiments_row_failed(x, &r, e);
        return;
    }
    experiments_set_timing(&r, &tr);
    experiments_set_bandwidth(x, &r, (double)(nn + 2 * (size_t)n) * sizeof(float));
    r.tflops = 2.0 * (double)nn / (r.median_ms * 1e9);
    if (x->dev.peak_bw_measured_gbs <= 0.0)
        r.pct_peak_measured = -1.0;
    check_report c = check_compare(b->hy, (size_t)n, b->ref, NULL, (size_t)n, 1e-4);
    experiments_check_report_row(&r, &c);
    engine_row_note(&r, "%s", v->note);
    engine_row_emit(&x->rows, &r);
}

void experiments_gemv(xctx *ctx)
{
    cl_err e = {{0}};
    gemv_bench b = {.n = experiments_square_side()};
    char sz[48];
    snprintf(sz, sizeof sz, "%dx%d", b.n, b.n);
    cudacheck_reset();
    if (gemv_setup(ctx, &b, &e)) {
        for (size_t k = 0; k < NGEMV && !ctx->broken; k++)
            gemv_row(ctx, &b, &gemv_variants[k], sz, &e);
    } else {
        for (size_t k = 0; k < NGEMV; k++) {
            run_result r;
            experiments_row_start(ctx, &r, gemv_variants[k].id, gemv_variants[k].label, sz);
            experiments_row_failed(ctx, &r, &e);
        }
    }
    free(b.A);
    free(b.At);
    free(b.hx);
    free(b.hy);
    free(b.ref);
    buffer_free(&b.dA);
    buffer_free(&b.dAt);
    buffer_free(&b.dx);
    buffer_free(&b.dy);
}
