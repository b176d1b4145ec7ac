#include "tui/tui_layout.h"

#include <string.h>

#define TABLE_BESIDE_W 64      /* narrowest table worth a chart beside it */
#define TABLE_IDEAL_W 80       /* every column at a comfortable width */
#define CHART_GOOD_W 30
#define CHART_MIN_W 24
#define CHART_MIN_H 6

static int clampi(int v, int lo, int hi)
{
    if (v < lo)
        return lo;
    if (v > hi)
        return hi;
    return v;
}

static tui_rect rect(int y, int x, int h, int w)
{
    tui_rect r = {.y = y, .x = x, .h = h, .w = w};
    if (h <= 0 || w <= 0) {
        r.h = 0;
        r.w = 0;
    }
    return r;
}

static tui_rect centred(int rows, int cols, int h, int w)
{
    if (h > rows)
        h = rows;
    if (w > cols)
        w = cols;
    return rect((rows - h) / 2, (cols - w) / 2, h, w);
}

bool tui_rect_empty(tui_rect rect)
{
    return rect.h <= 0 || rect.w <= 0;
}

bool tui_rect_contains(tui_rect rect, int row, int col)
{
    return !tui_rect_empty(rect) && row >= rect.y && row < rect.y + rect.h && col >= rect.x &&
           col < rect.x + rect.w;
}

bool tui_rect_overlap(tui_rect first, tui_rect second)
{
    if (tui_rect_empty(first) || tui_rect_empty(second))
        return false;
    return first.y < second.y + second.h && second.y < first.y + first.h &&
           first.x < second.x + second.w && second.x < first.x + first.w;
}

void tui_layout_min(tui_pane_id pane, int *height, int *width)
{
    static const int mins[TUI_P_COUNT][2] = {
        [TUI_P_LABS] = {3, 16},       [TUI_P_LESSON] = {5, 36},
        [TUI_P_RUN] = {7, 36},        [TUI_P_MILESTONES] = {4, 16},
        [TUI_P_DEVICE] = {7, 16},     [TUI_P_LOG] = {1, 40},
        [TUI_P_STATUS] = {1, 40},
    };
    *height = mins[pane][0];
    *width = mins[pane][1];
}

static void beside(tui_layout *l, int iy, int ix, int ih, int iw)
{
    int tw = iw - CHART_GOOD_W - 1;
    if (tw > TABLE_IDEAL_W)
        tw = TABLE_IDEAL_W + (tw - TABLE_IDEAL_W) / 3;
    if (tw > 96)
        tw = 96;
    if (tw < TABLE_BESIDE_W)
        tw = TABLE_BESIDE_W;
    l->run_table = rect(iy, ix, ih, tw);
    l->run_chart = rect(iy, ix + tw + 1, ih, iw - tw - 1);
}

static void run_split(tui_layout *l, bool tall_chart)
{
    tui_rect run = l->pane[TUI_P_RUN];
    int iy = run.y + 1, ix = run.x + 1, ih = run.h - 2, iw = run.w - 2;
    l->run_table = rect(iy, ix, ih, iw);
    l->run_chart = rect(0, 0, 0, 0);
    if (ih <= 0 || iw <= 0)
        return;
    if (iw >= TABLE_IDEAL_W + 1 + CHART_GOOD_W && ih >= CHART_MIN_H) {
        beside(l, iy, ix, ih, iw);
    } else if (ih >= (tall_chart ? 24 : 22)) {
        int th = ih / 2 + 1;
        l->run_table = rect(iy, ix, th, iw);
        l->run_chart = rect(iy + th + 1, ix, ih - th - 1, iw);
    } else if (iw >= TABLE_BESIDE_W + 1 + CHART_GOOD_W && ih >= CHART_MIN_H) {
        beside(l, iy, ix, ih, iw);
    }
}

void tui_layout_compute(int rows, int cols, int nlabs, tui_layout *out)
{
    int logh, body, sw, rw, labs_h, dev_h, ms_h;

    memset(out, 0, sizeof *out);
    out->rows = rows;
    out->cols = cols;
    if (rows < TUI_MIN_ROWS || cols < TUI_MIN_COLS) {
        out->too_small = true;
        return;
    }
    if (nlabs < 1)
        nlabs = 1;

    out->pane[TUI_P_STATUS] = rect(rows - 1, 0, 1, cols);
    if (rows >= 30) {
        out->log_boxed = true;
        logh = clampi(3 + (rows - 30) / 10, 3, 8) + 2;
    } else {
        logh = 1;
    }
    out->pane[TUI_P_LOG] = rect(rows - 1 - logh, 0, logh, cols);
    body = rows - 1 - logh;

    /* The side column grows with the terminal, so lab titles read whole
     * from about 140 columns on (the longest shipped one from about 160). */
    if (cols < 70)
        sw = 18;
    else if (cols < 100)
        sw = 22;
    else
        sw = clampi(cols * 2 / 9, 24, 38);
    rw = cols - sw;

    labs_h = clampi(nlabs + 2, 3, body * 2 / 5 > 3 ? body * 2 / 5 : 3);
    dev_h = body - labs_h - 7 >= 5 ? 7 : 0;
    ms_h = body - labs_h - dev_h;
    out->pane[TUI_P_LABS] = rect(0, 0, labs_h, sw);
    out->pane[TUI_P_MILESTONES] = rect(labs_h, 0, ms_h, sw);
    out->pane[TUI_P_DEVICE] = rect(labs_h + ms_h, 0, dev_h, sw);

    if (rw >= 150) {
        int lw = clampi(rw * 45 / 100, 60, 104);
        out->wide = true;
        out->pane[TUI_P_LESSON] = rect(0, sw, body, lw);
        out->pane[TUI_P_RUN] = rect(0, sw + lw, body, rw - lw);
        run_split(out, true);
    } else {
        int run_h = clampi(body / 2, 7, body >= 60 ? body * 11 / 20 : 20);
        if (body - run_h < 5)
            run_h = body - 5;
        out->pane[TUI_P_LESSON] = rect(0, sw, body - run_h, rw);
        out->pane[TUI_P_RUN] = rect(body - run_h, sw, run_h, rw);
        run_split(out, false);
    }

    out->help = centred(rows, cols, rows - 2, 76);
    out->quiz = centred(rows, cols, rows - 4 < 22 ? rows - 4 : 22, cols - 6 < 80 ? cols - 6 : 80);
    out->confirm = centred(rows, cols, 5, cols - 4 < 52 ? cols - 4 : 52);
    out->view = rect(0, 0, rows - 1, cols);
}

int tui_layout_hit(const tui_layout *lay, int row, int col)
{
    if (lay->too_small)
        return -1;
    for (int p = 0; p < TUI_P_COUNT; p++)
        if (tui_rect_contains(lay->pane[p], row, col))
            return p;
    return -1;
}
