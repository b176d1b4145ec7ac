/* experiments_list.h - the profiling lab's experiments, by name.
 *
 * The ids in teaching order with a line on what each measures, and the
 * timeline file the experiments leave behind with the log line that
 * announces it.  CUDA-free: the parent checks lab files and command lines
 * against this; the measurements themselves are in experiments/. */
#ifndef CUDALAB_CATALOG_EXPERIMENTS_LIST_H
#define CUDALAB_CATALOG_EXPERIMENTS_LIST_H

#include <stdbool.h>
#include <stddef.h>

#include "core/err.h"

#define EXPERIMENTS_PROBLEM "profiling"
#define EXPERIMENTS_TIMELINE_LOG "timeline: "

/* The experiment ids in teaching order. */
const char *const *experiments_ids(size_t *n);
bool experiments_known(const char *id);
/* One line saying what an experiment measures; NULL for an unknown id. */
const char *experiments_title(const char *id);

/* Parent side: true when msg is the log line announcing a timeline, with
 * its path copied to path. */
bool experiments_timeline_path(const char *msg, char *path, size_t n);
/* <data folder>/timelines/last.json (the folder is not created here). */
bool experiments_timeline_file(char *out, size_t n, cl_err *e);

#endif
