#include "experiments/experiments.h"

#include <stdio.h>
#include <cuda_runtime_api.h>

#include "gpu/buffer.h"
#include "gpu/cudacheck.h"
#include "profiling.h"
#include "experiments/experiments_internal.h"

/* ---- block size ------------------------------------------------------------------- */

void experiments_blocksize(xctx *ctx)
{
    static const int blocks[] = {32, 64, 128, 256, 512, 1024};
    const size_t nb = sizeof blocks / sizeof blocks[0];
    cl_err e = {{0}};
    io_bufs io;
    run_result r;
    char sz[32];
    size_t bytes = experiments_fit_device(256 * MIB, X_FLOOR, 2);
    size_t n = bytes / sizeof(float);
    buffer_format_bytes(bytes, sz, sizeof sz);
    int max_threads = 0;
    cudacheck_reset();
    if (!experiments_io_setup(ctx, &io, bytes, true, "block-size", &e))
        goto fail_all;
    CUDA_CHECK_GOTO(&e, cudaDeviceGetAttribute(&max_threads, cudaDevAttrMaxThreadsPerMultiProcessor,
                                               ctx->dev.ordinal),
                    fail_all);
    for (size_t i = 0; i < n; i++)
        io.want[i] = 2.0f * io.hin[i];

    for (size_t k = 0; k < nb; k++) {
        int b = blocks[k];
        char id[RUN_ID_MAX], lab[RUN_ID_MAX];
        snprintf(id, sizeof id, "block_%d", b);
        snprintf(lab, sizeof lab, "%d threads per block", b);
        experiments_row_start(ctx, &r, id, lab, sz);
        scale_job j = {.x = io.din.ptr, .y = io.dout.ptr, .n = n, .a = 2.0f, .block = b};
        int per_sm = 0;
        timing_result tr;
        cudaError_t ost = profiling_scale_occupancy(b, &per_sm);
        if (ost != cudaSuccess)
            cudacheck_fail(&e, ost, "cudaOccupancyMaxActiveBlocksPerMultiprocessor", __FILE__,
                           __LINE__);
        if (ost != cudaSuccess ||
            !experiments_measure(ctx, lab, experiments_scale_once, &j, io.dout.ptr, io.hout, bytes,
                                 2 * bytes, &tr, &e)) {
            experiments_row_failed(ctx, &r, &e);
            if (ctx->broken)
                goto done;
            continue;
        }
        experiments_set_timing(&r, &tr);
        experiments_set_bandwidth(ctx, &r, (double)(2 * bytes));
        experiments_check_exact(&r, io.hout, io.want, n);
        int threads = per_sm * b;
        engine_row_note(
            &r,
            "y = 2x; the runtime fits %d block%s of %d threads on an SM: %d of %d threads, "
            "%.0f%% occupancy",
            per_sm, per_sm == 1 ? "" : "s", b, threads, max_threads,
            max_threads > 0 ? 100.0 * threads / max_threads : 0.0);
        engine_row_emit(&ctx->rows, &r);
    }
    goto done;
fail_all:
    experiments_rows_failed(ctx, "block", blocks, nb, sz, &e);
done:
    experiments_io_free(&io);
}

/* ---- transpose ---------------------------------------------------------------------- */

typedef cudaError_t (*transpose_fn)(const float *, float *, int, int, cudaStream_t);

typedef struct transpose_job {
    transpose_fn fn;
    const float *in;
    float *out;
    int n;
} transpose_job;

static bool transpose_once(void *ud, cudaStream_t s, cl_err *e)
{
    const transpose_job *j = ud;
    CUDA_CHECK_LAUNCH(e, j->fn(j->in, j->out, j->n, j->n, s));
    return true;
}

void experiments_transpose(xctx *ctx)
{
    struct {
        const char *id, *label, *note;
        transpose_fn fn;
        bool copy;         /* out = in, not transposed */
    } v[] = {
        {.id = "transpose_copy", .label = "copy (the bound)",
         .note = "the same bytes copied by the same blocks, four elements a thread, without "
                 "transposing: no transpose of this shape moves data faster",
         .fn = profiling_copy_tile, .copy = true},
        {.id = "transpose_naive", .label = "naive",
         .note = "reads rows (coalesced) and writes columns straight to global memory: each "
                 "warp's stores land 32 rows apart",
         .fn = profiling_transpose_naive, .copy = false},
        {.id = "transpose_tiled", .label = "shared-memory tile",
         .note = "stages a 32x32 tile in shared memory so both global reads and writes are "
                 "coalesced; reading a tile column hits one bank 32 times",
         .fn = profiling_transpose_tiled, .copy = false},
        {.id = "transpose_padded", .label = "padded tile",
         .note = "the same tile with one extra column: a column's 32 floats fall in 32 "
                 "different banks, no conflicts",
         .fn = profiling_transpose_padded, .copy = false},
    };
    const size_t nv = sizeof v / sizeof v[0];
    cl_err e = {{0}};
    io_bufs io;
    run_result r;
    int n = experiments_square_side();
    size_t nn = (size_t)n * (size_t)n, bytes = nn * sizeof(float);
    char sz[48];
    snprintf(sz, sizeof sz, "%dx%d", n, n);
    cudacheck_reset();
    if (!experiments_io_setup(ctx, &io, bytes, true, "transpose", &e))
        goto fail_all;
    experiments_transpose_host(io.hin, io.want, (size_t)n);

    for (size_t k = 0; k < nv; k++) {
        experiments_row_start(ctx, &r, v[k].id, v[k].label, sz);
        transpose_job j = {.fn = v[k].fn, .in = io.din.ptr, .out = io.dout.ptr, .n = n};
        timing_result tr;
        if (!experiments_measure(ctx, v[k].id, transpose_once, &j, io.dout.ptr, io.hout, bytes,
                                 2 * bytes, &tr, &e)) {
            experiments_row_failed(ctx, &r, &e);
            if (ctx->broken)
                goto done;
            continue;
        }
        experiments_check_exact(&r, io.hout, v[k].copy ? io.hin : io.want, nn);
        experiments_set_timing(&r, &tr);
        experiments_set_bandwidth(ctx, &r, (double)(2 * bytes));
        engine_row_note(&r, "%s", v[k].note);
        engine_row_emit(&ctx->rows, &r);
    }
    goto done;
fail_all:
    for (size_t k = 0; k < nv; k++) {
        experiments_row_start(ctx, &r, v[k].id, v[k].label, sz);
        experiments_row_failed(ctx, &r, &e);
    }
done:
    experiments_io_free(&io);
}
