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

/* Times fn on x->s with the shared rules (gpu/timing.h). */
bool experiments_time_job(xctx *x, timing_fn fn, void *ud, size_t working_set, int min_samples,
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
        .progress_ud = &x->rows,
    };
    return timing_run(&o, fn, ud, tr, e);
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

void experiments_too_little_memory(cl_err *e, size_t need)
{
    char b[32];
    buffer_format_bytes(need, b, sizeof b);
    if (buffer_check_free(need + 64 * MIB, e))
        err_set(e, "the device has too little free memory for this experiment (it needs %s)", b);
}

/* out (n x n) = in transposed, in cache-sized blocks. */
void experiments_transpose_host(const float *in, float *out, size_t n)
{
    const size_t bs = 64;
    for (size_t i0 = 0; i0 < n; i0 += bs)
        for (size_t j0 = 0; j0 < n; j0 += bs)
            for (size_t i = i0; i < i0 + bs && i < n; i++)
                for (size_t j = j0; j < j0 + bs && j < n; j++)
                    out[j * n + i] = in[i * n + j];
}

bool experiments_sync(xctx *x, cl_err *e)
{
    CUDA_CHECK(e, cudaStreamSynchronize(x->s));
    CUDA_CHECK(e, cudaGetLastError());
    return true;
}

bool experiments_download(xctx *x, void *host, const void *dev, size_t bytes, cl_err *e)
{
    CUDA_CHECK(e, cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, x->s));
    return experiments_sync(x, e);
}

bool experiments_upload(xctx *x, void *dev, const void *host, size_t bytes, cl_err *e)
{
    CUDA_CHECK(e, cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, x->s));
    return experiments_sync(x, e);
}

/* Fills outputs with NaN (all bits set) so elements a kernel skips show. */
bool experiments_poison(xctx *x, void *dev, size_t bytes, cl_err *e)
{
    CUDA_CHECK(e, cudaMemsetAsync(dev, 0xff, bytes, x->s));
    return true;
}

/* One variant's measurement inside the NVTX range named range: poisons
 * dev_out, runs fn once and downloads out_bytes of it to host_out for the
 * check, then times fn (working_set: the bytes one run touches). */
bool experiments_measure(xctx *x, const char *range, timing_fn fn, void *job, void *dev_out,
                         void *host_out, size_t out_bytes, size_t working_set, timing_result *tr,
                         cl_err *e)
{
    nvtx_push(range);
    bool ok = experiments_poison(x, dev_out, out_bytes, e) && fn(job, x->s, e) &&
              experiments_download(x, host_out, dev_out, out_bytes, e) &&
              experiments_time_job(x, fn, job, working_set, 5, 0, tr, e);
    nvtx_pop();
    return ok;
}

/* Allocates b at bytes a buffer (0: nothing fitted, see
 * experiments_fit_device), fills hin with fresh random floats and uploads
 * it to din.  On failure the caller still calls experiments_io_free. */
bool experiments_io_setup(xctx *x, io_bufs *b, size_t bytes, bool want, const char *what, cl_err *e)
{
    memset(b, 0, sizeof *b);
    if (bytes == 0) {
        experiments_too_little_memory(e, 2 * X_FLOOR);
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
    return experiments_upload(x, b->din.ptr, b->hin, bytes, e);
}

void experiments_io_free(io_bufs *b)
{
    free(b->hin);
    free(b->hout);
    free(b->want);
    buffer_free(&b->din);
    buffer_free(&b->dout);
}

/* The side of gemv's and transpose's square matrices: 8192 when two of
 * them fit in the device's free memory, else 4096. */
int experiments_square_side(void)
{
    const size_t big = (size_t)8192 * 8192 * sizeof(float);
    return experiments_fit_device(big, big, 2) ? 8192 : 4096;
}

bool experiments_scale_once(void *ud, cudaStream_t s, cl_err *e)
{
    const scale_job *j = ud;
    CUDA_CHECK_LAUNCH(e, profiling_scale(j->x, j->y, j->n, j->a, j->block, s));
    return true;
}
