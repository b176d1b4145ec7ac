/* pipeline.h - what the engine adds around the profiling lab's exercise.
 *
 * The "pipeline" problem (engine/problem_pipeline.c) has no shipped
 * kernels: its GPU rows are Lua launchers.  Besides the learner's own
 * (the row "exercise"), the engine measures the lab's starter, the slow
 * version the learner begins from, as the row "starter", straight from
 * <home>/labs/profiling/ (never the workspace copy), and sets each row's
 * speedup_starter.  A request for the pipeline problem names what it wants
 * in its variants:
 *   "starter"   the starter row (it runs anyway with the learner's kernel,
 *               unless the request is check-only);
 *   "timeline"  after measuring, one more call each of the starter and
 *               the learner's launcher recorded with CUPTI, written as
 *               Chrome traces to <data>/timelines/pipeline-<which>.json and
 *               announced by an info log line
 *               "pipeline timeline <which>: <path> (...)", which is
 *               "starter" or "exercise".
 * A "profiling" request with an exercise runs its experiments, then the
 * exercise as the pipeline problem (worker/dispatch.h).
 *
 * The learner's report (cudalab report profiling) is report.md beside the
 * learner's kernel file; an exercise row's has_report says whether one
 * written by cudalab (it carries PIPELINE_REPORT_MARK) is there. */
#ifndef CUDALAB_ENGINE_PIPELINE_H
#define CUDALAB_ENGINE_PIPELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <cuda_runtime_api.h>

#include "catalog/pipeline_files.h"
#include "core/err.h"
#include "prof/timeline.h"
#include "gpu/timing.h"

/* Records one call of once (then a device-wide wait) with CUPTI into out.
 * title names the device.  false + e when recording failed (out empty). */
bool pipeline_record(const char *title, timing_fn once, void *ud, cudaStream_t s, timeline *out,
                     cl_err *e);
/* Writes t to pipeline_timeline_file(which) (making the folder) and fills
 * msg with the announcement "pipeline timeline <which>: <path> (...)". */
bool pipeline_save_timeline(const timeline *t, const char *which, char *msg, size_t n,
                            cl_err *e);

#endif
