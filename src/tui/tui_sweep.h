/* tui_sweep.h - bandwidth against size, drawn in character cells.
 *
 * Rows a lab measured at several sizes (the multigpu lab's all-reduces from
 * 8 B to 1 GiB, a reduction at 2^20, 2^24 and 2^28) make one series a
 * variant: its points (size, GB/s) from the smallest size up, its peak, and
 * its half-bandwidth size, where it first reaches half of its peak.  A
 * transfer of S bytes takes about t = a + S/B (a fixed latency a, a
 * bandwidth B), so its bandwidth S/t is B/2 exactly where a = S/B: below
 * that size the time is mostly the fixed cost (latency-bound), above it
 * mostly the bytes (bandwidth-bound).  The plot is a log-log grid, sizes
 * across in powers of two and GB/s up in decades: a letter a series at
 * each point, dots between its points, a dotted line at the best series'
 * half-bandwidth size with the two regions named under the axis, and each
 * series' letter on the axis at its own.  No curses here; tui_views.c
 * draws the cells. */
#ifndef CUDALAB_TUI_SWEEP_H
#define CUDALAB_TUI_SWEEP_H

#include <stdbool.h>
#include <stddef.h>

#include "core/err.h"
#include "result/record.h"
#include "tui/tui_theme.h"

#define TUI_SWEEP_MAX_SERIES 32   /* letters A..Z, then a..f */
#define TUI_SWEEP_MAX_POINTS 24
#define TUI_SWEEP_YLABEL_W 6      /* "0.001", "1000": left of the plot */
#define TUI_SWEEP_AXIS_MAX 512

typedef struct tui_sweeppt {
    double size;                  /* bytes or elements, as the row's size label reads */
    double gbs;
    char label[RUN_SIZE_MAX];     /* the row's size label: "1 GiB", "2^28" */
} tui_sweeppt;

typedef struct tui_sweepseries {
    char variant[RUN_ID_MAX];
    char label[RUN_ID_MAX];       /* the row's label: "ar_nccl", "CUB", "your kernel" */
    bool mine;                    /* the learner's kernel */
    size_t n;
    tui_sweeppt pt[TUI_SWEEP_MAX_POINTS];   /* smallest size first, one a size */
    size_t peak;                  /* the point of the highest GB/s (the smaller size of a tie) */
    double half_size;             /* tui_sweep_half of the points */
} tui_sweepseries;

typedef struct tui_sweep {
    bool bytes;                   /* sizes in bytes ("8 B", "1 GiB"), else counts ("2^20") */
    bool kind_known;              /* a size was read: bytes says which kind */
    size_t n;                     /* series (after tui_sweep_finish: those of two sizes or more) */
    tui_sweepseries s[TUI_SWEEP_MAX_SERIES];
    size_t best;                  /* the series of the highest peak (the first of a tie) */
    size_t failed;                /* rows at a readable size that did not run correctly */
    char failure[RUN_ID_MAX + RUN_SIZE_MAX + 520];  /* the first of them: "ar_nccl at 8 B: why" */
} tui_sweep;

/* A row's size label as a number: bytes for what units_bytes writes ("8 B",
 * "256 MiB"), else a count as problem_parse_count reads it ("2^20",
 * "1048576"); false for anything else ("4096x4096", "").  *bytes says
 * which. */
bool tui_sweep_size(const char *label, double *size, bool *bytes);

void tui_sweep_init(tui_sweep *sw);
/* Adds one row.  A correct row with a positive GB/s at a readable size is
 * a point of its variant's series (a later row at the same size replaces
 * it); a row that did not run correctly is counted in failed; rows without
 * a bandwidth, at no readable size, or whose size reads as another kind
 * than the first row's (a count among bytes) are left out. */
void tui_sweep_add(tui_sweep *sw, const run_result *row);
/* Keeps the series of two sizes or more, in the order first added, and
 * works out each one's peak and half-bandwidth size and the best series.
 * Returns how many series are left. */
