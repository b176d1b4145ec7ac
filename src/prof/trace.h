/* trace.h - timelines as Chrome trace JSON (the Trace Event Format).
 *
 * Perfetto (ui.perfetto.dev) and chrome://tracing open the files written
 * here.  Layout of a written trace:
 *   {"traceEvents":[...], "displayTimeUnit":"ns", "otherData":{...}}
 *   - otherData: "tool", "device" (the timeline's title), "dropped", and
 *     "note" when the timeline has one (a sample recorded elsewhere);
 *   - metadata events ("ph":"M") first: process_name for the GPU (pid 1)
 *     and the host (pid 2), thread_name and thread_sort_index for every
 *     lane (tid = lane index + 1).  thread_name's args also carry the lane's
 *     kind ("lane": "h2d") and stream, so trace_parse can rebuild the lanes;
 *   - then one complete event ("ph":"X") per item, sorted by ts, with ts and
 *     dur in microseconds (fractional), cat = the item's kind ("kernel",
 *     "memcpy", "memset", "runtime", "nvtx") and args holding bytes, GB/s,
 *     the host memory kind ("pinned"/"pageable"), stream and correlation id. */
#ifndef CUDALAB_PROF_TRACE_H
#define CUDALAB_PROF_TRACE_H

#include <stdbool.h>

#include "core/err.h"
#include "prof/timeline.h"

#define TRACE_PID_GPU 1
#define TRACE_PID_HOST 2
#define TRACE_MAX_BYTES (512u << 20)   /* largest trace file read back */

/* The trace of tl as a NUL-terminated JSON text (malloc'd); NULL + err when
 * out of memory. */
char *trace_json(const timeline *tl, cl_err *err);
/* Writes the trace of tl to path atomically (core/atomicfile.h). */
bool trace_write(const timeline *tl, const char *path, cl_err *err);

/* Checks a trace text: it parses, has a traceEvents array, every complete
 * event has a name, numeric ts, pid and tid and a non-negative dur, events
 * with a ts come in non-decreasing ts order, and every pid and (pid, tid)
 * used by an event is named by a process_name / thread_name metadata event.
 * false + err naming the first offending event otherwise. */
bool trace_validate(const char *json, cl_err *err);

/* Reads a trace (one written by trace_write, or any trace whose lanes are
 * named) back into tl, which is initialised here; lanes without cudalab's
 * extra args become stream lanes, or host lanes when under a process other
 * than the GPU's.  Items come back sorted, in nanoseconds. */
bool trace_parse(const char *json, timeline *tl, cl_err *err);
bool trace_load(const char *path, timeline *tl, cl_err *err);
/* Copies the trace file at from to to (atomically) after checking it with
 * trace_validate; nothing is written when it does not pass. */
bool trace_copy(const char *from, const char *to, cl_err *err);

#endif
