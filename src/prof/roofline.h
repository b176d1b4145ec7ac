/* roofline.h - the roofline model as pure arithmetic, and its placement in a
 * character grid.
 *
 * A kernel of arithmetic intensity I (FLOP per byte moved to or from
 * memory) can at best reach min(peak FLOP rate, I x memory bandwidth).  The
 * two roofs meet at the ridge point I* = peak FLOP rate / bandwidth: left of
 * it a kernel is memory-bound, right of it compute-bound.  The grid maps
 * both axes logarithmically into w x h cells, row 0 at the top. */
#ifndef CUDALAB_PROF_ROOFLINE_H
#define CUDALAB_PROF_ROOFLINE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/err.h"

typedef struct roofline {
    double peak_gflops;   /* compute roof, GFLOP/s (FP32 peak) */
    double peak_gbs;      /* memory roof, GB/s (measured copy bandwidth) */
} roofline;

typedef struct roofline_point {
    double ai;            /* FLOP per byte */
    double gflops;        /* achieved GFLOP/s */
} roofline_point;

typedef enum roofline_side {
    ROOFLINE_MEMORY_BOUND,
    ROOFLINE_COMPUTE_BOUND,
} roofline_side;

/* True when both roofs are positive and finite. */
bool roofline_valid(const roofline *roof);
/* Intensity where the roofs meet (FLOP/byte); 0 for an invalid roofline. */
double roofline_ridge(const roofline *roof);
/* min(peak_gflops, ai x peak_gbs); 0 for ai <= 0. */
double roofline_attainable(const roofline *roof, double ai);
/* Memory-bound below the ridge, compute-bound at or above it. */
roofline_side roofline_side_of(const roofline *roof, double ai);
const char *roofline_side_name(roofline_side side);   /* "memory-bound", "compute-bound" */
/* Achieved rate as a percentage of the roof above the point; -1 when unknown. */
double roofline_pct_of_roof(const roofline *roof, const roofline_point *point);
/* The point of a kernel that moved data at gbps and computed at tflops;
 * false when either rate is not positive. */
bool roofline_point_from_rates(double gbps, double tflops, roofline_point *point);

/* A log-log window over the plane: x is log10(FLOP/byte) over whole
 * decades, y is log10(GFLOP/s) from a whole decade up. */
typedef struct roofline_grid {
    int w, h;
    double x_lo, x_hi;
    double y_lo, y_hi;
} roofline_grid;

/* Chooses ranges holding every point and the ridge with room on both
 * sides (a factor 16 either way); the top is a quarter above the highest of
 * the compute roof and the points, so the roof runs just under it.  false + err for an invalid
 * roofline or a grid smaller than 8 x 4. */
bool roofline_grid_fit(roofline_grid *grid, int width, int height, const roofline *roof,
                       const roofline_point *pts, size_t npts, cl_err *err);
/* Cell of a point; false when it lies outside the grid or is not positive. */
bool roofline_place(const roofline_grid *grid, double ai, double gflops, int *col, int *row);
/* Intensity at the centre of column col. */
double roofline_col_ai(const roofline_grid *grid, int col);
/* GFLOP/s at the centre of row row. */
double roofline_row_gflops(const roofline_grid *grid, int row);
/* Row of the roof at column col; -1 when the roof is below the grid there. */
int roofline_roof_row(const roofline_grid *grid, const roofline *roof, int col);
/* Column holding the ridge point; -1 when it is off the grid. */
int roofline_ridge_col(const roofline_grid *grid, const roofline *roof);

#endif
