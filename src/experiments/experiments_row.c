#include "experiments/experiments.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <cuda_runtime_api.h>

#include "core/stats.h"
#include "gpu/cudacheck.h"
#include "experiments/experiments_internal.h"

void experiments_progress(const xctx *x, const char *phase, int rep, int of)
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

void experiments_row_start(xctx *x, run_result *r, const char *variant, const char *label,
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

void experiments_row_emit(xctx *x, run_result *r)
{
    r->run = x->req->run;
    if (x->sink && x->sink->result)
        x->sink->result(x->sink->ud, r);
    x->variant = NULL;
}

void experiments_row_note(run_result *r, const char *fmt, ...)
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

void experiments_row_error(run_result *r, const char *msg)
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
    experiments_row_error(r, e->msg);
    r->code = (int)code;
    if (sticky == cudaSuccess)
        return true;
    memset(x->fault, 0, sizeof *x->fault);
    x->fault->run = x->req->run;
    snprintf(x->fault->variant, sizeof x->fault->variant, "%s", r->variant);
    snprintf(x->fault->cause, sizeof x->fault->cause, "cuda");
    snprintf(x->fault->message, sizeof x->fault->message, "%s", cudacheck_plain(sticky));
    x->fault->code = (int)sticky;
    x->broken = true;
    return false;
}

/* Emits r as an RS_ERROR row carrying e's message.  The first failure also
 * asks whether the CUDA context survived (x_failed); once it has broken,
 * later rows only carry the message. */
void experiments_row_failed(xctx *x, run_result *r, const cl_err *e)
{
    if (x->broken)
        experiments_row_error(r, e->msg);
    else
        x_failed(x, r, e);
    experiments_row_emit(x, r);
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
