/* experiments_row.c - the experiments' rows: each a kernel row with the
 * run's seed, a failed one that may end the run, and their figures
 * (bandwidth, timing).  Sent through engine/engine_row.h. */
#include "experiments/experiments.h"

#include <stdio.h>
#include <string.h>
#include <cuda_runtime_api.h>

#include "core/stats.h"
#include "experiments/experiments_internal.h"

void experiments_row_start(xctx *ctx, run_result *row, const char *variant, const char *label,
                           const char *size)
{
    ctx->rows.size = size;
    engine_row_start(&ctx->rows, row, variant, label, RK_KERNEL);
    row->seed = ctx->seed;
    ctx->rows.variant = row->variant;
    ctx->rows.size = row->size;
}

/* Emits row as an RS_ERROR row carrying err's message.  The first failure also
 * asks whether the CUDA context survived (engine_row_sticky_error); once it
 * has broken, later rows only carry the message. */
void experiments_row_failed(xctx *ctx, run_result *row, const cl_err *err)
{
    engine_row_error(row, err->msg);
    if (!ctx->broken) {
        cudaError_t code = cudaSuccess;
        cudaError_t sticky = engine_row_sticky_error(&code);
        row->code = (int)code;
        if (sticky != cudaSuccess) {
            engine_row_fault(&ctx->rows, row->variant, sticky, NULL);
            ctx->broken = true;
        }
    }
    engine_row_emit(&ctx->rows, row);
}

/* After a failed set-up: a failed row for each id "<prefix>_<values[k]>". */
void experiments_rows_failed(xctx *ctx, const char *prefix, const int *values, size_t count,
                             const char *size, const cl_err *err)
{
    for (size_t k = 0; k < count; k++) {
        char id[RUN_ID_MAX];
        run_result r;
        snprintf(id, sizeof id, "%s_%d", prefix, values[k]);
        experiments_row_start(ctx, &r, id, id, size);
        experiments_row_failed(ctx, &r, err);
    }
}

static void set_bandwidth(const xctx *x, run_result *r, double bytes, double peak)
{
    if (r->median_ms <= 0.0)
        return;
    r->gbps = bytes / (r->median_ms * 1e6);
    if (peak > 0.0)
        r->pct_peak_measured = 100.0 * r->gbps / peak;
    if (x->dev.peak_bw_theory_gbs > 0.0)
        r->pct_peak_theory = 100.0 * r->gbps / x->dev.peak_bw_theory_gbs;
}

void experiments_set_bandwidth(const xctx *ctx, run_result *row, double bytes)
{
    set_bandwidth(ctx, row, bytes, ctx->dev.peak_bw_measured_gbs);
}

void experiments_set_read_bandwidth(const xctx *ctx, run_result *row, double bytes)
{
    set_bandwidth(ctx, row, bytes,
                  ctx->dev.peak_bw_read_gbs > 0.0 ? ctx->dev.peak_bw_read_gbs
                                                  : ctx->dev.peak_bw_measured_gbs);
}

static void set_stats(run_result *r, const stats_summary *s)
{
    r->median_ms = s->median;
    r->min_ms = s->min;
    r->max_ms = s->max;
    r->spread = s->spread;
    r->samples = (int)s->n;
}

void experiments_set_timing(run_result *row, const timing_result *tr)
{
    set_stats(row, &tr->s);
}

void experiments_set_summary(run_result *row, double *samples, int count)
{
    stats_summary s = stats_summarise(samples, (size_t)count);
    set_stats(row, &s);
}
