/* tui_timeline.h - the timeline view: a recorded timeline, the window of it
 * shown, the selected lane and item, and what each character cell shows.
 *
 * Lanes are rows (NVTX ranges, runtime calls, each copy direction, each
 * stream); time runs left to right over `width` columns.  Every column of a
 * lane shows the item covering most of it, marked by its kind (kernel,
 * copy from pinned or pageable memory, memset, runtime call, NVTX range);
 * a column where the whole GPU idled is marked on the GPU lanes and on a
 * row of its own.  No curses here: the drawing (tui_views.c) asks for
 * cells, the axis and the text lines, so all of it is unit-tested. */
#ifndef CUDALAB_TUI_TIMELINE_H
#define CUDALAB_TUI_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "prof/timeline.h"
#include "tui/tui_theme.h"

#define TUI_TL_LABEL_W 12       /* lane names, left of the plot */
#define TUI_TL_PATH_MAX 1024

typedef struct tui_timeline {
    bool loaded;
    timeline t;                 /* lanes in reading order, times from 0 */
    char path[TUI_TL_PATH_MAX]; /* the file it was read from */
    uint64_t lo, hi;            /* span of every item */
    tl_view view;               /* window shown */
    int lane;                   /* selected lane */
    long item;                  /* selected item, -1 none */
    tl_gaps gaps;               /* where the whole GPU idled */
} tui_timeline;

typedef enum tui_tlmark {
    TLM_NONE,                   /* nothing on this lane here */
    TLM_IDLE,                   /* nothing here, and the whole GPU idles */
    TLM_KERNEL,
    TLM_PINNED,                 /* a copy from or to pinned host memory */
    TLM_PAGEABLE,               /* a copy from or to pageable host memory */
    TLM_COPY,                   /* any other copy (device to device, managed, unknown) */
    TLM_MEMSET,
    TLM_API,                    /* a runtime call on the host */
    TLM_RANGE,                  /* an NVTX range */
    TLM_COUNT
} tui_tlmark;

typedef struct tui_tlcell {
    tui_tlmark mark;
    int item;                   /* the item shown, -1 none */
    bool selected;              /* it is the selected item */
} tui_tlcell;

/* Reads a Chrome trace (prof/trace.h) into view, replacing what it held only
 * when the file reads; the whole span is shown and the first GPU lane is
 * selected.  false + err otherwise (view unchanged). */
bool tui_timeline_load(tui_timeline *view, const char *path, cl_err *err);
void tui_timeline_free(tui_timeline *view);   /* leaves view empty and usable */

/* Columns of the plot in a view `cols` wide (border and lane names off). */
int tui_timeline_plot_width(int cols);

/* Zooms by factor (> 1 in) around the selected item when it is in view,
 * else around the middle. */
void tui_timeline_zoom(tui_timeline *view, double factor, int width);
/* Moves the window by cols columns (negative: earlier). */
void tui_timeline_pan(tui_timeline *view, int cols, int width);
/* Back to the whole span. */
void tui_timeline_reset(tui_timeline *view);
/* Selects the lane delta rows down (negative: up) and on it the item
 * nearest the middle of the window. */
void tui_timeline_lane(tui_timeline *view, int delta, int width);
/* Selects the next (delta > 0) or previous item on the selected lane, the
 * first one in view when none is selected, and pans to keep it in view. */
void tui_timeline_step(tui_timeline *view, int delta, int width);
/* Zooms to the selected item with a margin either side. */
void tui_timeline_focus(tui_timeline *view, int width);

/* The cells of one lane over width columns. */
void tui_timeline_cells(const tui_timeline *view, int lane, int width, tui_tlcell *out);
/* Whether the whole GPU idles over most of each column (or a gap starts
 * in it): idle[0..width). */
void tui_timeline_idle(const tui_timeline *view, int width, bool *idle);
/* The time axis: labels (ASCII, width bytes + NUL in out, out_size >= width + 1)
 * at round ticks; tick columns go to ticks[0..max), their number is
 * returned. */
int tui_timeline_axis(const tui_timeline *view, int width, char *out, size_t out_size, int *ticks,
                      int max);

/* What the selected item is: "memcpy HtoD on copies H2D: start 6.00 us,
 * 640 us, 32.0 MiB at 52.4 GB/s, pinned".  "" when none is selected. */
void tui_timeline_detail(const tui_timeline *view, bool ascii, char *buf, size_t buf_size);
/* One line about the whole timeline: events, span, how busy the GPU was,
 * the longest idle gap, pageable copies. */
void tui_timeline_summary(const tui_timeline *view, char *buf, size_t buf_size);
/* The window shown and the zoom: "0 ns - 2.55 ms (1x)". */
void tui_timeline_window(const tui_timeline *view, char *buf, size_t buf_size);

/* The glyph of a mark and the role to draw it in. */
const char *tui_timeline_glyph(tui_tlmark mark, bool ascii, tui_role *role);
/* What a mark stands for ("pinned copy"). */
const char *tui_timeline_mark_name(tui_tlmark mark);

#endif
