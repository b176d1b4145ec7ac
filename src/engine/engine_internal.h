/* engine_internal.h - what the pieces of the measurement engine share: the
 * worker-wide device state, the request in flight, what a GPU row runs,
 * and the functions each piece offers the others (a row's life is
 * engine/engine_row.h, shared with the experiments).
 * Private to src/engine/ (engine_cpu, engine_row, exercise, pipe and the
 * problem files have their own headers). */
#ifndef CUDALAB_ENGINE_ENGINE_INTERNAL_H
#define CUDALAB_ENGINE_ENGINE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "core/devinfo.h"
#include "core/err.h"
#include "gpu/buffer.h"
#include "gpu/timing.h"
#include "kernels.h"
#include "engine/engine.h"
#include "engine/engine_row.h"
#include "engine/exercise.h"
#include "engine/problem.h"
#include "engine/pybridge.h"
#include "result/record.h"

#define MIB (1024.0 * 1024.0)

typedef struct engine_state {
    bool probed;
    device_info dev;
    char note[512];          /* said once, in the first run's log */
    cudaStream_t stream;
    bool have_stream;
    gpu_buffer flush;
    bool flush_tried;
} engine_state;

/* The device, its stream and flush buffer: one a worker (engine_device.c). */
extern engine_state engine_g;

/* One request in flight. */
typedef struct engine_ctx {
    const run_request *req;
    row_channel rows;        /* where the rows go; the size and row being measured */
    const problem_ops *ops;
    uint64_t seed;           /* next check's seed */
    exercise *ex;            /* the learner's kernel, when the request has one */
    char ex_msg[CL_ERR_MAX]; /* why it cannot run ("" when it can) */
    exercise *starter;       /* pipeline: the lab's starter launcher (engine/pipe.h) */
    char starter_msg[CL_ERR_MAX];
    /* A problem the lab declares (engine/engine_decl.c): the lab loaded from
     * req->lab_file, the problem's ops (c->ops points at them), and the
     * rungs of the lab folder by the request's variant index. */
    struct lab *lab;
    struct decl_problem *decl;
    exercise *rung[RUN_MAX_VARIANTS];
    char *rung_msg[RUN_MAX_VARIANTS];
    /* Python rows (engine_python.c): the rungs by variant index, and the
     * learner's file when the exercise is Python (its .py as the kernel). */
    pyrow *py[RUN_MAX_VARIANTS];
    pyrow *pyex;
    char ref_msg[CL_ERR_MAX];
} engine_ctx;

/* What a GPU row runs: once() enqueues one complete run on the stream (a
 * shipped launcher, the vendor library, the device-to-device copy, or one
 * call of the learner's launcher); every row is checked, timed and derived
 * the same way. */
typedef struct gpu_target {
    timing_fn once;
    void *ud;
    problem_data *p;
    bool copy;               /* the copy baseline: nothing to check */
    bool library;            /* failures carry the library's own message */
    bool sync_device;        /* each run ends with a device-wide wait (launchers that use
                              * streams of their own: their work counts in full) */
} gpu_target;

typedef struct shipped_call {
    const shipped_kernel *k;
    problem_data *p;
} shipped_call;

typedef struct row_rates {
    double cpu_ms, cpu_mt_ms, lib_ms;
} row_rates;

/* Whether req asks for the CPU baselines alone (no rung, library or
 * exercise): the grader's trusted pass (grade/grade_run.c), which needs
 * no device memory, reference kernel or check of its own, so none is made. */
static inline bool engine_cpu_only(const run_request *req)
{
    return req->cpu && req->nvariants == 0 && !req->library[0] && !req->exercise_kernel[0];
}

/* ---- engine_device.c: the device ---- */

/* Twice the L2 for flushing between repetitions; NULL when not to be had. */
void *engine_device_flush(size_t *bytes);

/* ---- engine_gpu.c: measuring a GPU row ---- */

/* timing_fns for a shipped launcher (ud: a shipped_call) and for the
 * device-to-device copy (ud: the problem_data). */
bool engine_gpu_shipped_once(void *ud, cudaStream_t stream, cl_err *err);
bool engine_gpu_copy_once(void *ud, cudaStream_t stream, cl_err *err);
/* After a failed CUDA call: true (and row an RS_ERROR with err's message, and
 * the library's when library is set) when the context still works; false
 * with the fault filled when it is broken. */
