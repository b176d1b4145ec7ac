/* engine_python.c - a lab's Python row (a rung `variant { python = ... }`
 * or a Python exercise), measured on the worker's own buffers.
 *
 * The worker keeps the buffers it allocated, filled and poisons; a python3
 * child (python/cudalab_bridge.py, lab/pyenv.h for how it is started) maps
 * them through CUDA IPC handles and calls the row's run(args).  A check is
 * one call in the child, after which the worker downloads and judges the
 * outputs with the problem's own judge; timing is the child's, by the
 * engine's rules (gpu/timing.h) passed in the request, with a canary
 * repetition among its runs (engine/engine_canary.h), and the worker makes
 * the row's figures from its samples and refuses those no GPU could reach
 * (engine/roofline.h).  After timing, one more check on fresh inputs.  One child a row, kept across the
 * sizes of a request (the row's module and its compiled kernels stay
 * loaded), started again after it failed.  Whatever goes wrong in Python
 * (an exception, a syntax error, a missing package, a hang, a CUDA error
 * in the child's own context) is the row's error with file:line; the
 * worker's context is not the child's and carries on.  The child itself
 * is engine/pybridge.h's. */
#include "engine/engine.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/stats.h"
#include "gpu/cudacheck.h"
#include "lab/pyenv.h"
#include "engine/engine_canary.h"
#include "engine/engine_internal.h"
#include "engine/pybridge.h"

#define PY_OPEN_S 180.0        /* importing CuPy and Numba, JIT-compiling the row */
#define PY_RUN_S 60.0          /* one call of run(args) */

/* Whether b is an input whose elements the canary may move between
 * repetitions (engine_canary.h's canary_shuffle). */
static bool shuffled_input(problem_data *p, const gpu_buffer *b)
{
    problem_input in[CANARY_MAX_INPUTS];
    int n = problem_inputs(p, in, CANARY_MAX_INPUTS);
    for (int i = 0; i < n; i++)
        if (in[i].buf == b)
            return in[i].elem_bytes > 0 && in[i].count >= 2;
    return false;
}

/* The open request: the row's file and this size's buffers as IPC
 * handles.  NULL with msg when a buffer cannot be shared. */
static cJSON *open_request(const pyrow *py, problem_data *p, const char *label, char *msg,
                           size_t n)
{
    static const char *const dtypes[] = {"f32", "i32", "bf16", "f64", "u32", "u8"};
    problem_arg a[PROBLEM_MAX_ARGS];
    int na = problem_args(p, a);
    cJSON *j = pybridge_command("open"), *args = cJSON_CreateArray();
    int dev = 0;
    char pci[32] = "";
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetPCIBusId(pci, sizeof pci, dev) != cudaSuccess)
        pci[0] = '\0';
    if (!j || !args || !cJSON_AddStringToObject(j, "file", pybridge_path(py)) ||
        !cJSON_AddStringToObject(j, "name", pybridge_shown(py)) ||
        !cJSON_AddNumberToObject(j, "device", dev) || !cJSON_AddStringToObject(j, "pci", pci) ||
        !cJSON_AddStringToObject(j, "size", label))
        goto oom;
    cJSON_AddItemToObject(j, "args", args);
    for (int i = 0; i < na; i++) {
        cJSON *o = cJSON_CreateObject();
        if (!o)
            goto oom;
        cJSON_AddItemToArray(args, o);
        cJSON_AddStringToObject(o, "name", a[i].name);
        if (!a[i].buf && !a[i].host) {
            cJSON_AddStringToObject(o, "kind", "scalar");
            cJSON_AddNumberToObject(o, "value", a[i].is_number ? a[i].number : (double)a[i].value);
            continue;
        }
        if (!a[i].buf || a[i].managed) {
            snprintf(msg, n, "%s: a Python row needs device buffers; '%s' is %s memory",
                     pybridge_shown(py),
                     a[i].name, a[i].managed ? "managed" : "host");
            cJSON_Delete(j);
            return NULL;
        }
        int dt = a[i].typed ? a[i].dtype : a[i].i32 ? 1 : a[i].bf16 ? 2 : 0;
        cudaIpcMemHandle_t h;
        cudaError_t st = cudaIpcGetMemHandle(&h, a[i].buf->ptr);
        if (st != cudaSuccess) {
            cudaGetLastError();
            snprintf(msg, n,
                     "%s: buffer '%s' cannot be shared with python3 (cudaIpcGetMemHandle: %s)",
                     pybridge_shown(py), a[i].name, cudaGetErrorString(st));
            cJSON_Delete(j);
            return NULL;
        }
        char hex[2 * sizeof h.reserved + 1];
        for (size_t k = 0; k < sizeof h.reserved; k++)
            snprintf(hex + 2 * k, 3, "%02x", (unsigned char)h.reserved[k]);
        cJSON_AddStringToObject(o, "kind", "buffer");
        cJSON_AddBoolToObject(o, "output", a[i].output);
        cJSON_AddBoolToObject(o, "shuffle", !a[i].output && shuffled_input(p, a[i].buf));
        cJSON_AddStringToObject(o, "dtype", dt >= 0 && dt < 6 ? dtypes[dt] : "f32");
        cJSON_AddNumberToObject(o, "count", (double)a[i].count);
        /* the whole allocation, guard bytes after the elements included */
        cJSON_AddNumberToObject(o, "bytes", (double)a[i].buf->bytes);
        cJSON_AddStringToObject(o, "handle", hex);
    }
    return j;
