/* measure.c - one all-reduce row: fresh inputs, a poisoned output, one
 * checked collective against the double-precision sum of every rank's
 * input, then timed collectives between CUDA events.  Every rank runs the
 * same steps with the same counts, so the collectives pair up.  The
 * learner's kernel is measured the same way, its scratch poisoned too and
 * every wait for it under a time limit (mgpu/exercise.h). */
#include "mgpu/mgpu_internal.h"

#include <stdio.h>
#include <string.h>

#include "core/clock.h"
#include "core/stats.h"
#include "core/strfmt.h"
#include "core/units.h"
#include "cpu/allreduce.h"
#include "gpu/cudacheck.h"
#include "kernels.h"
#include "mgpu/exercise.h"

uint64_t mg_row_seed(uint64_t base, int what, size_t bytes)
{
    uint64_t z = base ^ (0x9e3779b97f4a7c15ull * ((uint64_t)what + 1)) ^ ((uint64_t)bytes << 7);
    z = (z ^ (z >> 31)) * 0xbf58476d1ce4e5b9ull;
    return z ^ (z >> 29);
}

/* Waits for the stream; with NCCL, also asks the communicator; the
 * learner's kernel's time limit ends with the wait. */
static bool finish(mg_rank *r, mg_algo a, cl_err *err)
{
    if (a == MG_EXERCISE) {
        cudaError_t st = cudaStreamSynchronize(r->stream);
        mg_watch_disarm();
        if (st == cudaSuccess)
            return true;
        (void)cudacheck_fail(err, st, "cudaStreamSynchronize(r->stream)", __FILE__, __LINE__);
        return err_set(err, "your kernel failed: %s", cudacheck_plain(st));
    }
    CUDA_CHECK(err, cudaStreamSynchronize(r->stream));
    return a != MG_NCCL || mg_nccl_healthy(r->nccl, err);
}

/* The learner's kernel: n collectives of the row (what they are: "timed")
 * from now on have a time limit. */
static void watch(mg_rank *r, mg_algo a, const run_result *row, size_t count, const char *what,
                  int n)
{
    if (a != MG_EXERCISE)
        return;
    char words[128];
    if (n == 1)
        snprintf(words, sizeof words, "the %s collective at %s", what, row->size);
    else
        snprintf(words, sizeof words, "the %d %s collectives at %s", n, what, row->size);
    mg_watch_arm(r, mg_watch_limit_s(count * sizeof(float), n), words);
}

void mg_judge(run_result *row, const check_report *cr)
{
    static const result_status by[] = {
        [CHECK_OK] = RS_CORRECT, [CHECK_WRONG] = RS_WRONG, [CHECK_UNWRITTEN] = RS_UNWRITTEN,
        [CHECK_NONFINITE] = RS_NAN, [CHECK_ERROR] = RS_ERROR,
    };
    row->status = by[cr->status];
    row->rel_err = cr->rel_err;
    row->nmismatch = cr->nmismatch < RUN_MAX_MISMATCH ? cr->nmismatch : RUN_MAX_MISMATCH;
    for (int k = 0; k < row->nmismatch; k++)
        row->mismatches[k] = (mismatch){cr->mismatch[k].index, cr->mismatch[k].got,
                                         cr->mismatch[k].expected};
    if (cr->status != CHECK_OK)
        check_describe(cr, row->message, sizeof row->message);
}

/* One checked collective on inputs drawn from seed, every rank ready
 * before any starts; its verdict in *cr.  With poison the output (and the
 * learner's scratch) are poisoned first; without, they hold what the last
 * collective left, which the fresh inputs make wrong. */
static bool checked(mg_rank *r, mg_algo a, size_t count, uint64_t seed, bool poison,
                    const run_result *row, const char *what, check_report *cr, cl_err *err)
{
    mg_bufs *b = &r->b;
    const size_t bytes = count * sizeof(float);
    allreduce_fill(b->host, count, seed, r->rank);
    CUDA_CHECK(err, cudaMemcpyAsync(b->send, b->host, bytes, cudaMemcpyHostToDevice, r->stream));
    if (poison) {
        CUDA_CHECK(err, kernels_fill_u32((uint32_t *)b->recv, CHECK_POISON_BITS, count, r->stream));
        if (a == MG_EXERCISE)
            CUDA_CHECK(err, kernels_fill_u32((uint32_t *)b->scratch, CHECK_POISON_BITS, count,
                                             r->stream));
    }
    CUDA_CHECK(err, cudaStreamSynchronize(r->stream));
    if (!mg_link_barrier(r, err))
        return false;
    watch(r, a, row, count, what, 1);
    if (!mg_allreduce(r, a, count, err) || !finish(r, a, err))
        return false;
    CUDA_CHECK(err, cudaMemcpy(b->host, b->recv, bytes, cudaMemcpyDeviceToHost));
    *cr = allreduce_check(b->host, count, seed, r->nranks, ALLREDUCE_TOL);
    return mg_link_barrier(r, err);
}

/* The checked collective: inputs for row->seed, output poisoned. */
static bool check_once(mg_rank *r, mg_algo a, size_t count, run_result *row, cl_err *err)
{
    check_report cr;
    if (!checked(r, a, count, row->seed, true, row, "checked", &cr, err))
        return false;
    mg_judge(row, &cr);
    return true;
}

/* The learner's kernel once more after timing, on fresh inputs and with
 * the output as the timed collectives left it: a kernel that did its work
 * only when it saw a poisoned output, or only in the first collective,
 * and replayed its answer while timed, leaves a stale sum here. */
