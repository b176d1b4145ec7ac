/* experiments_basics.c - the basics lab's experiments on warps and memory:
 * divergence (a branch taken by whole warps or by parts of each warp), the
 * memory hierarchy (the same reads from DRAM, the L2, shared memory and
 * registers) and memory fences (a message between blocks with and without
 * __threadfence()).  The occupancy experiment is experiments_occupancy.c. */
#include "experiments/experiments.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>

#include "basics_experiments.h"
#include "core/rng.h"
#include "cpu/check.h"
#include "gpu/buffer.h"
#include "gpu/cudacheck.h"
#include "experiments/experiments_internal.h"

#define X_SAMPLES 4096
#define BRANCH_N ((size_t)1 << 22)
#define BRANCH_ITERS 512

/* ---- divergence ----------------------------------------------------------------------- */

typedef struct branch_job {
    const float *in;
    float *out;
    size_t n;
    basics_branch mode;
} branch_job;

static bool branch_once(void *ud, cudaStream_t s, cl_err *e)
{
    const branch_job *j = ud;
    CUDA_CHECK_LAUNCH(e, basics_branch_run(j->in, j->out, j->n, BRANCH_ITERS, j->mode, s));
    return true;
}

/* Element i of the divergence kernel, computed the same way on the CPU
 * (fmaf and sqrtf are correctly rounded on both sides). */
static float branch_ref(float v, size_t i, basics_branch mode)
{
    unsigned lane = (unsigned)(i & 31u);
    bool b = mode == BASICS_BRANCH_WARPS ? ((i >> 5) & 1u) != 0
             : mode == BASICS_BRANCH_HALVES ? lane >= 16u
                                            : (lane & 1u) != 0;
    for (int k = 0; k < BRANCH_ITERS; k++)
        v = b ? sqrtf(fmaf(v, v, 1.0f)) * 0.5f : fmaf(v, 0.999f, 0.5f);
    return v;
}

/* Checks X_SAMPLES spread elements exactly (and the whole output for
 * unwritten ones). */
static void branch_check(run_result *r, const float *in, const float *out, size_t n,
                         basics_branch mode, uint64_t seed)
{
    int64_t idx[X_SAMPLES];
    double ref[X_SAMPLES];
    rng g;
    rng_seed(&g, seed);
    for (size_t k = 0; k < X_SAMPLES; k++) {
        size_t i = k < 64 ? k : (size_t)(rng_next(&g) % n);
        idx[k] = (int64_t)i;
        ref[k] = (double)branch_ref(in[i], i, mode);
    }
    check_report c = check_compare(out, n, ref, idx, X_SAMPLES, 0.0);
    experiments_check_report_row(r, &c);
}

void experiments_divergence(xctx *ctx)
{
    static const struct {
        basics_branch mode;
        const char *id, *label, *note;
    } v[] = {
        {.mode = BASICS_BRANCH_WARPS, .id = "div_warps", .label = "whole warps branch",
         .note = "every other warp takes path B: the threads of a warp always agree, so each "
                 "warp runs one loop"},
        {.mode = BASICS_BRANCH_HALVES, .id = "div_halves", .label = "half of each warp",
         .note = "lanes 16 to 31 of every warp take path B: each warp runs both loops one after "
                 "the other, half its lanes masked off in each"},
        {.mode = BASICS_BRANCH_LANES, .id = "div_lanes", .label = "odd lanes",
         .note = "the odd lanes take path B: again both loops in every warp; which lanes "
                 "disagree does not matter, only that some do"},
    };
    const size_t nv = sizeof v / sizeof v[0];
    size_t bytes = BRANCH_N * sizeof(float);
    char sz[48];
    snprintf(sz, sizeof sz, "4M threads, %d steps", BRANCH_ITERS);
    cl_err e = {{0}};
    io_bufs io;
    run_result r;
    double base_ms = 0.0;
    cudacheck_reset();
    if (!experiments_io_setup(ctx, &io, experiments_fit_device(bytes, bytes, 2), false,
                              "divergence", &e)) {
        for (size_t k = 0; k < nv; k++) {
            experiments_row_start(ctx, &r, v[k].id, v[k].label, sz);
            experiments_row_failed(ctx, &r, &e);
        }
        goto done;
    }
    for (size_t k = 0; k < nv && !ctx->broken; k++) {
        experiments_row_start(ctx, &r, v[k].id, v[k].label, sz);
        branch_job j = {.in = io.din.ptr, .out = io.dout.ptr, .n = BRANCH_N, .mode = v[k].mode};
        timing_result tr;
        if (!experiments_measure(ctx, v[k].label, branch_once, &j, io.dout.ptr, io.hout, bytes,
                                 2 * bytes, &tr, &e)) {
            experiments_row_failed(ctx, &r, &e);
            continue;
        }
        experiments_set_timing(&r, &tr);
        branch_check(&r, io.hin, io.hout, BRANCH_N, v[k].mode, ctx->seed++);
        engine_row_note(&r, "half the elements take each path in every row (A: fmaf "
                            "chain; B: sqrtf of an fmaf); %s", v[k].note);
        if (k == 0)
            base_ms = r.median_ms;
        else if (base_ms > 0.0 && r.median_ms > 0.0)
            engine_row_note(&r, "%.2fx the time of whole warps for the same work",
                            r.median_ms / base_ms);
        engine_row_emit(&ctx->rows, &r);
    }
done:
    experiments_io_free(&io);
}

