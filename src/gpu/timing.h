/* timing.h - timing GPU work with CUDA events.
 *
 * timing_run calls a callback that enqueues one run of the work on a stream.
 * Warm-up first (at least one call, more until warmup_ms of GPU time), then
 * repetitions bracketed by events, enqueued in small batches so the GPU does
 * not idle between them, until the relative interquartile spread falls under
 * target_spread with at least min_samples samples, or the GPU-time budget is
 * spent, or max_samples is reached, or, with at least min_samples samples,
 * TIMING_WALL_FACTOR times the budget has passed on the clock (work whose
 * repetitions cost the host more than the GPU, such as a `before` that
 * moves pages back, would otherwise take many times its budget).  When the working set is smaller than 4x
 * the L2 cache, a memset of a flush buffer (2x L2) runs before each
 * repetition, outside the timed region, so every repetition starts cold.
 *
 * Before each batch (and each warm-up) the device is idle: the persisting
 * part of the L2 (cudaLimitPersistingL2CacheSize) is set back to 0 and its
 * lines made normal again (cudaCtxResetPersistingL2Cache), so that neither
 * a stream's access-policy window nor a kernel's evict_last cache hints
 * keep inputs in the L2 across repetitions: the flush then evicts them.
 * (On an H200 with driver 580 the set-aside was 11.25 MiB before anything
 * set it; a kernel that read 24 MiB with evict_last hints through a set-aside
 * of 37.5 MiB ran at 2521 GB/s after the flush, at 1755 GB/s with it at 0.)
 *
 * The canary: with canary_draw set, one timed repetition chosen from it
 * (uniformly among the first `est`, the repetitions the budget is expected
 * to hold; the stopping rule waits for it) is preceded by canary_before,
 * which enqueues fresh inputs and poisoned outputs on the stream in the
 * same batch as the repetitions before it, so the kernel sees no host pause
 * before it that it does not see before the others; the batch ends with
 * it, and canary_after runs on the host (its check) before any later
 * repetition is enqueued.  Its time counts like any other's.  With
 * canary_shuffle as well, every other repetition, warm-ups included, is
 * preceded by it (the inputs' elements moved, outside the timed region),
 * and the repetition right before the canary is given the canary's inputs
 * shuffled: a kernel that keeps an answer for inputs it has seen in
 * another order gives it at the canary.  The canary is then never the
 * first repetition nor the first of its batch, where it can be helped. */
#ifndef CUDALAB_GPU_TIMING_H
#define CUDALAB_GPU_TIMING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#include "core/err.h"
#include "core/stats.h"

/* Enqueues one run on stream; false + err when it could not (launch error). */
typedef bool (*timing_fn)(void *ud, cudaStream_t stream, cl_err *err);
/* phase: "warmup" or "timing"; rep of (of is an estimate). */
typedef void (*timing_progress_fn)(void *ud, const char *phase, int rep, int of);

#define TIMING_DEFAULT_BUDGET_S 0.5
#define TIMING_MIN_SAMPLES 10
#define TIMING_MAX_SAMPLES 300
#define TIMING_TARGET_SPREAD 0.005
#define TIMING_WARMUP_MS 20.0
#define TIMING_MAX_BATCH 32
#define TIMING_WALL_FACTOR 4.0

typedef struct timing_opts {
    cudaStream_t stream;
    double budget_s;          /* GPU time for the timed repetitions; <= 0: default */
    size_t working_set;       /* bytes the work touches */
    size_t l2_bytes;          /* device L2 size */
    void *flush;              /* device buffer of flush_bytes (>= 2x L2); NULL: never flush */
    size_t flush_bytes;
    int min_samples;          /* 0: TIMING_MIN_SAMPLES */
    int max_samples;          /* 0: TIMING_MAX_SAMPLES */
    double target_spread;     /* 0: TIMING_TARGET_SPREAD */
    double warmup_ms;         /* 0: TIMING_WARMUP_MS */
    timing_progress_fn progress;
    void *progress_ud;
    /* Called on the host before every run, warm-ups included, once the
     * previous run has finished; its time is not counted.  It puts the
     * work's data back in the state each run starts from (the managed
     * problem writes its inputs on the CPU again).  With it, runs go one at
     * a time instead of in batches.  NULL: none. */
    bool (*before)(void *ud, cl_err *err);
    void *before_ud;
    /* The canary (above); 0: none.  Not with `before`. */
    uint64_t canary_draw;
    bool (*canary_before)(void *ud, cudaStream_t stream, cl_err *err);
    bool (*canary_after)(void *ud, cl_err *err);
    bool (*canary_shuffle)(void *ud, cudaStream_t stream, cl_err *err);   /* NULL: none */
    void *canary_ud;
} timing_opts;

typedef struct timing_result {
    stats_summary s;          /* of the per-repetition times, in ms */
    double gpu_ms;            /* sum of the timed repetitions */
    int warmups;
    bool flushed;             /* the L2 was flushed before each repetition */
    bool converged;           /* stopped on the spread rule, not budget or cap */
    int canary_rep;           /* the timed repetition that was the canary; -1: none */
} timing_result;

/* True when the L2 should be flushed between repetitions of the work opts
 * describes. */
bool timing_needs_flush(const timing_opts *opts);

/* The stopping rule over the samples so far (samples[0..nsamples), not
 * modified), the GPU time spent and the time passed on the clock since the
 * first timed repetition: *converged is set when the spread rule fired. */
bool timing_should_stop(const double *samples, int nsamples, double spent_ms, double wall_ms,
                        const timing_opts *opts, bool *converged);

/* The canary's repetition for a draw, among est (>= 1) repetitions: never
 * the first when there are two or more. */
int timing_canary_pick(uint64_t draw, int est);

/* Sets the persisting L2 set-aside back to 0 (when it is not) and resets
 * its lines; a device without one is left alone.  Call with the device
 * idle: setting the limit waits for it. */
bool timing_l2_reset(cl_err *err);

/* Times fn as described above.  A failure of fn or of any CUDA call
 * returns false with err set; cudacheck_last() then holds the CUDA code. */
bool timing_run(const timing_opts *opts, timing_fn fn, void *ud, timing_result *out, cl_err *err);

#endif
