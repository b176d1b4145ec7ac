/* cupti.h - recording what the GPU did with the CUPTI Activity API.
 *
 * Between cupti_start and cupti_stop, CUPTI reports every kernel
 * (CONCURRENT_KERNEL), copy (MEMCPY, with the host side's memory kind:
 * pageable or pinned), memset, runtime API call (RUNTIME) and NVTX range
 * (MARKER) into buffers it hands back through callbacks; cupti_stop flushes
 * them and returns a timeline (prof/timeline.h) whose times start at 0 at
 * the first event.
 *
 * NVTX ranges reach CUPTI only when NVTX is routed to it
 * (NVTX_INJECTION64_PATH naming libcupti, set before the process's first
 * NVTX call).  The ranges placed with cupti_range_begin/_end (gpu/nvtx.h
 * does both) are also timed here with CUPTI's clock, and fill the NVTX lane
 * when no marker records arrived.
 *
 * Worker only: the parent never initialises CUDA.  Without a driver or a
 * device, cupti_start says "no CUDA device found: ..." without calling
 * CUPTI.  Under another CUPTI client (Nsight Systems, Nsight Compute)
 * enabling activities fails with CUPTI's own words. */
#ifndef CUDALAB_GPU_CUPTI_H
#define CUDALAB_GPU_CUPTI_H

#include <stdbool.h>
#include <cupti_activity.h>

#include "core/err.h"
#include "prof/timeline.h"

/* Starts recording; title names the device in the timeline.  false + err
 * when there is no device, recording is already on, or CUPTI refuses. */
bool cupti_start(const char *title, cl_err *err);
/* Waits for the device, flushes CUPTI's buffers, stops recording and moves
 * what was recorded into out (initialised here).  false + err when nothing
 * was being recorded or CUPTI failed; out is then empty. */
bool cupti_stop(timeline *out, cl_err *err);
bool cupti_recording(void);
/* Warnings gathered while recording (records dropped, a kind that would
 * not switch off); empty when none.  Valid until the next cupti_start. */
const char *cupti_warnings(void);

/* Named host ranges timed with CUPTI's clock while recording (no-ops
 * otherwise); they nest. */
void cupti_range_begin(const char *name);
void cupti_range_end(void);

/* ---- the conversion, usable without a device (tests) ------------------ */

typedef struct cupti_rec cupti_rec;

cupti_rec *cupti_rec_new(const char *title);
void cupti_rec_free(cupti_rec *rec);
/* Converts one activity record; kinds other than kernels, copies,
 * memsets, runtime calls and markers are ignored.  false + err when out of
 * memory. */
bool cupti_rec_add(cupti_rec *rec, const CUpti_Activity *activity, cl_err *err);
/* A host range [start_ns, end_ns] in CUPTI's clock. */
bool cupti_rec_range(cupti_rec *rec, const char *name, uint64_t start_ns, uint64_t end_ns,
                     cl_err *err);
/* Counts records CUPTI reported lost. */
void cupti_rec_dropped(cupti_rec *rec, uint64_t count);
/* Pairs marker starts with their ends into NVTX ranges (or uses the host
 * ranges when no marker arrived), orders the lanes, normalises times to
 * the first event, sorts, and moves the result into out.  rec stays valid
 * (and empty) until freed. */
bool cupti_rec_finish(cupti_rec *rec, timeline *out, cl_err *err);

/* "cudaMemcpyAsync_v3020" -> "cudaMemcpyAsync"; a demangled kernel name
 * without its parameter list ("_Z5saxpyifPKfPf" -> "saxpy"). */
void cupti_api_name(const char *raw, char *out, size_t out_size);
void cupti_kernel_name(const char *raw, char *out, size_t out_size);

#endif
