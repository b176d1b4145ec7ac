#include "gpu/timing.h"

#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "gpu/cudacheck.h"

static int opt_min(const timing_opts *o)
{
    return o->min_samples > 0 ? o->min_samples : TIMING_MIN_SAMPLES;
}

static int opt_max(const timing_opts *o)
{
    int m = o->max_samples > 0 ? o->max_samples : TIMING_MAX_SAMPLES;
    return m < opt_min(o) ? opt_min(o) : m;
}

static double opt_budget_ms(const timing_opts *o)
{
    return 1e3 * (o->budget_s > 0.0 ? o->budget_s : TIMING_DEFAULT_BUDGET_S);
}

bool timing_needs_flush(const timing_opts *opts)
{
    return opts->flush && opts->flush_bytes > 0 && opts->l2_bytes > 0 &&
           opts->working_set < 4 * opts->l2_bytes;
}

bool timing_should_stop(const double *samples, int nsamples, double spent_ms, double wall_ms,
                        const timing_opts *opts, bool *converged)
{
    if (converged)
        *converged = false;
    if (nsamples >= opt_max(opts))
        return true;
    double budget = opt_budget_ms(opts);
    if (nsamples >= opt_min(opts)) {
        double *tmp = malloc((size_t)nsamples * sizeof *tmp);
        if (!tmp)
            return true;
        memcpy(tmp, samples, (size_t)nsamples * sizeof *tmp);
        stats_summary s = stats_summarise(tmp, (size_t)nsamples);
        free(tmp);
        double target = opts->target_spread > 0.0 ? opts->target_spread : TIMING_TARGET_SPREAD;
        if (s.spread < target) {
            if (converged)
                *converged = true;
            return true;
        }
    }
    /* Past the budget, three samples give a median; a single run far longer
     * than the budget is all that can be afforded. */
    if (spent_ms >= budget && nsamples >= 3)
        return true;
    if (spent_ms >= 5.0 * budget && nsamples >= 1)
        return true;
    return nsamples >= opt_min(opts) && wall_ms >= TIMING_WALL_FACTOR * budget;
}

typedef struct timing_events {
    cudaEvent_t start[TIMING_MAX_BATCH], stop[TIMING_MAX_BATCH];
    int made;
} timing_events;

static void events_destroy(timing_events *ev)
{
    for (int i = 0; i < ev->made; i++) {
        cudaEventDestroy(ev->start[i]);
        cudaEventDestroy(ev->stop[i]);
    }
    ev->made = 0;
}

static bool events_create(timing_events *ev, cl_err *e)
{
    ev->made = 0;
    for (int i = 0; i < TIMING_MAX_BATCH; i++) {
        CUDA_CHECK(e, cudaEventCreate(&ev->start[i]));
        cudaError_t st = cudaEventCreate(&ev->stop[i]);
        if (st != cudaSuccess) {
            cudaEventDestroy(ev->start[i]);
            return cudacheck_fail(e, st, "cudaEventCreate", __FILE__, __LINE__);
        }
        ev->made++;
    }
    return true;
}

/* A device (or a MIG slice, or a driver) with no persisting L2 to set:
 * nothing to reset there.  The error is cleared. */
static bool l2_absent(cudaError_t st)
{
    if (st != cudaErrorUnsupportedLimit && st != cudaErrorNotSupported)
        return false;
    (void)cudaGetLastError();
    return true;
}

bool timing_l2_reset(cl_err *e)
{
    size_t set_aside = 0;
    cudaError_t st = cudaDeviceGetLimit(&set_aside, cudaLimitPersistingL2CacheSize);
    if (l2_absent(st))
        return true;
    CUDA_CHECK(e, st);
    if (set_aside > 0) {
        st = cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0);
        if (l2_absent(st))
            return true;
        CUDA_CHECK(e, st);
    }
    st = cudaCtxResetPersistingL2Cache();
    if (l2_absent(st))
        return true;
    CUDA_CHECK(e, st);
    return true;
}

int timing_canary_pick(uint64_t draw, int est)
{
    return est > 1 ? 1 + (int)(draw % (uint64_t)(est - 1)) : 0;
}

/* What repetition i of a batch of k starts from: the canary's inputs
 * (the last of a canary batch), them shuffled (the one before it), or
 * the inputs of the repetition before, shuffled. */
static bool inputs_for(const timing_opts *o, int i, int k, bool canary, bool shuffle, cl_err *e)
{
    cudaStream_t s = o->stream;
    bool last = canary && i == k - 1, decoy = canary && shuffle && i == k - 2;
    if ((last || decoy) && !o->canary_before(o->canary_ud, s, e))
        return false;
    return last || !shuffle || o->canary_shuffle(o->canary_ud, s, e);
}

