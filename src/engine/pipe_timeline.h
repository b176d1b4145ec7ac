/* pipe_timeline.h - timelines of one call of a pipeline, for the profiling report.
 *
 * With the variant "timeline" (catalog/pipeline_files.h) the pipeline
 * engine (engine/pipe.h), after measuring, records one more end-to-end call
 * of the lab's starter and of the learner's pipeline with CUPTI, writes
 * each as a Chrome trace to <data>/timelines/pipeline-<which>.json and
 * announces it with an info log line "pipeline timeline <which>: <path>
 * (...)", which is "starter" or "exercise".  The learner's report
 * (cudalab report profiling) is report.md beside their kernel file; an
 * exercise row's has_report says whether one written by cudalab (it
 * carries PIPELINE_REPORT_MARK) is there. */
#ifndef CUDALAB_ENGINE_PIPE_TIMELINE_H
#define CUDALAB_ENGINE_PIPE_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <cuda_runtime_api.h>

#include "catalog/pipeline_files.h"
#include "core/err.h"
#include "prof/timeline.h"
#include "gpu/timing.h"

/* Records one call of once (then a device-wide wait) with CUPTI into out.
 * title names the device.  false + err when recording failed (out empty). */
bool pipeline_record(const char *title, timing_fn once, void *ud, cudaStream_t stream,
                     timeline *out, cl_err *err);
/* Writes tl to pipeline_timeline_file(which) (making the folder) and fills
 * msg with the announcement "pipeline timeline <which>: <path> (...)". */
bool pipeline_save_timeline(const timeline *tl, const char *which, char *msg, size_t msg_size,
                            cl_err *err);

#endif
