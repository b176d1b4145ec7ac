/* workerloop.h - the worker's request loop, independent of the engine.
 *
 * worker_main() runs it with the real measurement engine; the tests run it
 * with a fake engine over pipes.  Requests are read as JSON lines from
 * in_fd, messages are written as JSON lines to out_fd. */
#ifndef CUDALAB_WORKER_WORKERLOOP_H
#define CUDALAB_WORKER_WORKERLOOP_H

#include <stdbool.h>

#include "core/devinfo.h"
#include "engine/engine.h"
#include "proto/protocol.h"

typedef struct workerloop_engine {
    void (*probe)(device_info *out);
    bool (*run)(const run_request *req, const engine_sink *sink, run_fault *fault);
    void (*shutdown)(void);
} workerloop_engine;

/* Probes, sends hello, then serves requests until "quit" or end of input.
 * Each "run" streams the engine's progress, results and logs, then "done".
 * Returns the worker's exit status: 0 after quit or end of input (the
 * engine was shut down), 3 after the engine reported a broken CUDA context
 * (a "fault" message was sent; the engine is not shut down), 1 when the
 * output can no longer be written. */
int workerloop_serve(const workerloop_engine *eng, int in_fd, int out_fd);

#endif