/* ---- the memory hierarchy ----------------------------------------------------------------- */

#define LEVEL_PATTERN ((size_t)4 << 20)   /* floats of the repeated random pattern */
#define LEVEL_DRAM_WANT ((size_t)1 << 30)

typedef struct level_job {
    const float *src;
    size_t n4;
    int reps, blocks;
    basics_level level;
    float *out;
} level_job;

static bool level_once(void *ud, cudaStream_t s, cl_err *e)
{
    const level_job *j = ud;
    CUDA_CHECK_LAUNCH(e, basics_levels_run(j->src, j->n4, j->reps, j->level, j->blocks, j->out, s));
    return true;
}

/* The four floats of src's float4 number i: the pattern repeats. */
static double sum4(const float *pattern, size_t i)
{
    size_t f = (4 * i) % LEVEL_PATTERN;
    return (double)pattern[f] + (double)pattern[f + 1] + (double)pattern[f + 2] +
           (double)pattern[f + 3];
}

/* What thread t of the levels kernel adds up (kernels/basics_experiments.h). */
static double level_ref(const float *pattern, const level_job *j, size_t t)
{
    size_t threads = (size_t)j->blocks * BASICS_LEVEL_BLOCK, tid = t % BASICS_LEVEL_BLOCK;
    size_t b = t / BASICS_LEVEL_BLOCK, per = BASICS_TILE4 / BASICS_LEVEL_BLOCK;
    double s = 0.0;
    if (j->level == BASICS_LEVEL_DRAM || j->level == BASICS_LEVEL_L2) {
        for (size_t i = t; i < j->n4; i += threads)
            s += sum4(pattern, i);
    } else if (j->level == BASICS_LEVEL_SHARED) {
        for (size_t k = tid; k < BASICS_TILE4; k += BASICS_LEVEL_BLOCK)
            s += sum4(pattern, (b * BASICS_TILE4 + k) % j->n4);
    } else {
        s = (double)per * sum4(pattern, t % j->n4);
    }
    return s * j->reps;
}

/* The bytes one run reads. */
static double level_bytes(const level_job *j)
{
    if (j->level == BASICS_LEVEL_DRAM || j->level == BASICS_LEVEL_L2)
        return 16.0 * (double)j->n4 * j->reps;
    return 16.0 * BASICS_TILE4 * (double)j->blocks * j->reps;
}

static void level_check(run_result *r, const float *pattern, const level_job *j, const float *out,
                        uint64_t seed)
{
    size_t n = (size_t)j->blocks * BASICS_LEVEL_BLOCK, m = n < X_SAMPLES ? n : X_SAMPLES;
    int64_t idx[X_SAMPLES];
    double ref[X_SAMPLES];
    rng g;
    rng_seed(&g, seed);
    for (size_t k = 0; k < m; k++) {
        size_t t = k < 32 || m == n ? k : (size_t)(rng_next(&g) % n);
        idx[k] = (int64_t)t;
        ref[k] = level_ref(pattern, j, t);
    }
    check_report c = check_compare(out, n, ref, idx, m, 0.0);
    experiments_check_report_row(r, &c);
}

/* Fills src (bytes) with the random pattern of small whole numbers, whose
 * float sums stay exact. */
