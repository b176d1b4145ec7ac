/* pipeline_files.h - where the pipeline exercise's files live, and how the
 * worker announces them.
 *
 * The "pipeline" problem is the profiling lab's exercise.  The engine
 * (engine/pipeline.h) measures the lab's starter beside the learner's
 * launcher and may record a timeline of each; these are the names and paths
 * both sides agree on: the variants a request uses, the lab's starter files,
 * the learner's report beside their kernel, the timelines in the data folder
 * and the log line that announces one.  CUDA-free: the parent reads this. */
#ifndef CUDALAB_CATALOG_PIPELINE_FILES_H
#define CUDALAB_CATALOG_PIPELINE_FILES_H

#include <stdbool.h>
#include <stddef.h>

#include "core/err.h"

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

/* Parent side: true when msg announces a pipeline timeline; which
 * ("starter", "exercise") and path are copied out. */
bool pipeline_timeline_path(const char *msg, char *which, size_t wn, char *path, size_t pn);

#endif
