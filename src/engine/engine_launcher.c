#include "engine/engine.h"

#include <stdio.h>
#include <string.h>

#include "core/paths.h"
#include "engine/engine_internal.h"
#include "engine/exercise.h"
#include "engine/pipe_timeline.h"
#include "engine/problem.h"

/* ---- the learner's kernel ------------------------------------------------ */

#define EXERCISE_MAX_DIAGS 10
#define LOG_CHUNK 960

/* Sends text to the log in pieces that fit a log message, split at line
 * ends where possible; the first piece starts with prefix. */
static void log_text(const engine_ctx *c, int level, const char *prefix, const char *text)
{
    size_t len = strlen(text);
    while (len > 0 && text[len - 1] == '\n')
        len--;
    for (size_t off = 0; off < len;) {
        size_t n = len - off;
        if (n > LOG_CHUNK) {
            n = LOG_CHUNK;
            for (size_t k = LOG_CHUNK; k > LOG_CHUNK / 2; k--)
                if (text[off + k - 1] == '\n') {
                    n = k;
                    break;
                }
        }
        char msg[LOG_CHUNK + 128];
        snprintf(msg, sizeof msg, "%s%.*s", off == 0 ? prefix : "", (int)n, text + off);
        size_t ml = strlen(msg);
        while (ml > 0 && msg[ml - 1] == '\n')
            msg[--ml] = '\0';
        engine_row_log(&c->rows, level, msg);
        off += n;
    }
}

/* "sm_86" for the device, or NULL (NVRTC's default) without one.  A
 * Hopper GPU (9.0) gets "sm_90a": the code runs on that chip only, which
 * is the one it is compiled for, and wgmma and the tensor memory
 * accelerator's instructions are open to the learner's inline PTX. */
static const char *device_arch(char *buf, size_t n)
{
    if (!engine_g.dev.present || engine_g.dev.cc_major <= 0)
        return NULL;
    bool hopper = engine_g.dev.cc_major == 9 && engine_g.dev.cc_minor == 0;
    snprintf(buf, n, "sm_%d%d%s", engine_g.dev.cc_major, engine_g.dev.cc_minor,
             hopper ? "a" : "");
    return buf;
}

/* What the compiler said: every diagnostic (errors at level 2, warnings at
 * 1) and each kernel's registers, shared memory and spills (level 0). */
static void log_program(const engine_ctx *c, const exercise *x)
{
    const nvrtc_output *prog = exercise_program(x);
    size_t shown = 0;
    for (size_t i = 0; i < prog->ndiags && shown < EXERCISE_MAX_DIAGS; i++) {
        const nvrtc_diag *d = &prog->diags[i];
        if (d->severity == NVRTC_SEV_REMARK)
            continue;
        char text[NVRTC_TEXT_MAX * 3 + NVRTC_FILE_MAX];
        nvrtc_diag_format(d, text, sizeof text);
        log_text(c, d->severity == NVRTC_SEV_ERROR ? 2 : 1, "", text);
        shown++;
    }
    if (prog->compile_error)
        return;
    for (size_t i = 0; i < prog->nkernels; i++) {
        const nvrtc_kernel *k = &prog->kernels[i];
        if (k->registers < 0)
            continue;
        char spills[64] = "no spills";
        if (k->spill_stores > 0 || k->spill_loads > 0)
            snprintf(spills, sizeof spills, "spills %d B stored, %d B loaded",
                     k->spill_stores > 0 ? k->spill_stores : 0,
                     k->spill_loads > 0 ? k->spill_loads : 0);
        char msg[512];
        snprintf(msg, sizeof msg,
                 "your kernel %s (%s): %d registers a thread, %d B static shared memory, %s",
                 k->base, prog->arch, k->registers, k->shared_bytes > 0 ? k->shared_bytes : 0,
                 spills);
        engine_row_log(&c->rows, 0, msg);
    }
}

void engine_launcher_open(engine_ctx *ctx, const char *kernel, const char *launcher,
                          const char *root, bool learner, const char *what, exercise **out,
                          char *msg, size_t msg_size)
{
    char arch[16];
    exercise_opts o = {
        .kernel = kernel,
        .launcher = launcher,
        .root = root,
        .arch = device_arch(arch, sizeof arch),
        .device = engine_g.dev.present,
        .no_device = engine_g.dev.reason,
    };
    cl_err e = {{0}};
    *out = exercise_open(&o, &e);
    if (!*out) {
        snprintf(msg, msg_size, "%s", e.msg);
        return;
    }
    exercise_stage st = exercise_status(*out, NULL);
    if (learner)
        log_program(ctx, *out);
    if (st == EXERCISE_READY || st == EXERCISE_NO_DEVICE) {
        msg[0] = '\0';
        return;
    }
    /* a file of the lab folder is named from the folder, as in the lab */
    char full[CL_ERR_MAX];
    exercise_why(*out, learner ? NULL : root, full, sizeof full);
    snprintf(msg, msg_size, "%s%s%s", learner ? "" : what, learner ? "" : ": ", full);
    if (st == EXERCISE_LAUNCHER && exercise_traceback(*out)[0])
        log_text(ctx, 2, "", exercise_traceback(*out));
}

