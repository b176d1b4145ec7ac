/* experiments.h - the profiling and basics labs' measurements, inside the
 * worker.
 *
 * A request whose problem is "profiling" or "basics" names experiments of
 * that problem in its variants' ids (none: all of them, in teaching
 * order).  The profiling lab's:
 *   transfers  pageable vs pinned copies both ways, 4096 small copies vs
 *              one large one, moving 256 MiB vs computing on it
 *   overlap    copy-compute-copy on one stream vs chunks over 4 streams
 *   stride     coalesced vs strided reads, strides 1..32, 64, 128
 *   gemv       y = A x with A row-major or column-major, thread or warp per row
 *   blocksize  one bandwidth kernel at 32..1024 threads per block, with occupancy
 *   transpose  copy, naive, tiled and padded (bank-conflict-free) transposes
 *   timing     host timer without and with synchronisation vs events; the
 *              first launch of a kernel vs later ones
 *   roofline   one kernel at rising arithmetic intensity, placed against
 *              the device's measured bandwidth and FP32 peak
 * The basics lab's (lua/basics.md): divergence, occupancy, hierarchy,
 * fences.
 * Each measurement is a run_result row (variant "stride_8", label
 * "stride 8", size "64 MiB out", time, GB/s and/or TFLOP/s, a message
 * saying what it shows).  Outputs are checked against the CPU; inputs are
 * fresh seeded random numbers.
 *
 * While the experiments run, CUPTI records a timeline (gpu/cupti.h); it is
 * written as a Chrome trace (prof/trace.h) to <data>/timelines/last.json
 * and announced by an info log message "timeline: <path>" that
 * experiments_timeline_path recognises in the parent. */
#ifndef CUDALAB_EXPERIMENTS_EXPERIMENTS_H
#define CUDALAB_EXPERIMENTS_EXPERIMENTS_H

#include <stdbool.h>
#include <stddef.h>

#include "catalog/experiments_list.h"
#include "core/err.h"
#include "engine/engine.h"
#include "result/record.h"

/* Runs the experiments named by req (problem "profiling" or "basics"), emitting rows
 * through sink.  Without a device every requested experiment gives one
 * RS_ERROR row carrying the "no CUDA device found: ..." reason.  An
 * unknown id gives an RS_ERROR row naming the known ones.  Returns false
 * (fault filled, cause "cuda") only when the CUDA context broke. */
bool experiments_run(const run_request *req, const engine_sink *sink, run_fault *fault);

#endif
