/* experiments_internal.h - what the pieces of the profiling lab's
 * experiments share: the run context, the rows they emit, the measuring
 * and checking helpers, and each experiment's entry point.
 * Private to src/experiments/experiments*.c. */
#ifndef CUDALAB_EXPERIMENTS_EXPERIMENTS_INTERNAL_H
#define CUDALAB_EXPERIMENTS_EXPERIMENTS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "core/devinfo.h"
#include "core/err.h"
#include "cpu/check.h"
#include "gpu/buffer.h"
#include "gpu/timing.h"
#include "engine/engine_row.h"
#include "experiments/experiments.h"

#define MIB ((size_t)1 << 20)
#define X_FLOOR (16 * MIB)

typedef struct xctx {
    const run_request *req;
    row_channel rows;       /* where the rows go; the row being measured, for progress */
    device_info dev;
    cudaStream_t s;
    gpu_buffer flush;
    size_t l2;
    uint64_t seed;
    double budget_s;
    bool broken;
} xctx;

/* An experiment's input and output of equal size, on the device and on
 * the host; want (when asked for) holds the expected output. */
typedef struct io_bufs {
    gpu_buffer din, dout;
    float *hin, *hout, *want;
} io_bufs;

/* y = a x by profiling_scale at a block size (experiments_scale_once). */
typedef struct scale_job {
    const float *x;
    float *y;
    size_t n;
    float a;
    int block;
} scale_job;

/* ---- experiments_row.c: the experiments' rows (engine/engine_row.h for the rest) ---- */

/* A fresh RS_ERROR kernel row of size with the run's seed; the row that
 * progress names from now on. */
void experiments_row_start(xctx *ctx, run_result *row, const char *variant, const char *label,
                           const char *size);
/* Emits row as an RS_ERROR row with err's message; may mark the context broken. */
void experiments_row_failed(xctx *ctx, run_result *row, const cl_err *err);
/* A failed row for each id "<prefix>_<values[k]>". */
void experiments_rows_failed(xctx *ctx, const char *prefix, const int *values, size_t count,
                             const char *size, const cl_err *err);
void experiments_set_bandwidth(const xctx *ctx, run_result *row, double bytes);
/* The same for a kernel that only reads: its percent of peak is of the
 * read-only stream (the copy when that is unknown). */
void experiments_set_read_bandwidth(const xctx *ctx, run_result *row, double bytes);
void experiments_set_timing(run_result *row, const timing_result *tr);
void experiments_set_summary(run_result *row, double *samples, int count);

/* ---- experiments_measure.c: memory, copies, timing ---- */

/* Times fn on ctx->s with the shared rules (gpu/timing.h). */
bool experiments_time_job(xctx *ctx, timing_fn fn, void *ud, size_t working_set, int min_samples,
                          int max_samples, timing_result *tr, cl_err *err);
/* The largest size <= want (halving, not below floor) whose count copies
 * fit in the device's free memory; 0 when even floor does not. */
size_t experiments_fit_device(size_t want, size_t floor_bytes, int count);
void experiments_too_little_memory(cl_err *err, size_t need);
/* out (side x side) = in transposed, on the host. */
void experiments_transpose_host(const float *in, float *out, size_t side);
bool experiments_sync(xctx *ctx, cl_err *err);
bool experiments_download(xctx *ctx, void *host, const void *dev, size_t bytes, cl_err *err);
bool experiments_upload(xctx *ctx, void *dev, const void *host, size_t bytes, cl_err *err);
/* Fills outputs with NaN (all bits set). */
bool experiments_poison(xctx *ctx, void *dev, size_t bytes, cl_err *err);
/* Poison, one checked run downloaded to host_out, then the timing. */
bool experiments_measure(xctx *ctx, const char *range, timing_fn fn, void *job, void *dev_out,
                         void *host_out, size_t out_bytes, size_t working_set, timing_result *tr,
                         cl_err *err);
/* bufs at bytes a buffer with a random input uploaded; the caller always
 * calls experiments_io_free. */
bool experiments_io_setup(xctx *ctx, io_bufs *bufs, size_t bytes, bool want, const char *what,
                          cl_err *err);
void experiments_io_free(io_bufs *bufs);
/* gemv's and transpose's square side: 8192 or 4096. */
int experiments_square_side(void);
/* A timing_fn running a scale_job. */
bool experiments_scale_once(void *ud, cudaStream_t stream, cl_err *err);

/* ---- experiments_check.c: checking outputs ---- */

void experiments_check_exact(run_result *row, const float *got, const float *want, size_t count);
void experiments_check_report_row(run_result *row, const check_report *check);
void experiments_check_fma(run_result *row, const float *in, const float *out, size_t count,
                           int iters, uint64_t seed);

/* ---- the experiments ---- */

void experiments_transfers(xctx *ctx);   /* experiments_transfers.c */
void experiments_overlap(xctx *ctx);
void experiments_stride(xctx *ctx);      /* experiments_access.c */
void experiments_gemv(xctx *ctx);
void experiments_blocksize(xctx *ctx);   /* experiments_shape.c */
void experiments_transpose(xctx *ctx);
void experiments_timing(xctx *ctx);      /* experiments_timing.c */
void experiments_roofline(xctx *ctx);
void experiments_divergence(xctx *ctx);  /* experiments_basics.c */
void experiments_hierarchy(xctx *ctx);
void experiments_fences(xctx *ctx);
void experiments_occupancy(xctx *ctx);   /* experiments_occupancy.c */

#endif
