/* pipe.h - the data-pipeline problem in the engine.
 *
 * A request for the "pipeline" problem is measured step by step rather
 * than as one output (engine_run hands it to pipe_run).  For each size
 * (ROWS, 1 to 2^27) the data set's file is made sure of
 * (cpu/prep_file.h), the CPU pipeline runs (its rows, and the "canonical"
 * state every step's inputs come from), and then, on the device:
 *
 *   the shipped steps     one row a variant naming a step ("load", "fill",
 *                         ..., "gemm"), and "pipeline": load, the shipped
 *                         steps and the hand-off end to end;
 *   the learner's kernel  one row a step it implements ("exercise.fill" ..
 *                         "exercise.groupby", kind exercise) and "exercise":
 *                         load, its steps and the hand-off end to end;
 *   the lab's starter     "starter", end to end, when the request names it;
 *   timelines             with the variant "timeline", one more end-to-end
 *                         call of the starter and of the learner's pipeline
 *                         recorded with CUPTI (engine/pipe_timeline.h);
 *   the CPU               "cpu.<step>" and "cpu_mt.<step>" for every step
 *                         (load included), "cpu" and "cpu_mt" end to end.
 *
 * A step row gets its inputs from the canonical state, its outputs
 * poisoned, one checked call, timing, and one more checked call; an end-to-
 * end row starts from the file on disk and is checked on every step's
 * outputs.  A step row's GB/s counts the bytes the step must read and
 * write at least (cpu/prep_state.h), its speedups are against the CPU rows
 * of the same step; an end-to-end row counts the table and is against the
 * CPU end to end. */
#ifndef CUDALAB_ENGINE_PIPE_H
#define CUDALAB_ENGINE_PIPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <pthread.h>
#include <cuda_runtime_api.h>

#include "catalog/pipeline_files.h"
#include "core/err.h"
#include "core/paths.h"
#include "cpu/prep_check.h"
#include "cpu/prep_ref.h"
#include "cpu/prep_state.h"
#include "engine/engine_internal.h"
#include "gpu/buffer.h"
#include "pipeline.h"

#define PIPE_LOAD_MAX_THREADS 16

/* Reads a file onto the device: threads read chunks into pinned buffers
 * of their own (two each) and copy each to the device on their own stream
 * as soon as it is read. */
typedef struct pipe_loader {
    int threads;
    size_t chunk;
    void *pinned[PIPE_LOAD_MAX_THREADS][2];
    cudaStream_t stream[PIPE_LOAD_MAX_THREADS];
    cudaEvent_t done[PIPE_LOAD_MAX_THREADS][2];
    int made;                      /* threads whose resources exist */
} pipe_loader;

/* The state of prep_state.h in device memory. */
typedef struct pipe_dev {
    pipe_bufs b;
    gpu_buffer raw, kept, filled, t, X, Y, W, small, scratch;
} pipe_dev;

/* One size of one request. */
typedef struct pipe_size {
    engine_ctx *c;
    const char *label;
    int64_t n;
    uint64_t seed;
    char path[CL_PATH_MAX];        /* the data set's file */
    prep_state st;                 /* the canonical state */
    prep_ref ref;
    pipe_dev dev;
    pipe_loader loader;
    void *buf;                     /* one column of host memory, for downloads */
    bool have_canon;               /* st holds every step's outputs */
    double cpu_ms[PREP_NSTEPS + 1];     /* medians; [PREP_NSTEPS] end to end; 0 unknown */
    double cpu_mt_ms[PREP_NSTEPS + 1];
} pipe_size;

/* ---- pipe_run.c ---- */
bool pipe_run(engine_ctx *ctx);
/* "fill" -> "exercise.fill" (prefix "exercise"). */
static inline void pipe_row_id(const char *prefix, prep_step step, char *out, size_t out_size)
{
    snprintf(out, out_size, "%s%s%s", prefix, PIPELINE_STEP_SEP, prep_step_id(step));
}

/* ---- pipe_cpu.c ---- */
/* The CPU rows of this size (when the request wants them) and, in any case,
 * the canonical state and its reference.  false + err when the state could
 * not be made (the rows then say why). */
bool pipe_cpu_rows(pipe_size *psize, cl_err *err);

/* ---- pipe_load.c ---- */
bool pipe_loader_init(pipe_loader *loader, int threads, size_t chunk, cl_err *err);
void pipe_loader_free(pipe_loader *loader);
/* The body of the data set's file (bytes from PREP_FILE_HEADER) into dst;
 * returns when all of it is on the device. */
bool pipe_load(pipe_loader *loader, const char *path, void *dst, size_t bytes, cl_err *err);

/* ---- pipe_dev.c ---- */
/* Device bytes for rows rows (scratch: the shipped steps'). */
size_t pipe_dev_bytes(int64_t rows, size_t scratch);
bool pipe_dev_alloc(pipe_dev *dev, const prep_state *st, cl_err *err);
void pipe_dev_free(pipe_dev *dev);
/* Copies the inputs of step from st (PREP_NSTEPS: none, the pipeline
 * starts from the file). */
bool pipe_dev_inputs(pipe_dev *dev, const prep_state *st, prep_step step, cudaStream_t stream,
                     cl_err *err);
/* Poisons the outputs of step (PREP_NSTEPS: of every step). */
bool pipe_dev_poison(pipe_dev *dev, prep_step step, cudaStream_t stream, cl_err *err);
/* Device address of an output. */
void *pipe_dev_col(const pipe_dev *dev, prep_col col);

typedef struct pipe_dev_reader {
    const pipe_dev *d;
    cudaStream_t stream;
} pipe_dev_reader;
/* A prep_src that downloads each column from the device. */
prep_src pipe_dev_src(pipe_dev_reader *reader);

/* ---- pipe_args.c ---- */
/* Builds the learner's (or the starter's) args over dev's buffers. */
bool pipe_args_begin(exercise *ex, const pipe_dev *dev, const char *label, cl_err *err);

/* ---- pipe_measure.c ---- */
/* What a GPU row runs: once() enqueues one run of step (PREP_NSTEPS: the
 * whole pipeline from the file, PREP_LOAD: the file onto the device). */
typedef struct pipe_target {
    timing_fn once;
    void *ud;
    prep_step step;
    bool library;                  /* failures carry the library's message */
} pipe_target;

/* Checks, times and checks again one row; false only when the
 * CUDA context broke (fault filled). */
bool pipe_measure(pipe_size *psize, const pipe_target *target, run_result *row);

#endif
