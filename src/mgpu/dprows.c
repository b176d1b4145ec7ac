/* dprows.c - the data-parallel step's rows (mg_dp_rows): GPU 0 alone,
 * then every GPU with the gradients all-reduced after the backward pass
 * and during it.
 *
 * Each row first runs the checked shape (dp_shape_checked) with poisoned
 * gradients and compares what the step left in them, after the
 * all-reduce, with the gradient of the whole step (every rank's batch)
 * computed on the CPU in double precision (cpu/mlp.h).  Then the timed
 * shape: one step with poisoned gradients (every one written, and the
 * overlapped step's equal to the serial one's), warm-up, and samples of
 * steps between CUDA events on the compute stream, which waits for the
 * second stream at the end of every step.  Every rank of a row runs the
 * same steps, so the all-reduces pair up whatever a rank's check found. */
#include "mgpu/dpnet.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/strfmt.h"
#include "core/units.h"
#include "gpu/cudacheck.h"
#include "kernels.h"

static const char *const ids[MG_DP_ROWS] = {"dp_1gpu", "dp_serial", "dp_overlap"};
_Static_assert(MG_DP_NMODES == MG_DP_ROWS, "a row a mode");

const char *mg_dp_id(int k)
{
    return k >= 0 && k < MG_DP_ROWS ? ids[k] : "";
}

/* Waits for the step; with all-reduces, also asks the communicator. */
static bool finish(mg_rank *r, mg_dp_mode mode, cl_err *err)
{
    CUDA_CHECK(err, cudaStreamSynchronize(r->stream));
    return mode == MG_DP_ONE || mg_nccl_healthy(r->nccl, err);
}

/* Poisons the gradients, runs one step of s, and brings its gradients to
 * dp->host. */
static bool poisoned_step(mg_rank *r, const dp_shape *s, mg_dp_mode mode, int nranks, cl_err *err)
{
    mg_dp *dp = r->dp;
    const size_t np = mlp_params(&s->net);
    CUDA_CHECK(err, kernels_fill_u32((uint32_t *)dp->g, CHECK_POISON_BITS, np, r->stream));
    if (!mg_dp_step(r, s, mode, nranks, err) || !finish(r, mode, err))
        return false;
    CUDA_CHECK(err, cudaMemcpy(dp->host, dp->g, np * sizeof(float), cudaMemcpyDeviceToHost));
    return true;
}

/* The checked shape against the CPU's gradient of every rank's batch. */
static bool check_small(mg_rank *r, mg_dp_mode mode, int nranks, run_result *row, cl_err *err)
{
    const dp_shape c = dp_shape_checked();
    const size_t np = mlp_params(&c.net);
    uint64_t seed = 0;
    float *wf = malloc(np * sizeof *wf);
    double *w = malloc(np * sizeof *w), *ref = malloc(np * sizeof *ref);
    bool ok = wf && w && ref && mlp_check_seed(&c.net, row->seed, nranks, DP_CHECK_MARGIN,
                                               DP_CHECK_TRIES, &seed);
    if (!ok)
        err_set(err, "out of memory for the step's CPU reference");
    ok = ok && mg_dp_load(r, &c, seed, r->rank, err) && poisoned_step(r, &c, mode, nranks, err);
    mlp_ref info;
    if (ok) {
        mlp_fill_weights(wf, &c.net, seed);
        for (size_t i = 0; i < np; i++)
            w[i] = wf[i];
        if (!(ok = mlp_reference(&c.net, w, seed, nranks, ref, &info)))
            err_set(err, "out of memory for the step's CPU reference");
    }
    if (ok) {
        check_report cr = check_compare(r->dp->host, np, ref, NULL, np, DP_TOL);
        mg_judge(row, &cr);
        if (row->status != RS_CORRECT) {
            char size[RUN_SIZE_MAX], msg[sizeof row->message];
            snprintf(msg, sizeof msg, "at %s, against the CPU: %s", dp_size_label(&c, size, sizeof size),
                     row->message);
            strfmt_copy(row->message, sizeof row->message, msg);
        }
    }
    free(wf);
    free(w);
    free(ref);
    return ok;
}

/* Every gradient of the timed step written and finite; the overlapped
 * step's also equal to the serial one's when that ran (*same: how). */
