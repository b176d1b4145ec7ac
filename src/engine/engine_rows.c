#include "engine/engine.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <nvtx3/nvToolsExt.h>

#include "core/clock.h"
#include "cpu/cpuinfo.h"
#include "engine/engine_cpu.h"
#include "engine/engine_internal.h"
#include "engine/problem.h"
#include "engine/roofline.h"

static void cpu_progress(void *ud, int rep, int of)
{
    engine_row_progress(ud, "cpu", rep, of);
}

/* dev NULL: no percent-of-peak figures (CPU rows). */
void engine_rows_derive(const engine_ctx *ctx, const problem_data *data, bool copy,
                        const row_rates *rates, const device_info *dev, run_result *row)
{
    problem_rates in;
    memset(&in, 0, sizeof in);
    in.bytes = copy ? problem_copy_bytes(data) : problem_spec_bytes(ctx->ops->spec, &data->d);
    in.flops = copy ? -1.0 : problem_spec_flops(ctx->ops->spec, &data->d);
    in.bandwidth_bound = copy || ctx->ops->spec->bandwidth_bound;
    in.reads_only = !copy && ctx->ops->spec->reads_only;
    if (dev) {
        in.peak_bw_measured_gbs = dev->peak_bw_measured_gbs;
        in.peak_bw_read_gbs = dev->peak_bw_read_gbs;
        in.peak_bw_theory_gbs = dev->peak_bw_theory_gbs;
        in.peak_fp32_tflops = dev->peak_fp32_tflops;
    }
    in.cpu_ms = rates->cpu_ms;
    in.cpu_mt_ms = rates->cpu_mt_ms;
    in.lib_ms = rates->lib_ms;
    problem_derive(&in, row);
    if ((ctx->ops->spec->managed && !copy) ||
        (!copy && (data->precision || ctx->ops->spec->precision))) {
        /* bound by the host link, not by the device's memory; or computed
         * on the tensor cores, whose peak the FP32 figure is not */
        row->pct_peak_measured = -1.0;
        row->pct_peak_theory = -1.0;
    }
}

void engine_rows_floor(const engine_ctx *ctx, const problem_data *data, const device_info *dev,
                       bool cold, run_result *row)
{
    if (row->status != RS_CORRECT || !dev)
        return;
    roofline_in in = {
        .median_ms = row->median_ms,
        .bytes = problem_spec_bytes(ctx->ops->spec, &data->d),
        .flops = problem_spec_flops(ctx->ops->spec, &data->d),
        .bw_theory_gbs = dev->peak_bw_theory_gbs,
        .bw_copy_gbs = dev->peak_bw_measured_gbs,
        .bw_read_gbs = dev->peak_bw_read_gbs,
        .fp32_tflops = dev->peak_fp32_tflops,
        .cc_major = dev->cc_major,
        .l2_bytes = dev->l2_mib * MIB,
        .cold = cold,
    };
    /* bound by the host link: its bytes are not the device memory's */
    if (ctx->ops->spec->managed)
        in.bytes = 0.0;
    char why[sizeof row->message];
    if (!roofline_refuse(&in, why, sizeof why))
        return;
    row->status = RS_WRONG;
    row->nmismatch = 0;
    snprintf(row->message, sizeof row->message, "%s", why);
}

/* ---- CPU rows -------------------------------------------------------- */

void engine_rows_cpu(engine_ctx *ctx, problem_data *data, int threads, run_result *row)
{
    bool mt = threads != 1 || row->kind == RK_CPU_MT;
    cl_err e = {{0}};
    engine_cpu_timing t;
    double t0 = clock_now_ms();
    ctx->rows.variant = row->variant;
    nvtxRangePushA(row->variant);
    uint64_t seed = ctx->seed++;
    if (!engine_cpu_baseline(data, threads, seed, !ctx->req->fresh_cpu, cpu_progress, &ctx->rows,
                             &t, &e)) {
        engine_row_error(row, e.msg);
        goto done;
    }
    row->status = t.status;
    row->median_ms = t.median_ms;
    row->min_ms = t.min_ms;
    row->max_ms = t.max_ms;
    row->spread = t.spread;
    row->samples = t.samples;
    row->rel_err = t.rel_err;
    row->seed = t.seed;
    row->threads = threads;
    row->cached_at = t.cached ? t.measured_at : 0;
    char when[32] = "";
    time_t at = (time_t)t.measured_at;
    struct tm tmv;
    if (localtime_r(&at, &tmv))
        strftime(when, sizeof when, "%Y-%m-%d %H:%M", &tmv);
    const char *model = cpu_model_name();
    snprintf(row->message, sizeof row->message, "%s, %s, %s%d thread%s; %s; measured %s%s",
             model[0] ? model : "unknown CPU", cpu_simd_path(), mt ? "multi-threaded, up to " : "",
             threads, threads == 1 ? "" : "s", t.check, when, t.cached ? ", cached" : "");
done:
    row->wall_ms = clock_now_ms() - t0;
    nvtxRangePop();
    ctx->rows.variant = NULL;
}