static bool check_after(mg_rank *r, mg_algo a, size_t count, run_result *row, cl_err *err)
{
    check_report cr;
    const uint64_t seed = mg_row_seed(row->seed, MG_NALGOS + 1, count);
    if (!checked(r, a, count, seed, false, row, "re-checked", &cr, err))
        return false;
    if (cr.status != CHECK_OK && row->status == RS_CORRECT) {
        mg_judge(row, &cr);
        char was[sizeof row->message];
        strfmt_copy(was, sizeof was, row->message);
        snprintf(row->message, sizeof row->message,
                 "after timing, on fresh inputs: %s (correct when first checked: a kernel must "
                 "compute every collective, not repeat an earlier answer)", was);
    }
    return true;
}

bool mg_row_times(mg_rank *r, int samples, int per, run_result *row, cl_err *err)
{
    double t[MG_MAX_SAMPLES];
    if (samples < 1 || samples > MG_MAX_SAMPLES || per < 1)
        return err_set(err, "%d samples of %d (at most %d samples)", samples, per, MG_MAX_SAMPLES);
    for (int s = 0; s < samples; s++) {
        float ms = 0.0f;
        CUDA_CHECK(err, cudaEventElapsedTime(&ms, r->ev[2 * s], r->ev[2 * s + 1]));
        t[s] = (double)ms / per;
    }
    stats_summary st = stats_summarise(t, (size_t)samples);
    row->median_ms = st.median;
    row->min_ms = st.min;
    row->max_ms = st.max;
    row->spread = st.spread;
    row->samples = (int)st.n;
    return true;
}

/* coll_samples samples of coll_iters collectives each, after as many for
 * warm-up; the row gets the time of one collective. */
static bool time_it(mg_rank *r, mg_algo a, size_t count, run_result *row, cl_err *err)
{
    const size_t bytes = count * sizeof(float);
    const int iters = coll_iters(bytes);
    int samples = coll_samples(bytes);
    if (samples > MG_MAX_SAMPLES)
        samples = MG_MAX_SAMPLES;
    mg_link_progress(r, row->variant, row->size, "warmup", 0, 1);
    watch(r, a, row, count, "warm-up", iters);
    for (int i = 0; i < iters; i++)
        if (!mg_allreduce(r, a, count, err))
            return false;
    if (!finish(r, a, err))
        return false;
    mg_link_progress(r, row->variant, row->size, "timing", 0, samples);
    watch(r, a, row, count, "timed", iters * samples);
    for (int s = 0; s < samples; s++) {
        CUDA_CHECK(err, cudaEventRecord(r->ev[2 * s], r->stream));
        for (int i = 0; i < iters; i++)
            if (!mg_allreduce(r, a, count, err))
                return false;
        CUDA_CHECK(err, cudaEventRecord(r->ev[2 * s + 1], r->stream));
    }
    if (!finish(r, a, err) || !mg_row_times(r, samples, iters, row, err))
        return false;
    double alg = coll_algbw_gbs((double)bytes, row->median_ms);
    row->gbps = coll_busbw_gbs((double)bytes, row->median_ms, r->nranks);
    if (row->status == RS_CORRECT)
        snprintf(row->message, sizeof row->message,
                 "busbw %.1f GB/s = algbw %.1f GB/s x 2(n-1)/n over %d GPUs; %d a sample, "
                 "median of %d%s",
                 row->gbps, alg, r->nranks, iters, samples, a == MG_EXERCISE ? mg_ex_note(r) : "");
    return mg_link_barrier(r, err);
}

bool mg_measure(mg_rank *r, mg_algo a, size_t bytes, cl_err *err)
{
    run_result row;
    run_result_init(&row);
    strfmt_copy(row.variant, sizeof row.variant, mg_algo_id(a));
    strfmt_copy(row.label, sizeof row.label, mg_algo_label(a));
    units_bytes((double)bytes, row.size, sizeof row.size);
    row.kind = a == MG_NCCL ? RK_LIBRARY : a == MG_EXERCISE ? RK_EXERCISE : RK_KERNEL;
    strfmt_copy(row.exercise, sizeof row.exercise, r->req.exercise);
    row.seed = mg_row_seed(r->seed, (int)a, bytes);
    const double t0 = clock_now_s();

    bool can = false;
    char why[sizeof row.message];
    if (!mg_algo_ready(r, a, &can, why, sizeof why, err))
        return false;
    if (can && bytes > r->b.cap * sizeof(float)) {
        char cap[UNITS_MAX];
        snprintf(why, sizeof why, "larger than the buffers every GPU of the group could hold (%s)",
                 units_bytes((double)(r->b.cap * sizeof(float)), cap, sizeof cap));
        can = false;
    }
    if (!can) {
        row.status = RS_ERROR;
        strfmt_copy(row.message, sizeof row.message, why);
        mg_link_row(r, &row, r->nranks);
        return true;
    }
    const size_t count = bytes / sizeof(float);
    mg_link_progress(r, row.variant, row.size, "check", 0, 1);
    if (!check_once(r, a, count, &row, err) || !time_it(r, a, count, &row, err) ||
        (a == MG_EXERCISE && !check_after(r, a, count, &row, err))) {
        mg_watch_disarm();
        return false;
    }
    row.wall_ms = (clock_now_s() - t0) * 1e3;
    mg_link_row(r, &row, r->nranks);
    return true;
}