static bool level_fill(xctx *x, float *pattern, float *src, size_t bytes, cl_err *e)
{
    rng g;
    rng_seed(&g, x->seed++);
    for (size_t i = 0; i < LEVEL_PATTERN; i++)
        pattern[i] = (float)(rng_next(&g) >> 62);
    for (size_t off = 0; off < bytes; off += LEVEL_PATTERN * sizeof(float)) {
        size_t n = bytes - off < LEVEL_PATTERN * sizeof(float) ? bytes - off
                                                               : LEVEL_PATTERN * sizeof(float);
        if (!experiments_upload(x, (char *)src + off, pattern, n, e))
            return false;
    }
    return true;
}

/* What each level's figure is compared with, in the row's message. */
static void level_note(const xctx *x, run_result *r, basics_level lv, double dram_gbs)
{
    const double clock_ghz = x->dev.sm_clock_mhz / 1e3;
    if (lv == BASICS_LEVEL_DRAM) {
        engine_row_note(r, "DRAM: %.0f%% of the device-to-device copy's bandwidth and %.0f%% "
                           "of the datasheet-style peak", r->pct_peak_measured,
                        r->pct_peak_theory);
    } else if (lv == BASICS_LEVEL_L2) {
        engine_row_note(r, "L2: %.1fx the DRAM row (the runtime gives no L2 bandwidth "
                           "figure to compare with)", dram_gbs > 0 ? r->gbps / dram_gbs : 0.0);
    } else if (lv == BASICS_LEVEL_SHARED) {
        double peak = (double)x->dev.sm_count * 128.0 * clock_ghz;   /* 32 banks x 4 B a clock */
        if (peak > 0)
            r->pct_peak_theory = 100.0 * r->gbps / peak;
        engine_row_note(r, "shared memory: %.1fx the DRAM row, %.0f%% of its bank limit "
                           "(%d SMs x 32 banks x 4 B x %.2f GHz = %.1f TB/s)",
                        dram_gbs > 0 ? r->gbps / dram_gbs : 0.0, r->pct_peak_theory,
                        x->dev.sm_count, clock_ghz, peak / 1e3);
    } else {
        double peak = 2.0 * x->dev.peak_fp32_tflops * 1e3;   /* 4 B for each FP32 add */
        if (peak > 0)
            r->pct_peak_theory = 100.0 * r->gbps / peak;
        engine_row_note(r, "registers: %.1fx the DRAM row; no memory limits this one, the "
                           "adds do: %.0f%% of 4 B per FP32 add at the device's FP32 rate "
                           "(%.1f TB/s)", dram_gbs > 0 ? r->gbps / dram_gbs : 0.0,
                        r->pct_peak_theory, peak / 1e3);
    }
}

/* One row of the hierarchy: a level, its row's id and label, and how
 * many times a run reads its data. */
typedef struct level_variant {
    basics_level level;
    const char *id, *label;
    int reps;
} level_variant;

static const level_variant level_variants[] = {
    {.level = BASICS_LEVEL_DRAM, .id = "lvl_dram", .label = "DRAM", .reps = 2},
    {.level = BASICS_LEVEL_L2, .id = "lvl_l2", .label = "L2-resident", .reps = 256},
    {.level = BASICS_LEVEL_SHARED, .id = "lvl_shared", .label = "shared memory", .reps = 256},
    {.level = BASICS_LEVEL_REGS, .id = "lvl_regs", .label = "registers", .reps = 1024},
};
#define NLEVELS (sizeof level_variants / sizeof level_variants[0])

/* What the hierarchy experiment reads from and writes to. */
typedef struct level_bench {
    float *pattern;            /* the repeated random pattern, on the host */
    gpu_buffer src, out;       /* bytes of the pattern; one sum a thread */
    float *hout;               /* out, downloaded */
    size_t bytes;
    double dram_gbs;           /* the DRAM row's, for the others' notes */
} level_bench;

/* The source filled with the pattern, and an output for the largest
 * grid; false with e when they cannot be had. */
static bool hierarchy_setup(xctx *x, level_bench *b, cl_err *e)
{
    if (!b->pattern)
        return err_set(e, "out of host memory for the hierarchy experiment");
    if (b->bytes < 4 * x->l2 || b->bytes == 0) {
        experiments_too_little_memory(e, 4 * x->l2);
        return false;
    }
    int most = 0;
    for (size_t k = 0; k < NLEVELS; k++) {
        int blocks = 0;
        CUDA_CHECK(e, basics_levels_grid(level_variants[k].level, &blocks));
        most = blocks > most ? blocks : most;
    }
    size_t nout = (size_t)most * BASICS_LEVEL_BLOCK;
    b->hout = malloc(nout * sizeof *b->hout);
    if (!b->hout)
        return err_set(e, "out of host memory for the hierarchy experiment");
    return buffer_alloc(&b->src, b->bytes, e) && buffer_alloc(&b->out, nout * sizeof(float), e) &&
           level_fill(x, b->pattern, b->src.ptr, b->bytes, e);
}

