/* pipe_measure.c - one GPU row of the pipeline: check, time, check again.
 *
 * A step row starts from the step's canonical inputs with its outputs
 * poisoned; a load or end-to-end row starts from the file, with the table
 * on the device poisoned too.  The first call is checked; then CUDA events
 * time repetitions (engine's timing rule; the L2 is flushed only for steps
 * whose data would fit in it: a load or a whole run moves gigabytes and
 * starts from host memory); then the outputs are poisoned again, without
 * restoring the inputs, and one more call is checked, so an
 * implementation that needs fresh outputs or changes its inputs is caught. */
#include <stdio.h>
#include <string.h>
#include <nvtx3/nvToolsExt.h>

#include "engine/pipe.h"
#include "core/strfmt.h"
#include "gpu/cudacheck.h"

static void timing_progress(void *ud, const char *phase, int rep, int of)
{
    engine_row_progress(ud, phase, rep, of);
}

/* The target's outputs poisoned, and with fresh set its inputs. */
static bool prepare(pipe_size *z, prep_step step, bool fresh, cl_err *e)
{
    cudaStream_t s = engine_g.stream;
    if (fresh && step != PREP_LOAD && step != PREP_NSTEPS &&
        !pipe_dev_inputs(&z->dev, &z->st, step, s, e))
        return false;
    if (!pipe_dev_poison(&z->dev, step, s, e))
        return false;
    CUDA_CHECK(e, cudaStreamSynchronize(s));
    return true;
}

static bool call(const pipe_target *t, cl_err *e)
{
    if (!t->once(t->ud, engine_g.stream, e))
        return false;
    CUDA_CHECK(e, cudaDeviceSynchronize());
    CUDA_CHECK(e, cudaGetLastError());
    return true;
}

/* The table on the device against the canonical one, column by column. */
static bool check_table(pipe_size *z, prep_report *out, cl_err *e)
{
    memset(out, 0, sizeof *out);
    size_t col = (size_t)z->st.stride * 4;
    const char *base = z->dev.raw.ptr;
    const char *want = z->st.raw_block;
    for (int c = 0; c < PREP_NUM + 4; c++) {
        CUDA_CHECK(e, cudaMemcpy(z->buf, base + (size_t)c * col, col, cudaMemcpyDeviceToHost));
        out->total += z->n;
        out->columns++;
        if (memcmp(z->buf, want + (size_t)c * col, (size_t)z->n * 4) != 0) {
            out->c.status = CHECK_WRONG;
            out->c.compared = z->n;
            out->c.differing = 1;
            static const char *const tail[4] = {"ts", "pay", "zone", "label"};
            snprintf(out->column, sizeof out->column, "%s",
                     c < PREP_NUM ? prep_num_name(c) : tail[c - PREP_NUM]);
            return true;
        }
    }
    out->c.status = CHECK_OK;
    return true;
}

static bool check(pipe_size *z, prep_step step, prep_report *out, cl_err *e)
{
    if (step == PREP_LOAD)
        return check_table(z, out, e);
    pipe_dev_reader rd = {&z->dev, engine_g.stream};
    prep_src src = pipe_dev_src(&rd);
    if (step == PREP_NSTEPS)
        return prep_check_all(&z->ref, &z->st, &src, z->buf, 0, out, e);
    return prep_check_step(&z->ref, &z->st, step, &src, z->buf, 0, out, e);
}

static void report(const prep_report *rep, prep_step step, run_result *r, bool after)
{
    problem_report(&rep->c, r);
    char msg[sizeof r->message];
    if (step == PREP_LOAD)
        snprintf(msg, sizeof msg, "%s",
                 rep->c.status == CHECK_OK
                     ? "ok: the table on the device is the data set, byte for byte"
                     : "wrong: a column of the table on the device differs from the data set");
    else
        prep_report_describe(rep, msg, sizeof msg);
    if (step == PREP_LOAD && rep->c.status != CHECK_OK)
        strfmt_append(msg, sizeof msg, strlen(msg), " (%s)", rep->column);
    snprintf(r->message, sizeof r->message, "%s%s", after ? "after timing: " : "", msg);
}

