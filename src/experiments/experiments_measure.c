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

#define X_MAX_SAMPLES 200

static void timing_progress_cb(void *ud, const char *phase, int rep, int of)
{
    engine_row_progress(ud, phase, rep, of);
}

/* Times fn on ctx->s with the shared rules (gpu/timing.h). */
bool experiments_time_job(xctx *ctx, timing_fn fn, void *ud, size_t working_set, int min_samples,
                          int max_samples, timing_result *tr, cl_err *err)
{
    timing_opts o = {
        .stream = ctx->s, .budget_s = ctx->budget_s,
        .working_set = working_set,
        .l2_bytes = ctx->l2, .flush = ctx->flush.ptr, .flush_bytes = ctx->flush.bytes,
        .min_samples = min_samples,
        .max_samples = max_samples > 0 ? max_samples : X_MAX_SAMPLES,
        .progress = timing_progress_cb,
        .progress_ud = &ctx->rows,
    };
    return timing_run(&o, fn, ud, tr, err);
}

/* The largest size <= want (halving, not below floor) whose count copies
 * fit in the device's free memory; 0 when even floor does not. */
size_t experiments_fit_device(size_t want, size_t floor_bytes, int count)
{
    for (size_t b = want; b >= floor_bytes && b > 0; b /= 2)
        if (buffer_check_free(b * (size_t)count + 64 * MIB, NULL))
            return b;
    cudaGetLastError();
    return 0;
}

void experiments_too_little_memory(cl_err *err, size_t need)
{
    char b[32];
    buffer_format_bytes(need, b, sizeof b);
    if (buffer_check_free(need + 64 * MIB, err))
        err_set(err, "the device has too little free memory for this experiment (it needs %s)", b);
}

/* out (side x side) = in transposed, in cache-sized blocks. */
void experiments_transpose_host(const float *in, float *out, size_t side)
{
    const size_t bs = 64;
    for (size_t i0 = 0; i0 < side; i0 += bs)
        for (size_t j0 = 0; j0 < side; j0 += bs)
            for (size_t i = i0; i < i0 + bs && i < side; i++)
                for (size_t j = j0; j < j0 + bs && j < side; j++)
                    out[j * side + i] = in[i * side + j];
}

bool experiments_sync(xctx *ctx, cl_err *err)
{
    CUDA_CHECK(err, cudaStreamSynchronize(ctx->s));
    CUDA_CHECK(err, cudaGetLastError());
    return true;
}

bool experiments_download(xctx *ctx, void *host, const void *dev, size_t bytes, cl_err *err)
{
    CUDA_CHECK(err, cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, ctx->s));
    return experiments_sync(ctx, err);
}

bool experiments_upload(xctx *ctx, void *dev, const void *host, size_t bytes, cl_err *err)
{
    CUDA_CHECK(err, cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, ctx->s));
    return experiments_sync(ctx, err);
}

/* Fills outputs with NaN (all bits set) so elements a kernel skips show. */
bool experiments_poison(xctx *ctx, void *dev, size_t bytes, cl_err *err)
{
    CUDA_CHECK(err, cudaMemsetAsync(dev, 0xff, bytes, ctx->s));
    return true;
}

/* One variant's measurement inside the NVTX range named range: poisons
 * dev_out, runs fn once and downloads out_bytes of it to host_out for the
 * check, then times fn (working_set: the bytes one run touches). */
bool experiments_measure(xctx *ctx, const char *range, timing_fn fn, void *job, void *dev_out,
                         void *host_out, size_t out_bytes, size_t working_set, timing_result *tr,
                         cl_err *err)
{
    nvtx_push(range);
    bool ok = experiments_poison(ctx, dev_out, out_bytes, err) && fn(job, ctx->s, err) &&
              experiments_download(ctx, host_out, dev_out, out_bytes, err) &&
              experiments_time_job(ctx, fn, job, working_set, 5, 0, tr, err);
    nvtx_pop();
    return ok;
}

/* Allocates bufs at bytes a buffer (0: nothing fitted, see
 * experiments_fit_device), fills hin with fresh random floats and uploads
 * it to din.  On failure the caller still calls experiments_io_free. */
bool experiments_io_setup(xctx *ctx, io_bufs *bufs, size_t bytes, bool want, const char *what,
                          cl_err *err)
{
    memset(bufs, 0, sizeof *bufs);
    if (bytes == 0) {
        experiments_too_little_memory(err, 2 * X_FLOOR);
        return false;
    }
    if (!buffer_alloc(&bufs->din, bytes, err) || !buffer_alloc(&bufs->dout, bytes, err))
        return false;
    bufs->hin = malloc(bytes);
    bufs->hout = malloc(bytes);
    bufs->want = want ? malloc(bytes) : NULL;
    if (!bufs->hin || !bufs->hout || (want && !bufs->want))
        return err_set(err, "out of host memory for the %s experiment", what);
    rng_fill_uniform(bufs->hin, bytes / sizeof(float), ctx->seed++, -1.0f, 1.0f);
    return experiments_upload(ctx, bufs->din.ptr, bufs->hin, bytes, err);
}

void experiments_io_free(io_bufs *bufs)
{
    free(bufs->hin);
    free(bufs->hout);
    free(bufs->want);
    buffer_free(&bufs->din);
    buffer_free(&bufs->dout);
}

/* The side of gemv's and transpose's square matrices: 8192 when two of
 * them fit in the device's free memory, else 4096. */
int experiments_square_side(void)
{
    const size_t big = (size_t)8192 * 8192 * sizeof(float);
    return experiments_fit_device(big, big, 2) ? 8192 : 4096;
}

bool experiments_scale_once(void *ud, cudaStream_t stream, cl_err *err)
{
    const scale_job *j = ud;
    CUDA_CHECK_LAUNCH(err, profiling_scale(j->x, j->y, j->n, j->a, j->block, stream));
    return true;
}
