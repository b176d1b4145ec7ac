#include "prof/roofline.h"

#include <math.h>

#define ROOFLINE_MARGIN 16.0

bool roofline_valid(const roofline *r)
{
    return r && isfinite(r->peak_gflops) && isfinite(r->peak_gbs) && r->peak_gflops > 0.0 &&
           r->peak_gbs > 0.0;
}

double roofline_ridge(const roofline *r)
{
    return roofline_valid(r) ? r->peak_gflops / r->peak_gbs : 0.0;
}

double roofline_attainable(const roofline *r, double ai)
{
    if (!roofline_valid(r) || !(ai > 0.0))
        return 0.0;
    double mem = ai * r->peak_gbs;
    return mem < r->peak_gflops ? mem : r->peak_gflops;
}

roofline_side roofline_side_of(const roofline *r, double ai)
{
    return ai < roofline_ridge(r) ? ROOFLINE_MEMORY_BOUND : ROOFLINE_COMPUTE_BOUND;
}

const char *roofline_side_name(roofline_side s)
{
    return s == ROOFLINE_MEMORY_BOUND ? "memory-bound" : "compute-bound";
}

double roofline_pct_of_roof(const roofline *r, const roofline_point *p)
{
    double attainable = roofline_attainable(r, p->ai);
    if (attainable <= 0.0 || !(p->gflops >= 0.0))
        return -1.0;
    return 100.0 * p->gflops / attainable;
}

bool roofline_point_from_rates(double gbps, double tflops, roofline_point *p)
{
    if (!(gbps > 0.0) || !(tflops > 0.0) || !isfinite(gbps) || !isfinite(tflops))
        return false;
    p->gflops = tflops * 1e3;
    p->ai = p->gflops / gbps;
    return true;
}

bool roofline_grid_fit(roofline_grid *g, int w, int h, const roofline *r,
                       const roofline_point *pts, size_t n, cl_err *e)
{
    if (!roofline_valid(r))
        return err_set(e, "the roofline needs a positive FP32 peak and memory bandwidth");
    if (w < 8 || h < 4)
        return err_set(e, "a roofline needs at least 8 x 4 cells (got %d x %d)", w, h);
    double ridge = roofline_ridge(r);
    double ai_lo = ridge / ROOFLINE_MARGIN, ai_hi = ridge * ROOFLINE_MARGIN;
    double gf_hi = r->peak_gflops * 1.25;
    for (size_t i = 0; i < n; i++) {
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
    double gf_lo = roofline_attainable(r, ai_lo);
    for (size_t i = 0; i < n; i++)
        if (pts[i].ai > 0.0 && pts[i].gflops > 0.0 && isfinite(pts[i].gflops) &&
            pts[i].gflops < gf_lo)
            gf_lo = pts[i].gflops;
    g->w = w;
    g->h = h;
    g->x_lo = floor(log10(ai_lo));
    g->x_hi = ceil(log10(ai_hi));
    if (g->x_hi <= g->x_lo)
        g->x_hi = g->x_lo + 1.0;
    g->y_lo = floor(log10(gf_lo));
    g->y_hi = log10(gf_hi);
    if (g->y_hi <= g->y_lo)
        g->y_hi = g->y_lo + 1.0;
    return true;
}

static int cell_of(double v, double lo, double hi, int cells)
{
    return (int)floor((v - lo) / (hi - lo) * (double)cells);
}

bool roofline_place(const roofline_grid *g, double ai, double gflops, int *col, int *row)
{
    if (!(ai > 0.0) || !(gflops > 0.0) || !isfinite(ai) || !isfinite(gflops))
        return false;
    int c = cell_of(log10(ai), g->x_lo, g->x_hi, g->w);
    int fromb = cell_of(log10(gflops), g->y_lo, g->y_hi, g->h);
    if (c < 0 || c >= g->w || fromb < 0 || fromb >= g->h)
        return false;
    *col = c;
    *row = g->h - 1 - fromb;
    return true;
}

double roofline_col_ai(const roofline_grid *g, int col)
{
    return pow(10.0, g->x_lo + ((double)col + 0.5) * (g->x_hi - g->x_lo) / (double)g->w);
}

double roofline_row_gflops(const roofline_grid *g, int row)
{
    int fromb = g->h - 1 - row;
    return pow(10.0, g->y_lo + ((double)fromb + 0.5) * (g->y_hi - g->y_lo) / (double)g->h);
}

int roofline_roof_row(const roofline_grid *g, const roofline *r, int col)
{
    double attainable = roofline_attainable(r, roofline_col_ai(g, col));
    if (!(attainable > 0.0))
        return -1;
    int fromb = cell_of(log10(attainable), g->y_lo, g->y_hi, g->h);
    if (fromb < 0)
        return -1;
    if (fromb >= g->h)
        fromb = g->h - 1;
    return g->h - 1 - fromb;
}

int roofline_ridge_col(const roofline_grid *g, const roofline *r)
{
    double ridge = roofline_ridge(r);
    if (!(ridge > 0.0))
        return -1;
    int c = cell_of(log10(ridge), g->x_lo, g->x_hi, g->w);
    return c >= 0 && c < g->w ? c : -1;
}
