/* engine_row.h - a result row's life, for the engine and the experiments
 * alike: where a request's rows, progress and log messages go (a
 * row_channel), a fresh row, its error or absent device, notes appended to
 * its message, the row sent; progress about the row being measured; and
 * the one test of whether a failed CUDA call broke the context, with the
 * fault it fills.  Calls nothing else of src/engine/. */
#ifndef CUDALAB_ENGINE_ENGINE_ROW_H
#define CUDALAB_ENGINE_ENGINE_ROW_H

#include <stdbool.h>
#include <cuda_runtime_api.h>

#include "engine/engine.h"
#include "result/record.h"

/* Where one request's rows, progress and log messages go, and what is
 * being measured now; one a request, inside the engine's or the
 * experiments' context. */
typedef struct row_channel {
    const engine_sink *sink;
    run_fault *fault;          /* filled when the CUDA context breaks */
    int run;                   /* the request's id, on every row, message and fault */
    const char *exercise;      /* the request's exercise id on every row and progress
                                * message ("" for the experiments') */
    double progress_every_s;   /* within one phase of one row, at most one progress
                                * message this often; 0: every one is sent */
    const char *size;          /* label of the size being measured */
    const char *variant;       /* id of the row being measured (NULL: none) */
    char last_phase[32];       /* progress throttling: what was sent last, and when */
    char last_variant[RUN_ID_MAX];
    double last_sent;
} row_channel;

/* A fresh RS_ERROR row of the channel's run, exercise and size. */
void engine_row_start(const row_channel *rows, run_result *row, const char *variant,
                      const char *label, result_kind kind);
/* row becomes an RS_ERROR carrying msg. */
void engine_row_error(run_result *row, const char *msg);
/* row could not run: no usable device (why). */
void engine_row_no_device(run_result *row, const char *why);
/* Appends to row's message, after "; " when it has one and there is room
 * for it. */
void engine_row_note(run_result *row, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Sends row (stamped with the channel's run); no row is being measured
 * from now on. */
void engine_row_emit(row_channel *rows, run_result *row);
/* Sends a progress message about the row being measured: when the phase
 * or row changed, or at most every progress_every_s seconds within one. */
void engine_row_progress(row_channel *rows, const char *phase, int rep, int of);
/* Sends a log message (level 0 info, 1 warning). */
void engine_row_log(const row_channel *rows, int level, const char *msg);

/* After a failed CUDA call: the first error that breaks the context among
 * the failed call's own (as gpu/cudacheck.h recorded it, also into
 * *failed), a device-wide wait's and the last error; cudaSuccess when the
 * context still works. */
cudaError_t engine_row_sticky_error(cudaError_t *failed);
/* Fills the channel's fault for a broken context while row variant ran:
 * cause "cuda", sticky's code, and sticky's plain words (after detail and
 * in brackets, when detail is given). */
void engine_row_fault(const row_channel *rows, const char *variant, cudaError_t sticky,
                      const char *detail);

#endif
