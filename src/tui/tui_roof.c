#include "tui/tui_roof.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t tui_roof_points(const run_result *rows, size_t nrows, tui_roofpt *out, size_t max)
{
    size_t k = 0;
    for (int mine = 1; mine >= 0; mine--)
        for (size_t i = 0; i < nrows && k < max; i++) {
            const run_result *r = &rows[i];
            roofline_point p;
            if ((r->kind == RK_EXERCISE) != (mine == 1) || r->status != RS_CORRECT || r->kind == RK_CPU ||
                r->kind == RK_CPU_MT || !roofline_point_from_rates(r->gbps, r->tflops, &p))
                continue;
            snprintf(out[k].label, sizeof out[k].label, "%s", r->label[0] ? r->label : r->variant);
            out[k].ai = p.ai;
            out[k].gflops = p.gflops;
            out[k].mine = r->kind == RK_EXERCISE;
            k++;
        }
    return k;
}

void tui_roof_free(tui_roofplot *plot)
{
    free(plot->cells);
    memset(plot, 0, sizeof *plot);
}

static tui_roofcell *cell(tui_roofplot *p, int row, int col)
{
    return &p->cells[(size_t)row * (size_t)p->w + (size_t)col];
}

const tui_roofcell *tui_roof_cell(const tui_roofplot *plot, int row, int col)
{
    static const tui_roofcell none = {RFM_NONE, 0, false};
    if (!plot->cells || row < 0 || row >= plot->h || col < 0 || col >= plot->w)
        return &none;
    return &plot->cells[(size_t)row * (size_t)plot->w + (size_t)col];
}

static void decade_label(double v, const char *unit, char *buf, size_t n)
{
    if (v >= 1e3 * 0.999)
        snprintf(buf, n, "%g%s", v / 1e3, unit[0] == 'G' ? "T" : "k");
    else
        snprintf(buf, n, "%g%s", v, unit);
}

static void x_axis(tui_roofplot *p)
{
    int w = p->w < (int)sizeof p->xaxis - 1 ? p->w : (int)sizeof p->xaxis - 1, next = 0;
    memset(p->xaxis, ' ', (size_t)w);
    p->xaxis[w] = '\0';
    for (double d = p->g.x_lo; d < p->g.x_hi + 0.5; d += 1.0) {
        char l[16];
        size_t len;
        int c = (int)floor((d - p->g.x_lo) / (p->g.x_hi - p->g.x_lo) * (double)p->w);
        decade_label(pow(10.0, d), "", l, sizeof l);
        len = strlen(l);
        if (c >= w)
            c = w - (int)len;
        if (c < next || c < 0 || c + (int)len > w)
            continue;
        memcpy(p->xaxis + c, l, len);
        next = c + (int)len + 1;
    }
}

bool tui_roof_plot(const roofline *roof, const tui_roofpt *pts, size_t npts, int width, int height,
                   tui_roofplot *out, cl_err *err)
{
    roofline_point rp[TUI_ROOF_MAX_POINTS];
    int prev = -1;
    memset(out, 0, sizeof *out);
    if (npts > TUI_ROOF_MAX_POINTS)
        npts = TUI_ROOF_MAX_POINTS;
    for (size_t i = 0; i < npts; i++) {
        rp[i].ai = pts[i].ai;
        rp[i].gflops = pts[i].gflops;
    }
    if (!roofline_grid_fit(&out->g, width, height, roof, rp, npts, err))
        return false;
    out->w = width;
    out->h = height;
    out->cells = calloc((size_t)width * (size_t)height, sizeof *out->cells);
    if (!out->cells)
        return err_set(err, "out of memory for the roofline");
    out->ridge_col = roofline_ridge_col(&out->g, roof);
    for (int c = 0; c < width; c++) {
        int row = roofline_roof_row(&out->g, roof, c);
        bool memory = out->ridge_col < 0 ? roofline_col_ai(&out->g, c) < roofline_ridge(roof)
                                         : c < out->ridge_col;
        if (row < 0) {
            prev = -1;
            continue;
        }
        cell(out, row, c)->mark = memory ? RFM_MEMORY : RFM_COMPUTE;
        if (memory && prev > row + 1)
            for (int k = row + 1; k < prev && k < height; k++)
                cell(out, k, c)->mark = RFM_MEMORY;
        prev = row;
    }
    if (out->ridge_col >= 0) {
        int row = roofline_roof_row(&out->g, roof, out->ridge_col);
        if (row >= 0) {
            cell(out, row, out->ridge_col)->mark = RFM_RIDGE;
            for (int k = row + 1; k < height; k++)
                if (cell(out, k, out->ridge_col)->mark == RFM_NONE)
                    cell(out, k, out->ridge_col)->mark = RFM_DROP;
        }
    }
    for (size_t i = 0; i < npts; i++) {
        int c, row;
        if (!roofline_place(&out->g, pts[i].ai, pts[i].gflops, &c, &row))
            continue;
        cell(out, row, c)->mark = RFM_POINT;
        cell(out, row, c)->letter = tui_roof_letter(i);
        cell(out, row, c)->mine = pts[i].mine;
    }
    x_axis(out);
    return true;
}