size_t tui_sweep_finish(tui_sweep *sw);
/* Where the points pt[0..n) (smallest size first, positive GB/s) first
 * reach half of their highest GB/s, between the last point below half and
 * the first at or above it: on the curve t = a + S/B through those two
 * (exact for a row that follows it), else on the straight log-log line
 * between them; pt[0].size when the first point is already there; -1 when
 * n is 0. */
double tui_sweep_half(const tui_sweeppt *pt, size_t n);
/* True when series s is at half its peak already at its smallest size:
 * bandwidth-bound at every size measured. */
bool tui_sweep_half_at_first(const tui_sweepseries *s);

typedef enum tui_sweepmark {
    SWM_NONE,
    SWM_HALF,                     /* the dotted line at the best series' half-bandwidth size */
    SWM_LINE,                     /* between two points of a series */
    SWM_POINT,                    /* a measured point: the series' letter */
    SWM_SHARED,                   /* points of several series in one cell */
    SWM_COUNT
} tui_sweepmark;

typedef struct tui_sweepcell {
    tui_sweepmark mark;
    char letter;                  /* SWM_POINT, SWM_LINE: the series' letter */
    bool mine;
} tui_sweepcell;

typedef struct tui_sweepplot {
    int w, h;
    double x_lo, x_hi;            /* log2 of the size at the first and the last column */
    double y_lo, y_hi;            /* log10 of GB/s at the bottom and the top row */
    int half_col;                 /* the best series' half-bandwidth size; -1 none */
    tui_sweepcell *cells;         /* row-major, h rows of w */
    char xaxis[TUI_SWEEP_AXIS_MAX];    /* size labels under the plot: "8B", "4K", "1G" */
    char marks[TUI_SWEEP_AXIS_MAX];    /* on the axis: each series' letter at its half size */
    char regions[TUI_SWEEP_AXIS_MAX];  /* "latency-bound" left of half_col, "bandwidth-bound" right */
} tui_sweepplot;

/* Lays out the series of sw (after tui_sweep_finish) in width x height
 * cells (the y labels are extra, to the left).  false + err when sw has no
 * series or the grid is smaller than 8 x 4; free out with tui_sweep_free
 * either way. */
bool tui_sweep_plot(const tui_sweep *sw, int width, int height, tui_sweepplot *out, cl_err *err);
void tui_sweep_free(tui_sweepplot *plot);
/* The cell at (row, col); an empty one outside the grid. */
const tui_sweepcell *tui_sweep_cell(const tui_sweepplot *plot, int row, int col);
/* The column of a size and the row of a rate (clamped to the grid); -1
 * for one that is not positive. */
int tui_sweep_col(const tui_sweepplot *plot, double size);
int tui_sweep_row(const tui_sweepplot *plot, double gbs);
/* The y label of a row ("100", "0.01") or "" when no decade falls on it. */
const char *tui_sweep_ylabel(const tui_sweepplot *plot, int row, char *buf, size_t buf_size);
/* The glyph of a mark and the role to draw it in. */
const char *tui_sweep_glyph(tui_sweepmark mark, bool ascii, tui_role *role);
/* The letter of series number index. */
char tui_sweep_letter(size_t index);
/* The reading of the plot from its best series, titled title (NULL: its
 * label): "Best: C All-reduce: NCCL, 329 GB/s at 1 GiB, half of it at
 * 2.66 MiB (the dotted line), where the fixed latency a equals S/B:
 * smaller sizes are latency-bound, larger ones bandwidth-bound."; brief:
 * up to the half size only. */
void tui_sweep_header(const tui_sweep *sw, const char *title, bool brief, char *buf,
                      size_t buf_size);
/* Series i's legend line, titled title (NULL: its label): "C All-reduce:
 * NCCL: peak 329 GB/s at 1 GiB, half at 2.66 MiB". */
void tui_sweep_describe(const tui_sweep *sw, size_t i, const char *title, char *buf,
                        size_t buf_size);

#endif
