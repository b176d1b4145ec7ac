#include "experiments/experiments.h"

#include <stdio.h>
#include <string.h>
#include <cuda_runtime_api.h>

#include "core/paths.h"
#include "core/rng.h"
#include "core/strfmt.h"
#include "prof/trace.h"
#include "gpu/buffer.h"
#include "gpu/cudacheck.h"
#include "gpu/cupti.h"
#include "gpu/nvtx.h"
#include "experiments/experiments_internal.h"

#define X_DEFAULT_BUDGET_S 0.25

/* ---- the run ---------------------------------------------------------------------------------- */

/* What runs each experiment of the catalogue (catalog/experiments_list.h). */
typedef struct experiment {
    const char *id;
    void (*run)(xctx *x);
} experiment;

static const experiment experiments[] = {
    {"transfers", experiments_transfers}, {"overlap", experiments_overlap},
    {"stride", experiments_stride},       {"gemv", experiments_gemv},
    {"blocksize", experiments_blocksize}, {"transpose", experiments_transpose},
    {"timing", experiments_timing},       {"roofline", experiments_roofline},
    {"divergence", experiments_divergence}, {"occupancy", experiments_occupancy},
    {"hierarchy", experiments_hierarchy},   {"fences", experiments_fences},
};
#define NEXP (sizeof experiments / sizeof experiments[0])

static const experiment *experiment_find(const char *id)
{
    for (size_t i = 0; id && i < NEXP; i++)
        if (strcmp(experiments[i].id, id) == 0)
            return &experiments[i];
    return NULL;
}

static void unknown_row(xctx *x, const char *id)
{
    run_result r;
    experiments_row_start(x, &r, id, id, "");
    char known[256] = "";
    size_t len = 0;
    size_t nids = 0;
    const char *const *ids = experiments_ids_of(x->req->problem, &nids);
    for (size_t i = 0; i < nids; i++)
        len = strfmt_append(known, sizeof known, len, "%s%s", i ? ", " : "", ids[i]);
    snprintf(r.message, sizeof r.message, "unknown experiment '%s' (known: %s)", id, known);
    engine_row_emit(&x->rows, &r);
}

/* Whether id is one of the request's problem's experiments. */
static bool known_here(const xctx *x, const char *id)
{
    const char *of = experiments_problem_of(id);
    return of && strcmp(of, x->req->problem) == 0;
}

static void absent_rows(xctx *x, const char *const *ids, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!known_here(x, ids[i])) {
            unknown_row(x, ids[i]);
            continue;
        }
        run_result r;
        experiments_row_start(x, &r, ids[i], ids[i], "");
        engine_row_error(&r, x->dev.reason[0] ? x->dev.reason : "no CUDA device found");
        r.status = RS_NO_DEVICE;
        engine_row_emit(&x->rows, &r);
    }
}

/* Writes the recorded timeline to the data folder and announces it. */
static void save_timeline(xctx *x, const timeline *t)
{
    char path[CL_PATH_MAX], dir[CL_PATH_MAX], msg[CL_PATH_MAX + 128];
    cl_err e = {{0}};
    if (!experiments_timeline_file(path, sizeof path, &e)) {
        snprintf(msg, sizeof msg, "timeline not saved: %s", e.msg);
        engine_row_log(&x->rows, 1, msg);
        return;
    }
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    if (!paths_mkdir_p(dir, &e) || !trace_write(t, path, &e)) {
        snprintf(msg, sizeof msg, "timeline not saved: %s", e.msg);
        engine_row_log(&x->rows, 1, msg);
        return;
    }
    uint64_t t0 = 0, t1 = 0;
    timeline_span(t, &t0, &t1);
    char span[32];
    timeline_format_ns((double)(t1 - t0), span, sizeof span);
    snprintf(msg, sizeof msg, "%s%s (%zu events over %s%s)", EXPERIMENTS_TIMELINE_LOG, path,
             t->nitems, span, t->dropped ? ", some records lost" : "");
    engine_row_log(&x->rows, 0, msg);
}

/* The request's experiment ids into ids (RUN_MAX_VARIANTS of them at
 * most): its variants', or none named, all of its problem's. */
static size_t requested_ids(const run_request *req, const char **ids)
{
    size_t nids = 0;
    if (req->nvariants == 0) {
        size_t nall = 0;
        const char *const *all = experiments_ids_of(req->problem, &nall);
        for (size_t i = 0; i < nall && nids < RUN_MAX_VARIANTS; i++)
            ids[nids++] = all[i];
    } else {
        for (int i = 0; i < req->nvariants; i++)
            ids[nids++] = req->variants[i].id;
    }
    return nids;
}

static void log_not_recorded(xctx *x, const cl_err *e)
{
    char msg[CL_ERR_MAX + 64];
    snprintf(msg, sizeof msg, "timeline not recorded: %s", e->msg);
    engine_row_log(&x->rows, 1, msg);
}

/* Each experiment of ids in turn, until the context breaks. */
static void run_experiments(xctx *x, const char *const *ids, size_t nids)
{
    for (size_t i = 0; i < nids && !x->broken; i++) {
        const experiment *xp = known_here(x, ids[i]) ? experiment_find(ids[i]) : NULL;
        if (!xp) {
            unknown_row(x, ids[i]);
            continue;
        }
        nvtx_push(xp->id);
        xp->run(x);
        nvtx_pop();
    }
}

/* Ends the CUPTI recording: saved while the context lives, dropped when
 * it broke. */
static void stop_timeline(xctx *x, bool alive, cl_err *e)
{
    timeline t;
    if (alive && cupti_stop(&t, e)) {
        save_timeline(x, &t);
        timeline_free(&t);
    } else if (alive) {
        log_not_recorded(x, e);
    } else {
        cupti_stop(&t, NULL);
        timeline_free(&t);
    }
    if (cupti_warnings()[0])
        engine_row_log(&x->rows, 1, cupti_warnings());
}

bool experiments_run(const run_request *req, const engine_sink *sink, run_fault *fault)
{
    xctx x;
    memset(&x, 0, sizeof x);
    x.req = req;
    x.rows = (row_channel){.sink = sink, .fault = fault, .run = req->run, .exercise = ""};
    x.seed = req->seed ? req->seed : rng_fresh_seed();
    x.budget_s = req->budget_s > 0.0 ? req->budget_s : X_DEFAULT_BUDGET_S;
    engine_probe(&x.dev);

    const char *ids[RUN_MAX_VARIANTS];
    size_t nids = requested_ids(req, ids);
    if (!x.dev.present) {
        absent_rows(&x, ids, nids);
        return true;
    }

    cl_err e = {{0}};
    cudacheck_reset();
    cudaError_t st = cudaStreamCreateWithFlags(&x.s, cudaStreamNonBlocking);
    if (st != cudaSuccess) {
        x.s = NULL;
        snprintf(x.dev.reason, sizeof x.dev.reason, "cannot create a CUDA stream: %s",
                 cudaGetErrorString(st));
        absent_rows(&x, ids, nids);
        return !cudacheck_is_sticky(st);
    }
    x.l2 = (size_t)(x.dev.l2_mib * (double)MIB);
    if (x.l2 > 0 && !buffer_alloc(&x.flush, 2 * x.l2, NULL))
        cudaGetLastError();

    bool recording = cupti_start(x.dev.name, &e);
    if (!recording)
        log_not_recorded(&x, &e);
    run_experiments(&x, ids, nids);
    bool alive = !x.broken;
    if (recording)
        stop_timeline(&x, alive, &e);
    buffer_free(&x.flush);
    if (alive)
        cudaStreamDestroy(x.s);
    return alive;
}
