#include "prof/roofline.h"

#include <math.h>

#define ROOFLINE_MARGIN 16.0

bool roofline_valid(const roofline *roof)
{
    return roof && isfinite(roof->peak_gflops) && isfinite(roof->peak_gbs) &&
           roof->peak_gflops > 0.0 && roof->peak_gbs > 0.0;
}

double roofline_ridge(const roofline *roof)
{
    return roofline_valid(roof) ? roof->peak_gflops / roof->peak_gbs : 0.0;
}

double roofline_attainable(const roofline *roof, double ai)
{
    if (!roofline_valid(roof) || !(ai > 0.0))
        return 0.0;
    double mem = ai * roof->peak_gbs;
    return mem < roof->peak_gflops ? mem : roof->peak_gflops;
}

roofline_side roofline_side_of(const roofline *roof, double ai)
{
    return ai < roofline_ridge(roof) ? ROOFLINE_MEMORY_BOUND : ROOFLINE_COMPUTE_BOUND;
}

const char *roofline_side_name(roofline_side side)
{
    return side == ROOFLINE_MEMORY_BOUND ? "memory-bound" : "compute-bound";
}

double roofline_pct_of_roof(const roofline *roof, const roofline_point *point)
{
    double attainable = roofline_attainable(roof, point->ai);
    if (attainable <= 0.0 || !(point->gflops >= 0.0))
        return -1.0;
    return 100.0 * point->gflops / attainable;
}

bool roofline_point_from_rates(double gbps, double tflops, roofline_point *point)
{
    if (!(gbps > 0.0) || !(tflops > 0.0) || !isfinite(gbps) || !isfinite(tflops))
        return false;
    point->gflops = tflops * 1e3;
    point->ai = point->gflops / gbps;
    return true;
}

bool roofline_grid_fit(roofline_grid *grid, int width, int height, const roofline *roof,
                       const roofline_point *pts, size_t npts, cl_err *err)
{
    if (!roofline_valid(roof))
        return err_set(err, "the roofline needs a positive FP32 peak and memory bandwidth");
    if (width < 8 || height < 4)
        return err_set(err, "a roofline needs at least 8 x 4 cells (got %d x %d)", width, height);
    double ridge = roofline_ridge(roof);
    double ai_lo = ridge / ROOFLINE_MARGIN, ai_hi = ridge * ROOFLINE_MARGIN;
    double gf_hi = roof->peak_gflops * 1.25;
    for (size_t i = 0; i < npts; i++) {
        if (!(pts[i].ai > 0.0) || !(pts[i].gflops > 0.0) || !isfinite(pts[i].ai) ||
            !isfinite(pts[i].gflops))
            continue;
        if (pts[i].ai < ai_lo)
            ai_lo = pts[i].ai;
        if (pts[i].ai > ai_hi)
            ai_hi = pts[i].ai;
        if (pts[i].gflops * 1.25 > gf_hi)
            gf_hi = pts[i].gflops * 1.25;
    }
    double gf_lo = roofline_attainable(roof, ai_lo);
    for (size_t i = 0; i < npts; i++)
        if (pts[i].ai > 0.0 && pts[i].gflops > 0.0 && isfinite(pts[i].gflops) &&
            pts[i].gflops < gf_lo)
            gf_lo = pts[i].gflops;
    grid->w = width;
    grid->h = height;
    grid->x_lo = floor(log10(ai_lo));
    grid->x_hi = ceil(log10(ai_hi));
    if (grid->x_hi <= grid->x_lo)
        grid->x_hi = grid->x_lo + 1.0;
    grid->y_lo = floor(log10(gf_lo));
    grid->y_hi = log10(gf_hi);
    if (grid->y_hi <= grid->y_lo)
        grid->y_hi = grid->y_lo + 1.0;
    return true;
}

static int cell_of(double v, double lo, double hi, int cells)
{
    return (int)floor((v - lo) / (hi - lo) * (double)cells);
}

bool roofline_place(const roofline_grid *grid, double ai, double gflops, int *col, int *row)
{
    if (!(ai > 0.0) || !(gflops > 0.0) || !isfinite(ai) || !isfinite(gflops))
        return false;
    int c = cell_of(log10(ai), grid->x_lo, grid->x_hi, grid->w);
    int fromb = cell_of(log10(gflops), grid->y_lo, grid->y_hi, grid->h);
    if (c < 0 || c >= grid->w || fromb < 0 || fromb >= grid->h)
        return false;
    *col = c;
    *row = grid->h - 1 - fromb;
    return true;
}

double roofline_col_ai(const roofline_grid *grid, int col)
{
    return pow(10.0,
               grid->x_lo + ((double)col + 0.5) * (grid->x_hi - grid->x_lo) / (double)grid->w);
}

double roofline_row_gflops(const roofline_grid *grid, int row)
{
    int fromb = grid->h - 1 - row;
    return pow(10.0,
               grid->y_lo + ((double)fromb + 0.5) * (grid->y_hi - grid->y_lo) / (double)grid->h);
}

int roofline_roof_row(const roofline_grid *grid, const roofline *roof, int col)
{
    double attainable = roofline_attainable(roof, roofline_col_ai(grid, col));
    if (!(attainable > 0.0))
        return -1;
    int fromb = cell_of(log10(attainable), grid->y_lo, grid->y_hi, grid->h);
    if (fromb < 0)
        return -1;
    if (fromb >= grid->h)
        fromb = grid->h - 1;
    return grid->h - 1 - fromb;
}

int roofline_ridge_col(const roofline_grid *grid, const roofline *roof)
{
    double ridge = roofline_ridge(roof);
    if (!(ridge > 0.0))
        return -1;
    int c = cell_of(log10(ridge), grid->x_lo, grid->x_hi, grid->w);
    return c >= 0 && c < grid->w ? c : -1;
}