/* A level's size, for people: "16 KiB a block x 256". */
static void level_size(const level_job *j, char *out, size_t out_size)
{
    char a[32];
    buffer_format_bytes(j->level == BASICS_LEVEL_SHARED ? BASICS_TILE4 * 16
                        : j->level == BASICS_LEVEL_REGS ? 16 : j->n4 * 16, a, sizeof a);
    snprintf(out, out_size, "%s%s x %d", a,
             j->level == BASICS_LEVEL_SHARED ? " a block"
             : j->level == BASICS_LEVEL_REGS ? " a thread" : "", j->reps);
}

/* One level's row: a checked run, then the timing, emitted (a failed one
 * too, with no size). */
static void level_row(xctx *x, level_bench *b, const level_variant *lv, cl_err *e)
{
    run_result r;
    level_job j = {.src = b->src.ptr, .n4 = b->bytes / 16, .reps = lv->reps, .level = lv->level,
                   .out = b->out.ptr};
    if (lv->level == BASICS_LEVEL_L2)
        j.n4 = x->l2 / 4 / 16;
    CUDA_CHECK_GOTO(e, basics_levels_grid(lv->level, &j.blocks), fail);
    char sz[48];
    level_size(&j, sz, sizeof sz);
    experiments_row_start(x, &r, lv->id, lv->label, sz);
    timing_result tr;
    /* the L2 row wants its data warm: no flush between repetitions */
    size_t ws = lv->level == BASICS_LEVEL_DRAM ? b->bytes : SIZE_MAX / 4;
    size_t ob = (size_t)j.blocks * BASICS_LEVEL_BLOCK * sizeof(float);
    if (!experiments_poison(x, b->out.ptr, ob, e) || !level_once(&j, x->s, e) ||
        !experiments_download(x, b->hout, b->out.ptr, ob, e) ||
        !experiments_time_job(x, level_once, &j, ws, 5, 0, &tr, e))
        goto fail;
    experiments_set_timing(&r, &tr);
    if (lv->level == BASICS_LEVEL_DRAM) {
        experiments_set_read_bandwidth(x, &r, level_bytes(&j));
        b->dram_gbs = r.gbps;
    } else if (r.median_ms > 0.0) {
        r.gbps = level_bytes(&j) / (r.median_ms * 1e6);
    }
    level_check(&r, b->pattern, &j, b->hout, x->seed++);
    level_note(x, &r, lv->level, b->dram_gbs);
    engine_row_emit(&x->rows, &r);
    return;
fail:
    experiments_row_start(x, &r, lv->id, lv->label, "");
    experiments_row_failed(x, &r, e);
}

void experiments_hierarchy(xctx *ctx)
{
    cl_err e = {{0}};
    level_bench b = {.pattern = malloc(LEVEL_PATTERN * sizeof(float))};
    size_t want = LEVEL_DRAM_WANT < 16 * ctx->l2 ? 16 * ctx->l2 : LEVEL_DRAM_WANT;
    b.bytes = experiments_fit_device(want, 64 * MIB, 1);
    cudacheck_reset();
    if (hierarchy_setup(ctx, &b, &e)) {
        for (size_t k = 0; k < NLEVELS && !ctx->broken; k++)
            level_row(ctx, &b, &level_variants[k], &e);
    } else {
        for (size_t k = 0; k < NLEVELS; k++) {
            run_result r;
            experiments_row_start(ctx, &r, level_variants[k].id, level_variants[k].label, "");
            experiments_row_failed(ctx, &r, &e);
        }
    }
    free(b.pattern);
    free(b.hout);
    buffer_free(&b.src);
    buffer_free(&b.out);
}

/* ---- memory fences ------------------------------------------------------------------------- */

#define FENCE_SPIN (1LL << 24)

typedef struct fence_job {
    float *payload;
    int *flags;
    unsigned int *stale;
    int blocks, epoch, fence;
    long long launches;
} fence_job;

