/* timeline.h - what the GPU did, as plain data, and how to lay it out.
 *
 * A timeline is a set of lanes (one per CUDA stream for kernels and memsets,
 * one per copy direction, one for the runtime API calls on the host, one for
 * the NVTX ranges the code placed around its phases) and a set of items on
 * them, each with a start and an end in nanoseconds.  The worker fills one
 * from CUPTI (gpu/cupti.c); prof/trace.c writes and reads it as a Chrome
 * trace; the TUI draws it with the pure layout functions below, which map
 * items to character columns for a given width, zoom and pan. */
#ifndef CUDALAB_PROF_TIMELINE_H
#define CUDALAB_PROF_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

#define TL_NAME_MAX 96
#define TL_LANE_NAME_MAX 48
#define TL_TITLE_MAX 128
#define TL_NOTE_MAX 256
#define TL_MAX_ITEMS (1u << 19)   /* items beyond this are counted in dropped */
#define TL_GPU_LANES (-1)         /* lane argument: every stream and copy lane at once */

typedef enum tl_lane_kind {
    TL_LANE_STREAM,   /* kernels and memsets of one CUDA stream */
    TL_LANE_H2D,      /* host to device copies, all streams */
    TL_LANE_D2H,      /* device to host copies */
    TL_LANE_D2D,      /* device to device copies */
    TL_LANE_COPY,     /* other copies: host to host, peer to peer, arrays */
    TL_LANE_API,      /* CUDA runtime calls made by the host thread */
    TL_LANE_NVTX,     /* NVTX ranges */
} tl_lane_kind;

typedef enum tl_kind {
    TL_KERNEL,
    TL_MEMCPY,
    TL_MEMSET,
    TL_API,
    TL_RANGE,
} tl_kind;

enum {
    TL_PINNED = 1u << 0,     /* the host side of a copy is page-locked */
    TL_PAGEABLE = 1u << 1,   /* the host side of a copy is ordinary pageable memory */
    TL_MANAGED = 1u << 2,    /* managed (unified) memory on either side */
};

typedef struct tl_lane {
    tl_lane_kind kind;
    uint32_t stream;               /* TL_LANE_STREAM: CUPTI's stream id */
    char name[TL_LANE_NAME_MAX];   /* "stream 13", "copies H2D", "runtime API", "NVTX" */
} tl_lane;

typedef struct tl_item {
    int lane;                      /* index into timeline.lanes */
    tl_kind kind;
    char name[TL_NAME_MAX];
    uint64_t start_ns, end_ns;     /* end_ns >= start_ns */
    uint64_t bytes;                /* copies and memsets; 0 otherwise */
    unsigned flags;                /* TL_PINNED, TL_PAGEABLE, TL_MANAGED */
    uint32_t stream;               /* stream of GPU work; 0 for host items */
    uint32_t corr;                 /* correlation id tying a runtime call to its GPU work; 0 none */
} tl_item;

typedef struct timeline {
    char title[TL_TITLE_MAX];      /* the device's name */
    char note[TL_NOTE_MAX];        /* where it comes from, when not this machine's
                                      own recording ("" otherwise) */
    tl_lane *lanes;
    size_t nlanes, lanes_cap;
    tl_item *items;
    size_t nitems, items_cap;
    uint64_t dropped;              /* records lost: CUPTI buffers, the item cap */
} timeline;

void timeline_init(timeline *tl);
void timeline_free(timeline *tl);   /* leaves tl empty and usable */

/* Index of the lane of this kind (and stream, for TL_LANE_STREAM), added
 * with its default name when missing; -1 + err when out of memory. */
int timeline_lane(timeline *tl, tl_lane_kind kind, uint32_t stream, cl_err *err);
/* Adds a lane with an explicit name (for traces read back); -1 + err on failure. */
int timeline_lane_named(timeline *tl, tl_lane_kind kind, uint32_t stream, const char *name,
                        cl_err *err);

/* Appends a copy of it.  false + err when its lane does not exist or it ends
 * before it starts; past TL_MAX_ITEMS the item is counted in dropped and
 * true is returned. */
bool timeline_add(timeline *tl, const tl_item *it, cl_err *err);

/* Sorts items by start, longer first on ties (an enclosing range before
 * what it encloses), then by lane. */
