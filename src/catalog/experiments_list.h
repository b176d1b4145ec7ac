/* experiments_list.h - the experiments of the profiling, basics and
 * multigpu labs, by name.
 *
 * A lab whose problem is an experiments problem ("profiling", "basics",
 * "multigpu")
 * names experiments in its variants.  Here are their ids in teaching order,
 * which problem each belongs to, a line on what each measures, and the
 * timeline file the experiments leave behind with the log line that
 * announces it.  CUDA-free: the parent checks lab files and command lines
 * against this; the measurements themselves are in experiments/. */
#ifndef CUDALAB_CATALOG_EXPERIMENTS_LIST_H
#define CUDALAB_CATALOG_EXPERIMENTS_LIST_H

#include <stdbool.h>
#include <stddef.h>

#include "core/err.h"

#define EXPERIMENTS_PROBLEM "profiling"
#define EXPERIMENTS_BASICS "basics"
/* Run by a group of processes, one a GPU (src/group/, src/mgpu/), not by
 * the worker's experiments. */
#define EXPERIMENTS_MULTIGPU "multigpu"
#define EXPERIMENTS_TIMELINE_LOG "timeline: "

/* The profiling lab's experiment ids in teaching order. */
const char *const *experiments_ids(size_t *count);
/* The ids of problem's experiments in teaching order (count 0 for a problem
 * that has none). */
const char *const *experiments_ids_of(const char *problem, size_t *count);
/* True for a problem whose variants are experiments. */
bool experiments_problem(const char *problem);
/* The problem experiment id belongs to, or NULL for an unknown id. */
const char *experiments_problem_of(const char *id);
bool experiments_known(const char *id);
/* One line saying what an experiment measures; NULL for an unknown id. */
const char *experiments_title(const char *id);

/* Parent side: true when msg is the log line announcing a timeline, with
 * its path copied to path. */
bool experiments_timeline_path(const char *msg, char *path, size_t path_size);
/* <data folder>/timelines/last.json (the folder is not created here). */
bool experiments_timeline_file(char *out, size_t out_size, cl_err *err);

#endif
