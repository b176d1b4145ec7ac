#include "tui/tui_chart.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

bool tui_chart_scale_for(const double *v, size_t n, int width, tui_chart_scale *s)
{
    double mn = 1.0, mx = 10.0;
    memset(s, 0, sizeof *s);
    if (width < 2)
        return false;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(v[i]) || v[i] <= 0)
            continue;
        if (v[i] < mn)
            mn = v[i];
        if (v[i] > mx)
            mx = v[i];
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
    s->lo = pow(10.0, elo);
    s->hi = pow(10.0, ehi);
    s->decades = (int)(ehi - elo);
    s->width = width;
    return true;
}

static double frac(const tui_chart_scale *s, double v)
{
    return (log10(v) - log10(s->lo)) / (log10(s->hi) - log10(s->lo));
}

int tui_chart_eighths(const tui_chart_scale *s, double v)
{
    double f;
    int e;
    if (s->width <= 0 || !isfinite(v) || v <= s->lo)
        return 0;
    f = frac(s, v);
    if (f > 1.0)
        f = 1.0;
    e = (int)lround(f * s->width * 8);
    if (e < 1)
        e = 1;
    return e;
}

int tui_chart_tick_col(const tui_chart_scale *s, double t)
{
    double f;
    int c;
    if (s->width <= 0 || !(t >= s->lo * 0.999) || t > s->hi * 1.001)
        return -1;
    f = frac(s, t);
    c = (int)lround(f * s->width);
    if (c > s->width - 1)
        c = s->width - 1;
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

void tui_chart_axis(const tui_chart_scale *s, char *out, size_t n)
{
    int w = s->width, next_free = 0;
    if (n == 0)
        return;
    if (w > (int)n - 1)
        w = (int)n - 1;
    if (w < 0)
        w = 0;
    memset(out, ' ', (size_t)w);
    out[w] = '\0';
    for (int d = 0; d <= s->decades; d++) {
        double t = s->lo * pow(10.0, d);
        char lab[24];
        int col = tui_chart_tick_col(s, t), len, at;
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