oom:
    cJSON_Delete(j);
    if (!j)
        cJSON_Delete(args);
    snprintf(msg, n, "out of memory");
    return NULL;
}

/* The timing request: the engine's rules (gpu/timing.h), when the
 * working set is under 4x the L2 a flush buffer of twice the L2, and the
 * canary's draw (0: none; 52 bits of it, which JSON carries exactly). */
static cJSON *time_request(const engine_ctx *c, const problem_data *p, uint64_t draw)
{
    double budget_s = c->req->budget_s > 0.0 ? c->req->budget_s : TIMING_DEFAULT_BUDGET_S;
    size_t l2 = (size_t)(engine_g.dev.l2_mib * MIB);
    size_t ws = (size_t)problem_spec_bytes(c->ops->spec, &p->d);
    cJSON *j = pybridge_command("time");
    if (!j)
        return NULL;
    cJSON_AddNumberToObject(j, "budget_ms", 1e3 * budget_s);
    cJSON_AddNumberToObject(j, "min", TIMING_MIN_SAMPLES);
    cJSON_AddNumberToObject(j, "max", TIMING_MAX_SAMPLES);
    cJSON_AddNumberToObject(j, "spread", TIMING_TARGET_SPREAD);
    cJSON_AddNumberToObject(j, "warmup_ms", TIMING_WARMUP_MS);
    cJSON_AddNumberToObject(j, "batch", TIMING_MAX_BATCH);
    cJSON_AddNumberToObject(j, "wall_factor", TIMING_WALL_FACTOR);
    cJSON_AddNumberToObject(j, "flush_bytes", l2 > 0 && ws < 4 * l2 ? (double)(2 * l2) : 0.0);
    if (draw)
        cJSON_AddNumberToObject(j, "canary", (double)((draw & ((1ull << 52) - 1)) | 1u));
    return j;
}

/* What the row printed, to the log. */
static void flush_output(const engine_ctx *c, pyrow *py)
{
    char out[4096], msg[4096 + 320];
    if (!pybridge_take_output(py, out, sizeof out))
        return;
    snprintf(msg, sizeof msg, "%s printed: %s", pybridge_shown(py), out);
    engine_row_log(&c->rows, 0, msg);
}

