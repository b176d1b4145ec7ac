/* tlsummary.h - a timeline reduced to the figures a profiling report shows.
 *
 * Pure arithmetic over prof/timeline.h: per GPU lane (each stream, each
 * copy direction) how long something ran on it, how many kernels, copies
 * and memsets, how many copies read or wrote pinned or pageable host
 * memory, and its idle gaps; for the whole GPU its busy and idle time, the
 * time copies ran while kernels ran (overlap) and uploads while downloads
 * ran, how many streams did work, and how many runtime calls waited for
 * the device (the *Synchronize calls on the runtime API lane). */
#ifndef CUDALAB_PROF_TLSUMMARY_H
#define CUDALAB_PROF_TLSUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "prof/timeline.h"

typedef struct tls_lane {
    char name[TL_LANE_NAME_MAX];
    tl_lane_kind kind;
    uint64_t busy_ns;          /* covered by at least one item */
    uint64_t idle_ns;          /* between its first and last item, not busy */
    size_t gaps;               /* idle stretches of at least the threshold */
    uint64_t longest_gap_ns;
    size_t kernels, copies, memsets;
    uint64_t copy_bytes;
    size_t pinned, pageable;   /* its copies by host memory kind */
} tls_lane;

typedef struct tl_summary {
    uint64_t span_ns;          /* first GPU item's start to the last one's end */
    uint64_t gpu_busy_ns;      /* something ran on some GPU lane */
    uint64_t gpu_idle_ns;      /* span - busy */
    size_t gpu_gaps;           /* GPU-wide idle stretches of at least the threshold */
    uint64_t longest_gap_ns;
    uint64_t gap_min_ns;       /* the threshold */
    size_t kernels, copies, memsets;
    uint64_t kernel_sum_ns;    /* kernel durations added up */
    uint64_t kernel_busy_ns;   /* some kernel ran */
    uint64_t copy_busy_ns;     /* some copy ran */
    uint64_t overlap_ns;       /* a copy and a kernel ran at once */
    uint64_t updown_ns;        /* an upload and a download ran at once */
    size_t h2d, d2h;           /* copies each way */
    uint64_t h2d_bytes, d2h_bytes;
    size_t pinned, pageable;   /* host copies by host memory kind */
    uint64_t pinned_bytes, pageable_bytes;
    size_t streams;            /* distinct streams that ran kernels, copies or memsets */
    size_t syncs;              /* runtime calls that waited: cuda*Synchronize */
    size_t api_calls;
    uint64_t dropped;          /* records the timeline lost */
    tls_lane *lanes;           /* the GPU lanes, in the timeline's order */
    size_t nlanes;
} tl_summary;

/* Summarises tl; gaps shorter than gap_min_ns are not counted (their time
 * still is, in idle_ns).  A timeline without GPU items gives zeros.  false
 * + err when out of memory (out is then empty). */
bool tlsummary_make(const timeline *tl, uint64_t gap_min_ns, tl_summary *out, cl_err *err);
void tlsummary_free(tl_summary *summary);

/* Total time covered by the ngaps intervals gaps[i] = [start_ns, end_ns); gaps is
 * sorted and merged in place (its first returned-count entries hold the
 * disjoint union afterwards). */
uint64_t tlsummary_union(tl_gap *gaps, size_t ngaps);
/* Time covered both by first's intervals and by second's (both merged in
 * place). */
uint64_t tlsummary_both(tl_gap *first, size_t na, tl_gap *second, size_t nb);

#endif