void timeline_sort(timeline *tl);
/* Puts the lanes in reading order - NVTX, runtime API, H2D copies, the
 * streams by id, D2H, D2D and other copies - and renumbers the items'
 * lanes to match.  false + err when out of memory (tl unchanged). */
bool timeline_order_lanes(timeline *tl, cl_err *err);
/* Shifts every item so that the earliest starts at 0; returns the shift. */
uint64_t timeline_normalise(timeline *tl);
/* Earliest start and latest end; false when there are no items. */
bool timeline_span(const timeline *tl, uint64_t *t0, uint64_t *t1);

/* Bytes moved per nanosecond (GB/s) of a copy or memset; -1 when the item
 * moves no bytes or takes no time. */
double timeline_item_gbps(const tl_item *it);
/* True for lanes whose items run on the GPU (streams and copies). */
bool timeline_lane_is_gpu(tl_lane_kind kind);

/* Stable names used in traces ("stream", "h2d", "d2h", "d2d", "copy",
 * "api", "nvtx"; "kernel", "memcpy", "memset", "runtime", "nvtx") and their
 * inverses (false for an unknown name). */
const char *timeline_lane_kind_name(tl_lane_kind kind);
bool timeline_lane_kind_parse(const char *text, tl_lane_kind *kind);
const char *timeline_kind_name(tl_kind kind);
bool timeline_kind_parse(const char *text, tl_kind *kind);

/* ---- idle gaps ---------------------------------------------------------- */

typedef struct tl_gap {
    uint64_t start_ns, end_ns;
} tl_gap;

typedef struct tl_gaps {
    tl_gap *v;                     /* gaps of at least min_ns, in time order */
    size_t n;
    uint64_t first_ns, last_ns;    /* first start and last end on the lane(s) */
    uint64_t busy_ns;              /* time covered by at least one item */
    uint64_t idle_ns;              /* (last - first) - busy: every gap, short ones too */
} tl_gaps;

/* The stretches where nothing ran on lane (TL_GPU_LANES: on any stream or
 * copy lane, i.e. where the whole GPU idled) between its first and its last
 * item.  Overlapping items are merged.  false + err when out of memory or the
 * lane does not exist; out is then empty. */
bool timeline_gaps(const timeline *tl, int lane, uint64_t min_ns, tl_gaps *out, cl_err *err);
void timeline_gaps_free(tl_gaps *gaps);

/* ---- layout: items to character columns ------------------------------- */

/* A window [t0, t1) of the timeline, t1 > t0. */
typedef struct tl_view {
    uint64_t t0, t1;
} tl_view;

/* The window showing 1/zoom (zoom >= 1) of [lo, hi], centred at fraction
 * center (0..1) of it and clamped so it never leaves [lo, hi]. */
tl_view timeline_view(uint64_t lo, uint64_t hi, double zoom, double center);
/* Multiplies the zoom by factor (> 1 zooms in) keeping the time under
 * column col where it is; clamped to [lo, hi], never narrower than width ns. */
tl_view timeline_view_zoom(const tl_view *view, uint64_t lo, uint64_t hi, double factor, int width,
                           int col);
/* Moves the window by cols columns (negative: earlier), clamped to [lo, hi]. */
tl_view timeline_view_pan(const tl_view *view, uint64_t lo, uint64_t hi, int cols, int width);

/* Time at the left edge of column col. */
uint64_t timeline_view_time(const tl_view *view, int width, int col);
/* Columns [*c0, *c1] (inclusive) that [start, end) touches, at least one column
 * for a visible item however short; false when it lies outside the view. */
bool timeline_view_cols(const tl_view *view, int width, uint64_t start, uint64_t end, int *c0,
                        int *c1);

typedef struct tl_cell {
    int item;    /* index of the item covering most of this column; -1: idle */
    int count;   /* items touching the column */
} tl_cell;

/* Fills row[0..width) for one lane in the view. */
void timeline_layout_row(const timeline *tl, int lane, const tl_view *view, int width,
                         tl_cell *row);

/* A round tick spacing (1, 2 or 5 x 10^k ns) leaving at least min_cols
 * columns between ticks. */
uint64_t timeline_tick_ns(const tl_view *view, int width, int min_cols);
/* "12 ns", "3.40 us", "1.25 ms", "2.000 s". */
void timeline_format_ns(double ns, char *out, size_t out_size);

#endif
