/* experiments_row.c - the experiments' rows: each a kernel row with the
 * run's seed, a failed one that may end the run, and their figures
 * (bandwidth, timing).  Sent through engine/engine_row.h. */
#include "experiments/experiments.h"

#include <stdio.h>
#include <string.h>
#include <cuda_runtime_api.h>

#include "core/stats.h"
#include "experiments/experiments_internal.h"

void experiments_row_start(xctx *x, run_result *r, const char *variant, const char *label,
                           const char *size)
{
    x->rows.size = size;
    engine_row_start(&x->rows, r, variant, label, RK_KERNEL);
    r->seed = x->seed;
    x->rows.variant = r->variant;
    x->rows.size = r->size;
}

/* Emits r as an RS_ERROR row carrying e's message.  The first failure also
 * asks whether the CUDA context survived (engine_row_sticky_error); once it
 * has broken, later rows only carry the message. */
void experiments_row_failed(xctx *x, run_result *r, const cl_err *e)
{
    engine_row_error(r, e->msg);
    if (!x->broken) {
        cudaError_t code = cudaSuccess;
        cudaError_t sticky = engine_row_sticky_error(&code);
        r->code = (int)code;
        if (sticky != cudaSuccess) {
            engine_row_fault(&x->rows, r->variant, sticky, NULL);
            x->broken = true;
        }
    }
    engine_row_emit(&x->rows, r);
}

/* After a failed set-up: a failed row for each id "<prefix>_<values[k]>". */
void experiments_rows_failed(xctx *x, const char *prefix, const int *values, size_t n,
                             const char *size, const cl_err *e)
{
    for (size_t k = 0; k < n; k++) {
        char id[RUN_ID_MAX];
        run_result r;
        snprintf(id, sizeof id, "%s_%d", prefix, values[k]);
        experiments_row_start(x, &r, id, id, size);
        experiments_row_failed(x, &r, e);
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

void experiments_set_bandwidth(const xctx *x, run_result *r, double bytes)
{
    set_bandwidth(x, r, bytes, x->dev.peak_bw_measured_gbs);
}

void experiments_set_read_bandwidth(const xctx *x, run_result *r, double bytes)
{
    set_bandwidth(x, r, bytes,
                  x->dev.peak_bw_read_gbs > 0.0 ? x->dev.peak_bw_read_gbs
                                                : x->dev.peak_bw_measured_gbs);
}

static void set_stats(run_result *r, const stats_summary *s)
{
    r->median_ms = s->median;
    r->min_ms = s->min;
    r->max_ms = s->max;
    r->spread = s->spread;
    r->samples = (int)s->n;
}

void experiments_set_timing(run_result *r, const timing_result *tr)
{
    set_stats(r, &tr->s);
}

void experiments_set_summary(run_result *r, double *v, int n)
{
    stats_summary s = stats_summarise(v, (size_t)n);
    set_stats(r, &s);
}