bool engine_gpu_failed(const engine_ctx *ctx, run_result *row, const cl_err *err, bool library);
/* After a failed problem_prepare: true with the fault filled (variant
 * RUN_FAULT_REFERENCE, err's message) when the reference broke the context. */
bool engine_reference_fault(const engine_ctx *ctx, const cl_err *err);
/* Fresh inputs and their reference for row (its seed recorded), with a
 * hang or a fault meanwhile the lab's, not the row's.  true when they are
 * ready; else *alive says whether the context survived (row then holds the
 * error) or broke (the fault is filled). */
bool engine_row_prepare(engine_ctx *ctx, problem_data *data, run_result *row, bool *alive);
/* Check with fresh inputs, time, recheck; false only when the context
 * broke (fault filled). */
bool engine_gpu_measure(engine_ctx *ctx, gpu_target *target, const row_rates *rates,
                        run_result *row);

/* ---- engine_rows.c: CPU rows and derived figures ---- */

/* Rates, speedups and percent of peak for row (dev NULL: no peak figures). */
void engine_rows_derive(const engine_ctx *ctx, const problem_data *data, bool copy,
                        const row_rates *rates, const device_info *dev, run_result *row);
/* A correct GPU row (not the copy) that ran faster than dev allows
 * (engine/roofline.h) becomes RS_WRONG saying so; cold: its repetitions
 * started with the L2 flushed, or its data far larger than the L2. */
void engine_rows_floor(const engine_ctx *ctx, const problem_data *data, const device_info *dev,
                       bool cold, run_result *row);
/* The CPU baseline on threads threads into row. */
void engine_rows_cpu(engine_ctx *ctx, problem_data *data, int threads, run_result *row);

/* ---- engine_decl.c: a problem the lab declares ---- */

/* Loads the lab of req->lab_file and points ctx->ops at its declared problem
 * req->problem, with its reference kernel and the rungs of the lab folder
 * opened; false with why in msg when the problem cannot run at all. */
bool engine_decl_open(engine_ctx *ctx, char *msg, size_t msg_size);
void engine_decl_close(engine_ctx *ctx);
/* The row of the request's library at this size when the problem is
 * declared (the builtin's library): into row, emitted later by the caller.
 * false only when the context broke. */
bool engine_decl_library(engine_ctx *ctx, problem_data *data, const row_rates *rates,
                         run_result *row);

/* ---- engine_python.c: a Python row (a rung or the exercise) ---- */

/* engine_python_open, engine_python_close: engine/pybridge.h */
/* Measures py at this size into row (made by the caller), as
 * engine_gpu_measure does; false only when the worker's context broke. */
bool engine_python_measure(engine_ctx *ctx, pyrow *py, problem_data *data, const char *label,
                           const row_rates *rates, run_result *row);
/* Whether req's exercise is a Python file (its kernel ends in .py). */
bool engine_python_exercise(const run_request *req);

/* ---- engine_launcher.c: the learner's kernel and the pipeline lab's starter ---- */

/* Compiles and loads a kernel file and its launcher into *out (root: the
 * folder its includes stay in, NULL: its own), with why it cannot run (or
 * "") in msg.  learner: the learner's own files, whose compiler output
 * goes to the log; what: how messages name it otherwise. */
void engine_launcher_open(engine_ctx *ctx, const char *kernel, const char *launcher,
                          const char *root, bool learner, const char *what, exercise **out,
                          char *msg, size_t msg_size);
/* Measures a launcher ex (a rung of the lab folder) at this size into row,
 * made by the caller; false only when the context broke. */
bool engine_launcher_measure(engine_ctx *ctx, exercise *ex, problem_data *data, const char *label,
                             const row_rates *rates, run_result *row);
void engine_launcher_open_exercise(engine_ctx *ctx);
void engine_launcher_open_starter(engine_ctx *ctx);
/* What the launcher ex printed, to the log (then forgotten); its last
 * error's Lua traceback, to the log. */
void engine_launcher_flush(const engine_ctx *ctx, exercise *ex);
void engine_launcher_log_trace(const engine_ctx *ctx, const exercise *ex);
/* The learner's row of this size as an RS_ERROR (or, with no_device and
 * nothing else wrong with the file, RS_NO_DEVICE), when the request has one. */
void engine_launcher_exercise_error_row(engine_ctx *ctx, const char *msg, bool no_device);
/* Measures the learner's kernel (emitted) at this size; false only when
 * the context broke. */
bool engine_launcher_exercise_row(engine_ctx *ctx, problem_data *data, const char *label,
                                  const row_rates *rates);

#endif