const char *tui_roof_ylabel(const tui_roofplot *plot, int row, char *buf, size_t buf_size)
{
    if (buf_size == 0)
        return buf;
    buf[0] = '\0';
    if (!plot->cells)
        return buf;
    for (double d = ceil(plot->g.y_lo); d <= plot->g.y_hi; d += 1.0) {
        int c, rr;
        if (roofline_place(&plot->g, roofline_col_ai(&plot->g, 0), pow(10.0, d) * 1.0001, &c,
                           &rr) &&
            rr == row) {
            decade_label(pow(10.0, d), "G", buf, buf_size);
            break;
        }
    }
    return buf;
}

char tui_roof_letter(size_t index)
{
    if (index < 26)
        return (char)('A' + index);
    if (index < 52)
        return (char)('a' + (index - 26));
    return '*';
}

const char *tui_roof_glyph(tui_roofmark mark, bool ascii, tui_role *role)
{
    static const struct {
        const char *utf8, *ascii;
        tui_role role;
    } g[RFM_COUNT] = {
        [RFM_NONE] = {" ", " ", ROLE_NORMAL},
        [RFM_MEMORY] = {"\xE2\x95\xB1", "/", ROLE_COPY},
        [RFM_COMPUTE] = {"\xE2\x94\x80", "-", ROLE_KERNEL},
        [RFM_RIDGE] = {"+", "+", ROLE_EMPH},
        [RFM_DROP] = {"\xE2\x94\x8A", ":", ROLE_DIM},
        [RFM_POINT] = {"*", "*", ROLE_WARN},
    };
    if ((int)mark < 0 || mark >= RFM_COUNT)
        mark = RFM_NONE;
    if (role)
        *role = g[mark].role;
    return ascii ? g[mark].ascii : g[mark].utf8;
}

static void rate(double gflops, char *buf, size_t n)
{
    if (gflops >= 1e3)
        snprintf(buf, n, "%.3g TFLOP/s", gflops / 1e3);
    else
        snprintf(buf, n, "%.3g GFLOP/s", gflops);
}

void tui_roof_header(const roofline *roof, bool measured, char *buf, size_t buf_size)
{
    char c[32];
    rate(roof->peak_gflops, c, sizeof c);
    if (roof->peak_gbs >= 1e3)
        snprintf(buf, buf_size, "memory roof %.3g TB/s (%s), FP32 roof %s, ridge at %.3g FLOP/B",
                 roof->peak_gbs / 1e3, measured ? "measured copy" : "datasheet", c,
                 roofline_ridge(roof));
    else
        snprintf(buf, buf_size, "memory roof %.3g GB/s (%s), FP32 roof %s, ridge at %.3g FLOP/B",
                 roof->peak_gbs, measured ? "measured copy" : "datasheet", c, roofline_ridge(roof));
}

void tui_roof_describe(const roofline *roof, const tui_roofpt *point, char letter, char *buf,
                       size_t buf_size)
{
    char g[32];
    roofline_point rp = {point->ai, point->gflops};
    double pct = roofline_pct_of_roof(roof, &rp);
    rate(point->gflops, g, sizeof g);
    snprintf(buf, buf_size, "%c %s%s: %s at %.3g FLOP/B, %s, %.0f%% of its roof", letter,
             point->label, point->mine ? " (yours)" : "", g, point->ai,
             roofline_side_name(roofline_side_of(roof, point->ai)), pct >= 0 ? pct : 0.0);
}