static void check_timed(mg_rank *r, mg_dp_mode mode, size_t np, run_result *row, char *same,
                        size_t n)
{
    mg_dp *dp = r->dp;
    const float *g = dp->host, *s = mode == MG_DP_OVERLAP ? dp->serial_g : NULL;
    size_t unwritten = 0, nonfinite = 0, differ = 0, wrong = 0, first = 0;
    double sq = 0.0;
    for (size_t i = 0; s && i < np; i++)
        sq += (double)s[i] * (double)s[i];
    const double rms = sqrt(sq / (double)np);
    for (size_t i = 0; i < np; i++) {
        if (check_is_poison(g[i]))
            unwritten++;
        else if (!isfinite(g[i]))
            nonfinite++;
        else if (s && memcmp(&g[i], &s[i], sizeof g[i]) != 0) {
            differ++;
            if (fabs((double)g[i] - (double)s[i]) > DP_TOL * fmax(fabs((double)s[i]), rms)) {
                if (!wrong)
                    first = i;
                wrong++;
            }
        }
    }
    const dp_shape t = dp_shape_timed();
    char size[RUN_SIZE_MAX];
    dp_size_label(&t, size, sizeof size);
    same[0] = '\0';
    if (s && !unwritten && !nonfinite && !wrong && differ)
        snprintf(same, n, "gradients within %g of dp_serial's (%zu of %zu floats differ)", DP_TOL,
                 differ, np);
    else if (s && !unwritten && !nonfinite && !wrong)
        snprintf(same, n, "gradients bitwise equal to dp_serial's");
    if (row->status != RS_CORRECT)
        return;
    if (unwritten || nonfinite) {
        row->status = unwritten ? RS_UNWRITTEN : RS_NAN;
        snprintf(row->message, sizeof row->message, "at %s: %zu of %zu gradients %s", size,
                 unwritten ? unwritten : nonfinite, np,
                 unwritten ? "never written (still poisoned)" : "not finite");
    } else if (wrong) {
        row->status = RS_WRONG;
        snprintf(row->message, sizeof row->message,
                 "at %s: %zu of %zu gradients differ from dp_serial's beyond %g; first [%zu]: "
                 "%.9g, serial %.9g", size, wrong, np, DP_TOL, first, (double)g[first],
                 (double)s[first]);
    }
}

/* Warm-up, then DP_SAMPLES samples of DP_ITERS steps; the row gets the
 * median time of one step. */
static bool time_steps(mg_rank *r, const dp_shape *t, mg_dp_mode mode, int nranks,
                       run_result *row, cl_err *err)
{
    if (nranks > 1 && !mg_link_barrier(r, err))
        return false;
    mg_link_progress(r, row->variant, row->size, "warmup", 0, 1);
    for (int i = 0; i < DP_WARMUP; i++)
        if (!mg_dp_step(r, t, mode, nranks, err))
            return false;
    if (!finish(r, mode, err))
        return false;
    mg_link_progress(r, row->variant, row->size, "timing", 0, DP_SAMPLES);
    _Static_assert(DP_SAMPLES <= MG_MAX_SAMPLES, "more samples than events");
    for (int s = 0; s < DP_SAMPLES; s++) {
        CUDA_CHECK(err, cudaEventRecord(r->ev[2 * s], r->stream));
        for (int i = 0; i < DP_ITERS; i++)
            if (!mg_dp_step(r, t, mode, nranks, err))
                return false;
        CUDA_CHECK(err, cudaEventRecord(r->ev[2 * s + 1], r->stream));
    }
    if (!finish(r, mode, err) || !mg_row_times(r, DP_SAMPLES, DP_ITERS, row, err))
        return false;
    row->tflops = dp_step_flops(t) / (row->median_ms * 1e9);
    return true;
}

/* The group's time of a step: the slowest rank's (every rank asks). */
static bool group_ms(mg_rank *r, double mine, double *out, cl_err *err)
{
    rank_blob all[COLL_MAX_RANKS];
    if (!mg_link_exchange(r, &mine, sizeof mine, all, err))
        return false;
    *out = mine;
    for (int k = 0; k < r->nranks; k++) {
        double v = 0.0;
        if (all[k].len != sizeof v)
            return err_set(err, "rank %d sent no step time", k);
        memcpy(&v, all[k].data, sizeof v);
        *out = fmax(*out, v);
    }
    return true;
}

/* The message of a correct row, from the group's step time ms. */
static void describe(const mg_rank *r, mg_dp_mode mode, double ms, const char *same,
                     run_result *row)
{
    const mg_dp *dp = r->dp;
    const dp_shape t = dp_shape_timed(), c = dp_shape_checked();
    const int gpus = mode == MG_DP_ONE ? 1 : r->nranks;
    dp_bucket bk[DP_MAX_BUCKETS];
    const int nb = dp_buckets(&t, bk, DP_MAX_BUCKETS);
    char grads[UNITS_MAX], cap[UNITS_MAX], small[RUN_SIZE_MAX];
    units_bytes((double)mlp_params(&t.net) * sizeof(float), grads, sizeof grads);
    units_bytes((double)bk[0].count * sizeof(float), cap, sizeof cap);
    char *m = row->message;
    const size_t n = sizeof row->message;
    size_t len = strfmt_append(m, n, 0, "%.0f samples/s on %d GPU%s (%d a GPU, %.3f ms a step)",
                               dp_samples_per_s(t.net.batch, gpus, ms), gpus, gpus > 1 ? "s" : "",
                               t.net.batch, ms);
    if (mode == MG_DP_ONE)
        len = strfmt_append(m, n, len, "; no all-reduce");
    else
        len = strfmt_append(m, n, len, "; %s of gradients in %d all-reduces of up to %s %s", grads,
                            nb, cap,
                            mode == MG_DP_SERIAL ? "after the backward pass"
                                                 : "on a second stream during the backward pass");
    if (mode == MG_DP_OVERLAP && dp->ms_serial > 0.0)
        len = strfmt_append(m, n, len, "; %.2fx dp_serial's speed", dp->ms_serial / ms);
    if (mode != MG_DP_ONE && dp->ms_one > 0.0)
        len = strfmt_append(m, n, len, "; weak scaling %.0f%% (samples/s over %d x dp_1gpu's)",
                            100.0 * dp_weak_efficiency(dp->ms_one, ms), gpus);
    if (same[0])
        len = strfmt_append(m, n, len, "; %s", same);
    (void)strfmt_append(m, n, len, "; checked at %s against the CPU",
                        dp_size_label(&c, small, sizeof small));
}