/* GB/s, percent of peak (steps on the device only) and speedups. */
static void derive(const pipe_size *z, prep_step step, run_result *r)
{
    bool whole = step == PREP_NSTEPS;
    double bytes = whole ? (double)prep_table_bytes(z->n) : prep_step_bytes(step, z->n, z->st.m);
    double ms = r->median_ms;
    if (!(ms > 0.0))
        return;
    r->gbps = bytes / (ms * 1e-3) / 1e9;
    if (!whole && step != PREP_LOAD) {
        if (engine_g.dev.peak_bw_measured_gbs > 0.0)
            r->pct_peak_measured = 100.0 * r->gbps / engine_g.dev.peak_bw_measured_gbs;
        if (engine_g.dev.peak_bw_theory_gbs > 0.0)
            r->pct_peak_theory = 100.0 * r->gbps / engine_g.dev.peak_bw_theory_gbs;
    }
    int k = whole ? PREP_NSTEPS : (int)step;
    if (z->cpu_ms[k] > 0.0)
        r->speedup_cpu = z->cpu_ms[k] / ms;
    if (z->cpu_mt_ms[k] > 0.0)
        r->speedup_cpu_mt = z->cpu_mt_ms[k] / ms;
}

bool pipe_measure(pipe_size *psize, const pipe_target *target, run_result *row)
{
    engine_ctx *c = psize->c;
    cl_err e = {{0}};
    bool ok = true;
    c->rows.variant = row->variant;
    cudacheck_reset();
    nvtxRangePushA(row->variant);
    row->seed = psize->seed;
    prep_report first, last;
    engine_row_progress(&c->rows, "check", 0, 1);
    if (!prepare(psize, target->step, true, &e) || !call(target, &e) ||
        !check(psize, target->step, &first, &e))
        goto gpu_error;
    engine_row_progress(&c->rows, "check", 1, 1);
    if (c->req->check_only) {
        report(&first, target->step, row, false);
        goto done;
    }

    bool device_only = target->step != PREP_LOAD && target->step != PREP_NSTEPS;
    size_t flush_bytes = 0;
    void *flush = device_only ? engine_device_flush(&flush_bytes) : NULL;
    timing_opts o = {
        .stream = engine_g.stream,
        .budget_s = c->req->budget_s > 0.0 ? c->req->budget_s : TIMING_DEFAULT_BUDGET_S,
        .working_set = device_only ? (size_t)prep_step_bytes(target->step, psize->n, psize->st.m)
                                   : prep_table_bytes(psize->n),
        .l2_bytes = (size_t)(engine_g.dev.l2_mib * MIB),
        .flush = flush,
        .flush_bytes = flush_bytes,
        .progress = timing_progress,
        .progress_ud = &c->rows,
    };
    timing_result tr;
    if (!timing_run(&o, target->once, target->ud, &tr, &e))
        goto gpu_error;
    CUDA_CHECK_GOTO(&e, cudaDeviceSynchronize(), gpu_error);
    row->median_ms = tr.s.median;
    row->min_ms = tr.s.min;
    row->max_ms = tr.s.max;
    row->spread = tr.s.spread;
    row->samples = (int)tr.s.n;

    engine_row_progress(&c->rows, "check", 1, 2);
    if (!prepare(psize, target->step, false, &e) || !call(target, &e) ||
        !check(psize, target->step, &last, &e))
        goto gpu_error;
    if (first.c.status != CHECK_OK || last.c.status == CHECK_OK)
        report(&first, target->step, row, false);
    else
        report(&last, target->step, row, true);
    if (device_only && !tr.flushed && o.working_set < 4 * o.l2_bytes) {
        size_t len = strlen(row->message);
        strfmt_append(row->message, sizeof row->message, len,
                      "; L2 not flushed between repetitions (no room for a flush buffer)");
    }
    derive(psize, target->step, row);
    goto done;

gpu_error:
    ok = engine_gpu_failed(c, row, &e, target->library);
done:
    nvtxRangePop();
    c->rows.variant = NULL;
    return ok;
}
