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
 * exercise as the pipeline problem.
 *
 * The learner's report (cudalab report profiling) is report.md beside the
 * learner's kernel file; an exercise row's has_report says whether one
 * written by cudalab (it carries PIPELINE_REPORT_MARK) is there. */
#ifndef CUDALAB_ENGINE_PIPELINE_H
#define CUDALAB_ENGINE_PIPELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <cuda_runtime_api.h>

#include "core/err.h"
#include "prof/timeline.h"
#include "gpu/timing.h"

#define PIPELINE_PROBLEM "pipeline"
#define PIPELINE_LAB "profiling"
#define PIPELINE_DEFAULT_SIZE "1048576x16"
#define PIPELINE_VARIANT_STARTER "starter"
#define PIPELINE_VARIANT_TIMELINE "timeline"
#define PIPELINE_REPORT_FILE "report.md"
#define PIPELINE_REPORT_MARK "<!-- cudalab report profiling -->"
#define PIPELINE_TIMELINE_LOG "pipeline timeline "

/* <home>/labs/profiling/starter.cu and starter.lua; false + e when the
 * home folder is unknown or either file is missing. */
bool pipeline_starter_files(char *kernel, size_t kn, char *launcher, size_t ln, cl_err *e);

/* <folder of kernel_path>/report.md. */
bool pipeline_report_path(const char *kernel_path, char *out, size_t n);
/* True when that report exists and carries PIPELINE_REPORT_MARK. */
bool pipeline_report_exists(const char *kernel_path);

/* <data>/timelines/pipeline-<which>.json (the folder is not created). */
bool pipeline_timeline_file(const char *which, char *out, size_t n, cl_err *e);

/* Records one call of once (then a device-wide wait) with CUPTI into out.
 * title names the device.  false + e when recording failed (out empty). */
bool pipeline_record(const char *title, timing_fn once, void *ud, cudaStream_t s, timeline *out,
                     cl_err *e);
/* Writes t to pipeline_timeline_file(which) (making the folder) and fills
 * msg with the announcement "pipeline timeline <which>: <path> (...)". */
bool pipeline_save_timeline(const timeline *t, const char *which, char *msg, size_t n,
                            cl_err *e);

/* Parent side: true when msg announces a pipeline timeline; which
 * ("starter", "exercise") and path are copied out. */
bool pipeline_timeline_path(const char *msg, char *which, size_t wn, char *path, size_t pn);

#endif