static void start_row(const mg_rank *r, mg_dp_mode mode, run_result *row)
{
    const dp_shape t = dp_shape_timed();
    run_result_init(row);
    strfmt_copy(row->variant, sizeof row->variant, ids[mode]);
    strfmt_copy(row->label, sizeof row->label, coll_row_label(ids[mode]));
    dp_size_label(&t, row->size, sizeof row->size);
    row->kind = RK_KERNEL;
    row->seed = mg_row_seed(r->seed, MG_NALGOS + (int)mode, mlp_params(&t.net) * sizeof(float));
}

/* One row on nranks ranks (1: this rank alone), sent when measured; the
 * group's step time into *ms.  The checked shape's data come from the
 * row's seed; the timed shape's are the same for every row of the run, so
 * that the overlapped step's gradients can be compared with the serial
 * one's. */
static bool measure(mg_rank *r, mg_dp_mode mode, int nranks, double *ms, cl_err *err)
{
    const double t0 = clock_now_s();
    const dp_shape t = dp_shape_timed();
    const size_t np = mlp_params(&t.net);
    const uint64_t timed_seed = mg_row_seed(r->seed, MG_NALGOS + MG_DP_NMODES, np * sizeof(float));
    run_result row;
    start_row(r, mode, &row);
    mg_link_progress(r, row.variant, row.size, "check", 0, 1);
    char same[160];
    if (!check_small(r, mode, nranks, &row, err) || !mg_dp_load(r, &t, timed_seed, r->rank, err)
        || !poisoned_step(r, &t, mode, nranks, err))
        return false;
    check_timed(r, mode, np, &row, same, sizeof same);
    if (mode == MG_DP_SERIAL) {
        if (!r->dp->serial_g && !(r->dp->serial_g = malloc(np * sizeof(float))))
            return err_set(err, "out of memory for dp_serial's gradients");
        memcpy(r->dp->serial_g, r->dp->host, np * sizeof(float));
    }
    if (!time_steps(r, &t, mode, nranks, &row, err))
        return false;
    *ms = row.median_ms;
    if (nranks > 1 && !group_ms(r, row.median_ms, ms, err))
        return false;
    if (row.status == RS_CORRECT)
        describe(r, mode, *ms, same, &row);
    row.wall_ms = (clock_now_s() - t0) * 1e3;
    mg_link_row(r, &row, nranks);
    return true;
}

/* GPU 0 alone, the others waiting; then its time to every rank. */
static bool one_gpu(mg_rank *r, cl_err *err)
{
    double ms = 0.0;
    if (r->rank == 0 && !measure(r, MG_DP_ONE, 1, &ms, err))
        return false;
    rank_blob all[COLL_MAX_RANKS];
    if (!mg_link_exchange(r, r->rank == 0 ? &ms : NULL, r->rank == 0 ? sizeof ms : 0, all, err))
        return false;
    if (all[0].len != sizeof ms)
        return err_set(err, "rank 0 sent no step time of dp_1gpu");
    memcpy(&ms, all[0].data, sizeof ms);
    if (r->dp)
        r->dp->ms_one = ms;
    return true;
}

/* Every GPU, the gradients all-reduced through NCCL; without it the row
 * says why. */
static bool all_gpus(mg_rank *r, mg_dp_mode mode, cl_err *err)
{
    run_result row;
    bool can = false;
    char why[sizeof row.message];
    if (!mg_nccl_ready(r, &can, why, sizeof why, err))
        return false;
    if (!can) {
        start_row(r, mode, &row);
        row.status = RS_ERROR;
        strfmt_copy(row.message, sizeof row.message, why);
        mg_link_row(r, &row, r->nranks);
        return true;
    }
    double ms = 0.0;
    if (!measure(r, mode, r->nranks, &ms, err))
        return false;
    if (mode == MG_DP_SERIAL)
        r->dp->ms_serial = ms;
    return true;
}

bool mg_dp_rows(mg_rank *r, const bool want[MG_DP_ROWS], cl_err *err)
{
    bool need = (want[MG_DP_ONE] && r->rank == 0) || want[MG_DP_SERIAL] || want[MG_DP_OVERLAP];
    if (need && !mg_dp_open(r, err))
        return false;
    if (want[MG_DP_ONE] && !one_gpu(r, err))
        return false;
    for (int m = MG_DP_SERIAL; m < MG_DP_NMODES; m++)
        if (want[m] && !all_gpus(r, (mg_dp_mode)m, err))
            return false;
    return true;
}