/* Compiles and loads the learner's kernel and launcher once a request. */
void engine_launcher_open_exercise(engine_ctx *ctx)
{
    if (engine_python_exercise(ctx->req)) {
        /* the learner's Python file: nothing to compile, python3 runs it */
        ctx->pyex = engine_python_open(ctx->req->exercise_kernel,
                                       paths_base_name(ctx->req->exercise_kernel), ctx->ex_msg,
                                       sizeof ctx->ex_msg);
        return;
    }
    engine_launcher_open(ctx, ctx->req->exercise_kernel, ctx->req->exercise_launcher, NULL, true,
                         "", &ctx->ex, ctx->ex_msg, sizeof ctx->ex_msg);
}

/* The pipeline lab's starter (engine/pipe.h), once a request. */
void engine_launcher_open_starter(engine_ctx *ctx)
{
    char kernel[CL_PATH_MAX], launcher[CL_PATH_MAX];
    cl_err e = {{0}};
    if (!pipeline_starter_files(kernel, sizeof kernel, launcher, sizeof launcher, &e)) {
        snprintf(ctx->starter_msg, sizeof ctx->starter_msg, "%s", e.msg);
        return;
    }
    engine_launcher_open(ctx, kernel, launcher, NULL, false, "the lab's starter", &ctx->starter,
                         ctx->starter_msg, sizeof ctx->starter_msg);
}

void engine_launcher_flush(const engine_ctx *ctx, exercise *ex)
{
    if (!ex)
        return;
    const char *out = exercise_output(ex);
    if (out[0])
        log_text(ctx, 0,
                 ex == ctx->ex        ? "your launcher printed: "
                 : ex == ctx->starter ? "the starter printed: "
                                      : "a launcher of the lab printed: ",
                 out);
    exercise_clear_output(ex);
}

void engine_launcher_log_trace(const engine_ctx *ctx, const exercise *ex)
{
    if (exercise_traceback(ex)[0])
        log_text(ctx, 2, "", exercise_traceback(ex));
}

bool engine_launcher_measure(engine_ctx *ctx, exercise *ex, problem_data *data, const char *label,
                             const row_rates *rates, run_result *row)
{
    cl_err e = {{0}};
    bool alive = true;
    if (!exercise_begin_size(ex, data, label, &e)) {
        engine_row_error(row, e.msg);
    } else {
        gpu_target t = {.once = exercise_call, .ud = ex, .p = data,
                        .sync_device = ctx->ops->spec->managed};
        alive = engine_gpu_measure(ctx, &t, rates, row);
        if (alive && row->status == RS_ERROR)
            engine_launcher_log_trace(ctx, ex);
    }
    exercise_end_size(ex);
    engine_launcher_flush(ctx, ex);
    return alive;
}

/* The exercise row of this size as an RS_ERROR: why the learner's kernel
 * cannot run when that is known, else msg. */
void engine_launcher_exercise_error_row(engine_ctx *ctx, const char *msg, bool no_device)
{
    if (!ctx->req->exercise_kernel[0])
        return;
    run_result r;
    engine_row_start(&ctx->rows, &r, "exercise", "your kernel", RK_EXERCISE);
    if (no_device && strncmp(ctx->ex_msg, "unavailable: ", 13) == 0) {
        /* a Python exercise whose packages are missing, on a machine with
         * no device either: the device first, as for every GPU row */
        char both[sizeof ctx->ex_msg + CL_ERR_MAX];
        snprintf(both, sizeof both, "%s; and this row is %s", msg, ctx->ex_msg);
        engine_row_no_device(&r, both);
    } else if (ctx->ex_msg[0])
        engine_row_error(&r, ctx->ex_msg);
    else if (no_device)
        engine_row_no_device(&r, msg);
    else
        engine_row_error(&r, msg);
    engine_row_emit(&ctx->rows, &r);
}

/* Measures the learner's kernel at this size like any other row.  false
 * only when the context broke. */
bool engine_launcher_exercise_row(engine_ctx *ctx, problem_data *data, const char *label,
                                  const row_rates *rates)
{
    if (ctx->pyex) {
        run_result r;
        engine_row_start(&ctx->rows, &r, "exercise", "your kernel", RK_EXERCISE);
        bool alive = engine_python_measure(ctx, ctx->pyex, data, label, rates, &r);
        if (alive)
            engine_row_emit(&ctx->rows, &r);
        return alive;
    }
    if (!ctx->ex || exercise_status(ctx->ex, NULL) != EXERCISE_READY) {
        const char *why = NULL;
        bool nodev = ctx->ex && exercise_status(ctx->ex, &why) == EXERCISE_NO_DEVICE;
        engine_launcher_exercise_error_row(ctx, why && why[0] ? why : "your kernel cannot run",
                                           nodev);
        return true;
    }
    run_result r;
    engine_row_start(&ctx->rows, &r, "exercise", "your kernel", RK_EXERCISE);
    bool alive = engine_launcher_measure(ctx, ctx->ex, data, label, rates, &r);
    if (alive)
        engine_row_emit(&ctx->rows, &r);
    return alive;
}
