/* tui_roof.h - a roofline drawn in character cells.
 *
 * The plot is a log-log grid (prof/roofline.h): FLOP per byte across,
 * GFLOP/s up.  The memory roof rises left of the ridge, the compute roof
 * runs flat right of it, a dotted line drops from the ridge, and each
 * measured kernel is a letter with a legend line saying where it sits.  No
 * curses here; tui_views.c draws the cells. */
#ifndef CUDALAB_TUI_ROOF_H
#define CUDALAB_TUI_ROOF_H

#include <stdbool.h>
#include <stddef.h>

#include "core/err.h"
#include "prof/roofline.h"
#include "tui/tui_theme.h"
#include "result/record.h"

#define TUI_ROOF_MAX_POINTS 40
#define TUI_ROOF_YLABEL_W 6     /* "100G", "1.0T": left of the plot */

typedef enum tui_roofmark {
    RFM_NONE,
    RFM_MEMORY,                 /* the memory roof (bandwidth x intensity) */
    RFM_COMPUTE,                /* the compute roof (FP32 peak) */
    RFM_RIDGE,                  /* where they meet */
    RFM_DROP,                   /* the dotted line under the ridge */
    RFM_POINT,                  /* a measured kernel */
    RFM_COUNT
} tui_roofmark;

typedef struct tui_roofpt {
    char label[RUN_ID_MAX];
    double ai, gflops;
    bool mine;                  /* the learner's kernel */
} tui_roofpt;

typedef struct tui_roofcell {
    tui_roofmark mark;
    char letter;                /* RFM_POINT: the point's letter */
    bool mine;
} tui_roofcell;

typedef struct tui_roofplot {
    int w, h;
    roofline_grid g;
    int ridge_col;              /* -1 off the grid */
    tui_roofcell *cells;        /* row-major, h rows of w */
    char xaxis[512];            /* decade labels under the plot, w columns */
} tui_roofplot;

/* The points of the GPU rows (not the CPU's) that ran correctly with both
 * a bandwidth and a FLOP rate, the learner's first: at most max into out;
 * returns how many. */
size_t tui_roof_points(const run_result *rows, size_t nrows, tui_roofpt *out, size_t max);
/* Lays out the roofline and the points in width x height cells (the y labels are
 * extra, to the left).  false + err for an invalid roofline or a grid
 * smaller than 8 x 4; free out with tui_roof_free either way. */
bool tui_roof_plot(const roofline *roof, const tui_roofpt *pts, size_t npts, int width, int height,
                   tui_roofplot *out, cl_err *err);
void tui_roof_free(tui_roofplot *plot);
/* The cell at (row, col). */
const tui_roofcell *tui_roof_cell(const tui_roofplot *plot, int row, int col);
/* The y label of a row ("10T", "100G") or "" when no decade falls on it. */
const char *tui_roof_ylabel(const tui_roofplot *plot, int row, char *buf, size_t buf_size);
/* The letter of point number index: A..Z, then a..z. */
char tui_roof_letter(size_t index);
/* The glyph of a mark and the role to draw it in. */
const char *tui_roof_glyph(tui_roofmark mark, bool ascii, tui_role *role);
/* The roofs in one line: "memory roof 3.02 TB/s (measured copy), FP32 roof
 * 66.9 TFLOP/s, ridge at 22.1 FLOP/B". */
void tui_roof_header(const roofline *roof, bool measured, char *buf, size_t buf_size);
/* A point's legend line: "A roof 4: 1.23 TFLOP/s at 4.75 FLOP/B,
 * memory-bound, 87% of its roof". */
void tui_roof_describe(const roofline *roof, const tui_roofpt *point, char letter, char *buf,
                       size_t buf_size);

#endif