/* Poison the outputs, one call in the child, download and judge. */
static bool checked_call(pyrow *py, problem_data *p, check_report *rep, bool *gpu_failed,
                         cl_err *e, char *msg, size_t n)
{
    *gpu_failed = true;
    if (!problem_poison(p, engine_g.stream, e))
        return false;
    CUDA_CHECK(e, cudaStreamSynchronize(engine_g.stream));
    *gpu_failed = false;
    if (!pybridge_call(py, pybridge_command("run"), PY_RUN_S, NULL, msg, n))
        return false;
    *gpu_failed = true;
    if (!problem_download(p, engine_g.stream, e))
        return false;
    *rep = problem_check(p);
    *gpu_failed = false;
    return true;
}

/* The child's samples into r (median, spread) and the repetition that was
 * its canary into *canary_rep (-1: none); false with msg. */
static bool time_row(const engine_ctx *c, pyrow *py, const problem_data *p, uint64_t draw,
                     run_result *r, int *canary_rep, char *msg, size_t n)
{
    double budget_s = c->req->budget_s > 0.0 ? c->req->budget_s : TIMING_DEFAULT_BUDGET_S;
    cJSON *rep = NULL;
    double limit_s = PY_RUN_S + 12.0 * budget_s * TIMING_WALL_FACTOR;
    *canary_rep = -1;
    if (!pybridge_call(py, time_request(c, p, draw), limit_s, &rep, msg, n))
        return false;
    const cJSON *times = cJSON_GetObjectItemCaseSensitive(rep, "times"), *t;
    const cJSON *ran = cJSON_GetObjectItemCaseSensitive(rep, "canary_rep");
    int k = cJSON_GetArraySize(times), i = 0;
    double *v = k > 0 ? calloc((size_t)k, sizeof *v) : NULL;
    if (!v) {
        snprintf(msg, n, "%s: no timing samples came back", pybridge_shown(py));
        cJSON_Delete(rep);
        return false;
    }
    cJSON_ArrayForEach(t, times)
    {
        if (cJSON_IsNumber(t) && t->valuedouble >= 0.0)
            v[i++] = t->valuedouble;
    }
    if (draw && cJSON_IsNumber(ran) && ran->valuedouble >= 0.0 && ran->valuedouble < k)
        *canary_rep = (int)ran->valuedouble;
    stats_summary s = stats_summarise(v, (size_t)i);
    r->median_ms = s.median;
    r->min_ms = s.min;
    r->max_ms = s.max;
    r->spread = s.spread;
    r->samples = i;
    free(v);
    cJSON_Delete(rep);
    if (i == 0)
        snprintf(msg, n, "%s: no timing samples came back", pybridge_shown(py));
    return i > 0;
}

/* After timing: the row's verdict, the first check's unless only a later
 * one failed: the canary, the inputs the child sent back, or one more
 * check on fresh inputs.  false with e (*gpu_failed) or msg. */
static bool verdict(engine_ctx *ctx, pyrow *py, problem_data *data, const check_report *first,
                    canary *cv, run_result *row, bool *gpu_failed, cl_err *e, char *msg,
                    size_t n)
{
    if (first->status != CHECK_OK) {
        problem_report(first, row);
        return true;
    }
    *gpu_failed = true;
    if (canary_judge(cv, row))
        return true;
    if (!engine_fresh_prepare(ctx, data, row->variant, ctx->seed++, e) ||
        !problem_upload(data, engine_g.stream, e))
        return false;
    engine_row_progress(&ctx->rows, "check", 1, 2);
    check_report last = {0};
    if (!checked_call(py, data, &last, gpu_failed, e, msg, n))
        return false;
    if (last.status != CHECK_OK) {
        problem_report(&last, row);
        char m[sizeof row->message];
        snprintf(m, sizeof m, "after timing: %s", row->message);
        snprintf(row->message, sizeof row->message, "%s", m);
    } else {
        problem_report(first, row);
    }
    return true;
}

/* After a correct first check: a canary staged (the fresh inputs in the
 * worker's buffers, which the child copies in at its canary repetition),
 * the child's timing, the verdict and the row's figures.  false with e
 * (*gpu_failed) or msg. */
