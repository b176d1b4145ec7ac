/* dispatch.h - which measurement answers a request, inside the worker.
 *
 * A request for the profiling lab ("profiling") names experiments in its
 * variants (experiments/experiments.h); with the learner's kernel it then
 * measures the lab's exercise as the "pipeline" problem, the pipeline
 * lab's starter beside it (engine/pipe.h).  Every other request goes to
 * the engine as it is. */
#ifndef CUDALAB_WORKER_DISPATCH_H
#define CUDALAB_WORKER_DISPATCH_H

#include <stdbool.h>

#include "engine/engine.h"
#include "result/record.h"

/* engine_run's contract (engine/engine.h) for every kind of request. */
bool dispatch_run(const run_request *req, const engine_sink *sink, run_fault *fault);

#endif