static bool fence_once(void *ud, cudaStream_t s, cl_err *e)
{
    fence_job *j = ud;
    j->epoch++;
    j->launches++;
    CUDA_CHECK(e, basics_fence_run(j->payload, j->flags, j->stale, j->blocks, j->epoch, j->fence,
                                   FENCE_SPIN, s));
    return true;
}

static void fence_row(xctx *x, fence_job *j, const char *id, const char *label, const char *sz)
{
    cl_err e = {{0}};
    run_result r;
    unsigned int stale[2] = {0, 0};
    timing_result tr;
    experiments_row_start(x, &r, id, label, sz);
    j->launches = 0;
    CUDA_CHECK_GOTO(&e, cudaMemsetAsync(j->stale, 0, sizeof stale, x->s), fail);
    if (!fence_once(j, x->s, &e) || !experiments_time_job(x, fence_once, j, 0, 5, 0, &tr, &e) ||
        !experiments_download(x, stale, j->stale, sizeof stale, &e))
        goto fail;
    experiments_set_timing(&r, &tr);
    double reads = (double)j->launches * j->blocks * BASICS_LEVEL_BLOCK;
    /* With the fences a stale read is a bug; without them it is what the
     * experiment shows, counted in the note, not a failed check (it may
     * show or not on any run). */
    r.status = !j->fence || (stale[0] == 0 && stale[1] == 0) ? RS_CORRECT : RS_WRONG;
    if (j->fence)
        engine_row_note(&r, "producer: payload, __threadfence(), flag; consumer: flag, "
                            "__threadfence(), payload.  %.0f reads over %lld launches, %u "
                            "saw an old payload, %u flags never came: the fences make the "
                            "payload visible before the flag, always", reads, j->launches,
                        stale[0], stale[1]);
    else
        engine_row_note(&r, "the same without either fence: %.0f reads over %lld launches, "
                            "%u saw an old payload, %u flags never came.  Nothing orders the "
                            "payload's stores before the flag's for another block: the "
                            "compiler may move them, the memory system may make them "
                            "visible in another order, so a consumer may read the old "
                            "payload after the new flag.  A run that sees none has been "
                            "lucky, not correct", reads, j->launches, stale[0], stale[1]);
    engine_row_emit(&x->rows, &r);
    return;
fail:
    experiments_row_failed(x, &r, &e);
}

void experiments_fences(xctx *ctx)
{
    cl_err e = {{0}};
    run_result r;
    gpu_buffer payload = {0}, flags = {0}, stale = {0};
    int coop = 0, blocks = ctx->dev.sm_count;
    char sz[48];
    snprintf(sz, sizeof sz, "%d blocks x %d threads", blocks, BASICS_LEVEL_BLOCK);
    cudacheck_reset();
    CUDA_CHECK_GOTO(&e, cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch,
                                               ctx->dev.ordinal), fail);
    if (!coop || blocks < 2) {
        err_set(&e, "this device cannot launch a cooperative kernel, which the experiment needs "
                    "so that every block runs at once");
        goto fail;
    }
    if (!buffer_alloc(&payload, (size_t)blocks * BASICS_LEVEL_BLOCK * sizeof(float), &e) ||
        !buffer_alloc(&flags, (size_t)blocks * sizeof(int), &e) ||
        !buffer_alloc(&stale, 2 * sizeof(unsigned int), &e))
        goto fail;
    CUDA_CHECK_GOTO(&e, cudaMemsetAsync(flags.ptr, 0, flags.bytes, ctx->s), fail);
    CUDA_CHECK_GOTO(&e, cudaMemsetAsync(payload.ptr, 0, payload.bytes, ctx->s), fail);
    fence_job j = {.payload = payload.ptr, .flags = flags.ptr, .stale = stale.ptr,
                   .blocks = blocks, .epoch = 0, .fence = 1, .launches = 0};
    fence_row(ctx, &j, "fence_with", "with __threadfence()", sz);
    j.fence = 0;
    if (!ctx->broken)
        fence_row(ctx, &j, "fence_without", "without a fence", sz);
    goto done;
fail:
    experiments_row_start(ctx, &r, "fence_with", "with __threadfence()", sz);
    experiments_row_failed(ctx, &r, &e);
    experiments_row_start(ctx, &r, "fence_without", "without a fence", sz);
    experiments_row_failed(ctx, &r, &e);
done:
    buffer_free(&payload);
    buffer_free(&flags);
    buffer_free(&stale);
}
