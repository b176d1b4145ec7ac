/* pipeline_files.h - the data-pipeline problem's names and files, as both
 * sides of the worker know them.
 *
 * The "pipeline" problem is the pipeline lab's (labs/pipeline) and the
 * exercise of the profiling lab.  The engine measures it step by step
 * (engine/pipe.h); these are the names and paths both sides agree on: the
 * request's special variants (the lab's starter, timelines), the row ids
 * of the steps, the lab's starter files, the learner's report beside their
 * kernel, the timelines in the data folder and the log line that
 * announces one.  CUDA-free: the parent reads this. */
#ifndef CUDALAB_CATALOG_PIPELINE_FILES_H
#define CUDALAB_CATALOG_PIPELINE_FILES_H

#include <stdbool.h>
#include <stddef.h>

#include "core/err.h"

#define PIPELINE_PROBLEM "pipeline"
#define PIPELINE_LAB "pipeline"            /* whose starter files the engine runs */
#define PIPELINE_REPORT_LAB "profiling"    /* whose exercise `cudalab report` reports on */
#define PIPELINE_DEFAULT_SIZE "2^20"
#define PIPELINE_VARIANT_STARTER "starter"
#define PIPELINE_VARIANT_TIMELINE "timeline"
#define PIPELINE_VARIANT_E2E "pipeline"    /* the shipped steps end to end */
/* Rows of one step: "<prefix>.<step>", e.g. "cpu.fill", "exercise.groupby". */
#define PIPELINE_STEP_SEP "."
#define PIPELINE_REPORT_FILE "report.md"
#define PIPELINE_REPORT_MARK "<!-- cudalab report profiling -->"
#define PIPELINE_TIMELINE_LOG "pipeline timeline "

/* The name of the pipeline's step at index step, in order, "load" ..
 * "gemm" (cpu/prep_state.h), from 0; NULL past the last.  pipeline_step_own: whether a learner's
 * launcher implements that step (fill .. groupby). */
const char *pipeline_step_name(int step);
bool pipeline_step_own(int step);

/* Whether id names a row of the shipped pipeline a lab's variant may ask
 * for: a step ("load" .. "gemm", cpu/prep_state.h) or "pipeline". */
bool pipeline_variant_known(const char *id);

/* <home>/labs/pipeline/starter.cu and starter.lua; false + err when the
 * home folder is unknown or either file is missing. */
bool pipeline_starter_files(char *kernel, size_t kn, char *launcher, size_t ln, cl_err *err);

/* <folder of kernel_path>/report.md. */
bool pipeline_report_path(const char *kernel_path, char *out, size_t out_size);
/* True when that report exists and carries PIPELINE_REPORT_MARK. */
bool pipeline_report_exists(const char *kernel_path);

/* <data>/timelines/pipeline-<which>.json (the folder is not created). */
bool pipeline_timeline_file(const char *which, char *out, size_t out_size, cl_err *err);

/* Parent side: true when msg announces a pipeline timeline; which
 * ("starter", "exercise") and path are copied out. */
bool pipeline_timeline_path(const char *msg, char *which, size_t wn, char *path, size_t pn);

#endif