static bool timed(engine_ctx *ctx, pyrow *py, problem_data *data, const check_report *first,
                  const row_rates *rates, run_result *row, bool *gpu_failed, cl_err *e,
                  char *msg, size_t n)
{
    canary cv;
    memset(&cv, 0, sizeof cv);
    bool ok = false;
    int ran = -1;
    *gpu_failed = true;
    if (first->status == CHECK_OK && !canary_open(ctx, data, row->variant, false, &cv, e))
        goto done;
    *gpu_failed = false;
    engine_row_progress(&ctx->rows, "timing", 0, 1);
    if (!time_row(ctx, py, data, cv.ready ? cv.draw : 0, row, &ran, msg, n))
        goto done;
    *gpu_failed = true;
    if (cv.ready && ran >= 0 && !canary_after(&cv, e))
        goto done;
    if (!verdict(ctx, py, data, first, &cv, row, gpu_failed, e, msg, n))
        goto done;
    if (cv.note[0])
        engine_row_note(row, "%s", cv.note);
    else if (cv.ready && ran < 0)
        engine_row_note(row, "no canary repetition: python3 had no room for its own copy of "
                             "the buffers");
    engine_rows_derive(ctx, data, false, rates, &engine_g.dev, row);
    /* the child flushes the L2 before each repetition when the data would fit */
    engine_rows_floor(ctx, data, &engine_g.dev, true, row);
    ok = true;
done:
    canary_close(&cv);
    return ok;
}

bool engine_python_measure(engine_ctx *ctx, pyrow *py, problem_data *data, const char *label,
                           const row_rates *rates, run_result *row)
{
    cl_err e = {{0}};
    char msg[CL_ERR_MAX] = "";
    double t0 = clock_now_ms();
    bool ok = true, gpu_failed = false;
    ctx->rows.variant = row->variant;
    cudacheck_reset();
    if (!engine_row_prepare(ctx, data, row, &ok))
        goto done;
    if (!problem_upload(data, engine_g.stream, &e)) {
        gpu_failed = true;
        goto failed;
    }
    if (!pybridge_live(py) && !pybridge_start(py, msg, sizeof msg))
        goto failed;
    cJSON *open = open_request(py, data, label, msg, sizeof msg);
    if (!open || !pybridge_call(py, open, PY_OPEN_S, NULL, msg, sizeof msg))
        goto failed;
    check_report first = {0};
    if (!checked_call(py, data, &first, &gpu_failed, &e, msg, sizeof msg))
        goto failed;
    engine_row_progress(&ctx->rows, "check", 1, 1);
    if (ctx->req->check_only)
        problem_report(&first, row);
    else if (!timed(ctx, py, data, &first, rates, row, &gpu_failed, &e, msg, sizeof msg))
        goto failed;
    if (pybridge_live(py))
        (void)pybridge_call(py, pybridge_command("release"), PY_RUN_S, NULL, msg, sizeof msg);
    goto done;

failed:
    if (gpu_failed)
        ok = engine_gpu_failed(ctx, row, &e, false);
    else
        engine_row_error(row, msg[0] ? msg : "the Python row failed");
    /* the child lets go of this size's buffers before they are freed */
    if (ok && pybridge_live(py))
        (void)pybridge_call(py, pybridge_command("release"), PY_RUN_S, NULL, msg, sizeof msg);
done:
    flush_output(ctx, py);
    row->wall_ms = clock_now_ms() - t0;
    ctx->rows.variant = NULL;
    return ok;
}

size_t engine_python_import_dirs(char **out, size_t max)
{
    return pyenv_import_dirs(out, max);
}

bool engine_python_exercise(const run_request *req)
{
    size_t n = strlen(req->exercise_kernel);
    return n > 3 && strcmp(req->exercise_kernel + n - 3, ".py") == 0 && !req->exercise_launcher[0];
}
