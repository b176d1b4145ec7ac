#include "tui/tui_chart.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

bool tui_chart_scale_for(const double *values, size_t nvalues, int width, tui_chart_scale *scale)
{
    double mn = 1.0, mx = 10.0;
    memset(scale, 0, sizeof *scale);
    if (width < 2)
        return false;
    for (size_t i = 0; i < nvalues; i++) {
        if (!isfinite(values[i]) || values[i] <= 0)
            continue;
        if (values[i] < mn)
            mn = values[i];
        if (values[i] > mx)
            mx = values[i];
    }
    /* The lowest decade lies strictly below the smallest value, so that a
     * 1x bar (the CPU itself) still has a length. */
    double elo = floor(log10(mn) - 1e-9), ehi = ceil(log10(mx) - 1e-9);
    if (elo < -6)
        elo = -6;
    if (ehi > 9)
        ehi = 9;
    if (ehi <= elo)
        ehi = elo + 1;
    scale->lo = pow(10.0, elo);
    scale->hi = pow(10.0, ehi);
    scale->decades = (int)(ehi - elo);
    scale->width = width;
    return true;
}

static double frac(const tui_chart_scale *s, double v)
{
    return (log10(v) - log10(s->lo)) / (log10(s->hi) - log10(s->lo));
}

int tui_chart_eighths(const tui_chart_scale *scale, double value)
{
    double f;
    int e;
    if (scale->width <= 0 || !isfinite(value) || value <= scale->lo)
        return 0;
    f = frac(scale, value);
    if (f > 1.0)
        f = 1.0;
    e = (int)lround(f * scale->width * 8);
    if (e < 1)
        e = 1;
    return e;
}

int tui_chart_tick_col(const tui_chart_scale *scale, double value)
{
    double f;
    int c;
    if (scale->width <= 0 || !(value >= scale->lo * 0.999) || value > scale->hi * 1.001)
        return -1;
    f = frac(scale, value);
    c = (int)lround(f * scale->width);
    if (c > scale->width - 1)
        c = scale->width - 1;
    if (c < 0)
        c = 0;
    return c;
}

static void decade_label(double t, char *buf, size_t n)
{
    if (t >= 1.0)
        snprintf(buf, n, "%.0fx", t);
    else
        snprintf(buf, n, "%gx", t);
}

void tui_chart_axis(const tui_chart_scale *scale, char *out, size_t out_size)
{
    int w = scale->width, next_free = 0;
    if (out_size == 0)
        return;
    if (w > (int)out_size - 1)
        w = (int)out_size - 1;
    if (w < 0)
        w = 0;
    memset(out, ' ', (size_t)w);
    out[w] = '\0';
    for (int d = 0; d <= scale->decades; d++) {
        double t = scale->lo * pow(10.0, d);
        char lab[24];
        int col = tui_chart_tick_col(scale, t), len, at;
        if (col < 0)
            continue;
        decade_label(t, lab, sizeof lab);
        len = (int)strlen(lab);
        at = col - (d == 0 ? 0 : len / 2);
        if (at + len > w)
            at = w - len;
        if (at < next_free || at < 0)
            continue;
        memcpy(out + at, lab, (size_t)len);
        next_free = at + len + 1;
    }
}
