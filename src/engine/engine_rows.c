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

static void cpu_progress(void *ud, int rep, int of)
{
    engine_row_progress(ud, "cpu", rep, of);
}

/* dev NULL: no percent-of-peak figures (CPU rows). */
void engine_rows_derive(const engine_ctx *c, const problem_data *p, bool copy, const row_rates *x,
                        const device_info *dev, run_result *r)
{
    problem_rates in;
    memset(&in, 0, sizeof in);
    in.bytes = copy ? problem_copy_bytes(p) : problem_spec_bytes(c->ops->spec, &p->d);
    in.flops = copy ? -1.0 : problem_spec_flops(c->ops->spec, &p->d);
    in.bandwidth_bound = copy || c->ops->spec->bandwidth_bound;
    in.reads_only = !copy && c->ops->spec->reads_only;
    if (dev) {
        in.peak_bw_measured_gbs = dev->peak_bw_measured_gbs;
        in.peak_bw_read_gbs = dev->peak_bw_read_gbs;
        in.peak_bw_theory_gbs = dev->peak_bw_theory_gbs;
        in.peak_fp32_tflops = dev->peak_fp32_tflops;
    }
    in.cpu_ms = x->cpu_ms;
    in.cpu_mt_ms = x->cpu_mt_ms;
    in.lib_ms = x->lib_ms;
    problem_derive(&in, r);
    if ((c->ops->spec->managed && !copy) || (!copy && (p->precision || c->ops->spec->precision))) {
        /* bound by the host link, not by the device's memory; or computed
         * on the tensor cores, whose peak the FP32 figure is not */
        r->pct_peak_measured = -1.0;
        r->pct_peak_theory = -1.0;
    }
}

/* ---- CPU rows -------------------------------------------------------- */

void engine_rows_cpu(engine_ctx *c, problem_data *p, int threads, run_result *r)
{
    bool mt = threads != 1 || r->kind == RK_CPU_MT;
    cl_err e = {{0}};
    engine_cpu_timing t;
    double t0 = clock_now_ms();
    c->rows.variant = r->variant;
    nvtxRangePushA(r->variant);
    uint64_t seed = c->seed++;
    if (!engine_cpu_baseline(p, threads, seed, true, cpu_progress, &c->rows, &t, &e)) {
        engine_row_error(r, e.msg);
        goto done;
    }
    r->status = t.status;
    r->median_ms = t.median_ms;
    r->min_ms = t.min_ms;
    r->max_ms = t.max_ms;
    r->spread = t.spread;
    r->samples = t.samples;
    r->rel_err = t.rel_err;
    r->seed = t.seed;
    r->threads = threads;
    char when[32] = "";
    time_t at = (time_t)t.measured_at;
    struct tm tmv;
    if (localtime_r(&at, &tmv))
        strftime(when, sizeof when, "%Y-%m-%d %H:%M", &tmv);
    const char *model = cpu_model_name();
    snprintf(r->message, sizeof r->message, "%s, %s, %s%d thread%s; %s; measured %s%s",
             model[0] ? model : "unknown CPU", cpu_simd_path(), mt ? "multi-threaded, up to " : "",
             threads, threads == 1 ? "" : "s", t.check, when, t.cached ? ", cached" : "");
done:
    r->wall_ms = clock_now_ms() - t0;
    nvtxRangePop();
    c->rows.variant = NULL;
}