/* Enqueues k repetitions (inputs, flush, start, work, stop) and waits for
 * the last; canary: the last of them is the canary (its inputs enqueued
 * before its flush, its check after the wait); shuffle: canary_shuffle
 * before the others. */
static bool run_batch(const timing_opts *o, timing_fn fn, void *ud, timing_events *ev, int k,
                      bool flush, int rep0, bool canary, bool shuffle, double *ms, cl_err *e)
{
    cudaStream_t s = o->stream;
    if (o->before && !o->before(o->before_ud, e))
        return false;
    if (!timing_l2_reset(e))
        return false;
    for (int i = 0; i < k; i++) {
        if (!inputs_for(o, i, k, canary, shuffle, e))
            return false;
        if (flush)
            CUDA_CHECK(e, cudaMemsetAsync(o->flush, (rep0 + i) & 0xff, o->flush_bytes, s));
        CUDA_CHECK(e, cudaEventRecord(ev->start[i], s));
        if (!fn(ud, s, e))
            return false;
        CUDA_CHECK(e, cudaEventRecord(ev->stop[i], s));
    }
    CUDA_CHECK(e, cudaEventSynchronize(ev->stop[k - 1]));
    CUDA_CHECK(e, cudaGetLastError());
    for (int i = 0; i < k; i++) {
        float t = 0.0f;
        CUDA_CHECK(e, cudaEventElapsedTime(&t, ev->start[i], ev->stop[i]));
        ms[i] = (double)t;
    }
    return !canary || o->canary_after(o->canary_ud, e);
}

static int clampi(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

bool timing_run(const timing_opts *opts, timing_fn fn, void *ud, timing_result *out, cl_err *err)
{
    memset(out, 0, sizeof *out);
    bool ok = false;
    int cap = opt_max(opts);
    double budget = opt_budget_ms(opts);
    double warm_target = opts->warmup_ms > 0.0 ? opts->warmup_ms : TIMING_WARMUP_MS;
    bool flush = timing_needs_flush(opts);
    double *v = malloc((size_t)cap * sizeof *v);
    timing_events ev = {0};
    if (!v)
        return err_set(err, "out of memory for timing samples");
    if (!events_create(&ev, err))
        goto cleanup;

    bool with_canary = opts->canary_draw && opts->canary_before && opts->canary_after &&
                       !opts->before;
    bool shuffle = with_canary && opts->canary_shuffle;
    double warm_ms = 0.0, last = 0.0;
    int warm = 0;
    while (warm < 1 || (warm_ms < warm_target && warm_ms < budget && warm < 1000)) {
        double t = 0.0;
        if (!run_batch(opts, fn, ud, &ev, 1, false, warm, false, shuffle, &t, err))
            goto cleanup;
        warm_ms += t;
        last = t;
        warm++;
        if (opts->progress)
            opts->progress(opts->progress_ud, "warmup", warm, 0);
    }
    out->warmups = warm;
    out->flushed = flush;

    int n = 0;
    double spent = 0.0, t0 = clock_now_ms();
    int est = last > 0.0 ? clampi((int)(budget / last), 3, cap) : cap;
    int canary = with_canary ? timing_canary_pick(opts->canary_draw, est) : -1;
    out->canary_rep = -1;
    for (;;) {
        int k = last > 0.0 ? clampi((int)(5.0 / last), 1, TIMING_MAX_BATCH) : TIMING_MAX_BATCH;
        k = clampi(opts->before ? 1 : k, 1, cap - n);
        /* a batch ends with the canary and holds the repetition before it
         * too: one that would end right before it takes it in, or, full,
         * leaves its last for the next */
        bool now = canary >= n && canary <= n + k;
        if (now && canary - n + 1 > TIMING_MAX_BATCH) {
            now = false;
            k--;
        }
        if (now)
            k = canary - n + 1;
        if (!run_batch(opts, fn, ud, &ev, k, flush, n, now, shuffle, v + n, err))
            goto cleanup;
        if (now)
            out->canary_rep = canary;
        for (int i = 0; i < k; i++)
            spent += v[n + i];
        last = v[n + k - 1];
        n += k;
        if (opts->progress)
            opts->progress(opts->progress_ud, "timing", n, est > n ? est : n);
        double wall = clock_now_ms() - t0;
        if (!timing_should_stop(v, n, spent, wall, opts, &out->converged))
            continue;
        if (canary < n || n >= cap)
            break;
        /* The canary is still to come: the stopping rule waits for it,
         * unless the clock says the repetitions are far slower than the
         * warm-up promised: then it is the next one. */
        out->converged = false;
        if (wall >= TIMING_WALL_FACTOR * budget)
            canary = n + 1 < cap ? n + 1 : n;
    }
    out->gpu_ms = spent;
    out->s = stats_summarise(v, (size_t)n);
    ok = true;
cleanup:
    events_destroy(&ev);
    free(v);
    return ok;
}
