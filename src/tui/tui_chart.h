/* tui_chart.h - a horizontal bar chart of speedups on a log scale.
 *
 * The scale spans whole decades, from the decade strictly below the
 * smallest value (and below 1x, so the CPU's own 1x bar shows) to the decade
 * at or above the largest (at least 10x).  Bars are measured in eighths of a
 * column so that UTF-8 terminals can draw partial blocks. */
#ifndef CUDALAB_TUI_CHART_H
#define CUDALAB_TUI_CHART_H

#include <stdbool.h>
#include <stddef.h>

typedef struct tui_chart_scale {
    double lo, hi;         /* decade bounds: 0.1, 1, 10, ... */
    int width;             /* columns available for a bar */
    int decades;
} tui_chart_scale;

/* Builds a scale for the positive finite values among values[0..n) (others are
 * ignored) over width columns.  false when width < 2. */
bool tui_chart_scale_for(const double *values, size_t nvalues, int width, tui_chart_scale *scale);
/* Bar length of value in eighths of a column, 0 .. width*8 (0 for value <= lo or
 * unknown values). */
int tui_chart_eighths(const tui_chart_scale *scale, double value);
/* Column (0 .. width-1) of the tick for value, or -1 when off scale. */
int tui_chart_tick_col(const tui_chart_scale *scale, double value);
/* Writes an axis line of width columns with decade labels ("1x", "10x",
 * "100x", ...) placed where they fit without overlapping.  out needs
 * width+1 bytes. */
void tui_chart_axis(const tui_chart_scale *scale, char *out, size_t out_size);

#endif
