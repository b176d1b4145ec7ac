/* engine.h - the measurement engine inside the worker process.
 *
 * The only code that touches CUDA.  It runs a request's variants (shipped
 * launchers, the vendor library, the learner's kernel) at each size, times
 * them with CUDA events, checks each against the double-precision CPU
 * reference with fresh seeded inputs and poisoned outputs, runs the CPU
 * baselines, and streams progress and results through the sink. */
#ifndef CUDALAB_ENGINE_ENGINE_H
#define CUDALAB_ENGINE_ENGINE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/devinfo.h"
#include "result/record.h"

typedef struct engine_sink {
    void (*progress)(void *ud, const run_progress *message);
    void (*result)(void *ud, const run_result *row);
    void (*log)(void *ud, int level, const char *msg);
    void *ud;
} engine_sink;

/* Probes the device (initialises CUDA in this process: worker only) and
 * fills out; out->present is false with a reason when there is none.  Also
 * measures (or reads from the data folder's cache) the copy bandwidth,
 * unless engine_skip_peak was called first. */
void engine_probe(device_info *out);
/* Makes the next engine_probe skip the copy-bandwidth measurement, noting
 * why (a worker under compute-sanitizer, whose timings mean nothing). */
void engine_skip_peak(const char *why);
/* The worker runs under compute-sanitizer: no guard bytes after a
 * problem's buffers and no fill of the Buffers a launcher allocates, which
 * would hide from memcheck and initcheck the very accesses they report. */
void engine_under_sanitizer(void);
/* Whether engine_under_sanitizer was called. */
bool engine_is_under_sanitizer(void);

/* Runs every variant x size of req, emitting one result per row (CPU
 * baselines and the library too; the learner's kernel, when req names one,
 * as the row "exercise" after the shipped rungs of each size, measured the
 * same way: see engine/exercise.h and lua/exercise.md).  With
 * req->check_only every GPU row runs once, checked, without timing.
 * Errors that leave the CUDA context usable (bad launch configuration, a
 * launcher's Lua error, a compile error, wrong result, out of memory)
 * become results with status RS_ERROR and a message.  Returns false when
 * the context is broken (illegal address, launch failure, ...): fault is
 * filled (cause "cuda") and the worker must exit so the supervisor starts a
 * fresh one. */
bool engine_run(const run_request *req, const engine_sink *sink, run_fault *fault);

void engine_shutdown(void);

/* The folders python3 imports from, for a confined worker to read (see
 * lab/pyenv.h): each a malloc'd string in out[0..max); returns how many. */
size_t engine_python_import_dirs(char **out, size_t max);

#endif
