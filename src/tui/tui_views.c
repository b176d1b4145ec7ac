#include "tui/tui_views.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/tui_draw.h"
#include "tui/tui_roof.h"
#include "tui/tui_sweep.h"
#include "tui/tui_text.h"
#include "tui/tui_timeline.h"

#define VIEW_MAX 256

static void glyph(WINDOW *w, int y, int x, const char *g, tui_role role)
{
    wattrset(w, tui_theme_attr(role));
    mvwaddstr(w, y, x, g);
    wattrset(w, 0);
}

/* ---- timeline ---------------------------------------------------------------- */

static void legend(WINDOW *w, int y, int x, int width, const tui_timeline *v, bool ascii)
{
    bool present[TLM_COUNT] = {false};
    int col = 0;
    for (size_t i = 0; i < v->t.nitems; i++) {
        const tl_item *it = &v->t.items[i];
        switch (it->kind) {
        case TL_KERNEL: present[TLM_KERNEL] = true; break;
        case TL_MEMSET: present[TLM_MEMSET] = true; break;
        case TL_API: present[TLM_API] = true; break;
        case TL_RANGE: present[TLM_RANGE] = true; break;
        case TL_MEMCPY:
            present[it->flags & TL_PAGEABLE ? TLM_PAGEABLE : it->flags & TL_PINNED ? TLM_PINNED : TLM_COPY] = true;
            break;
        }
    }
    present[TLM_IDLE] = v->gaps.n > 0;
    for (int m = TLM_IDLE; m < TLM_COUNT; m++) {
        tui_role role;
        const char *g = tui_timeline_glyph((tui_tlmark)m, ascii, &role);
        const char *name = tui_timeline_mark_name((tui_tlmark)m);
        int need = 2 + (int)strlen(name) + 2;
        if (!present[m])
            continue;
        if (col + need > width)
            break;
        glyph(w, y, x + col, g, role);
        col += 2;
        col += tui_draw_text(w, y, x + col, width - col, name, ROLE_DIM);
        col += 2;
    }
}

/* The time axis at row y: its labels, then a rule with a tick at each;
 * returns the row below it. */
static int timeline_axis(WINDOW *w, const tui_timeline *v, int y, int px, int pw, bool ascii)
{
    char line[1024];
    int ticks[64];
    int nt = tui_timeline_axis(v, pw, line, sizeof line, ticks, 64);
    tui_draw_text(w, y, px, pw, line, ROLE_DIM);
    tui_draw_text(w, y, 1, TUI_TL_LABEL_W, "time", ROLE_DIM);
    y++;
    for (int c = 0; c < pw; c++)
        glyph(w, y, px + c, ascii ? "-" : "\xE2\x94\x80", ROLE_DIM);
    for (int k = 0; k < nt; k++)
        glyph(w, y, px + ticks[k], ascii ? "+" : "\xE2\x94\xAC", ROLE_DIM);
    return y + 1;
}

/* The lanes that fit from row y (the selected one in view, each one to
 * three rows tall), then the GPU's idle row; false when out of memory. */
static bool timeline_lanes(WINDOW *w, const tui_app *a, int y, int px, int pw)
{
    const tui_timeline *v = &a->tl;
    int lanes_h = getmaxy(w) - 1 - y - 6, tall, top;
    tui_tlcell *cells;
    bool *idle;
    if (lanes_h < 1)
        lanes_h = 1;
    tall = v->t.nlanes > 0 ? lanes_h / (int)v->t.nlanes : 1;
    tall = tall < 1 ? 1 : tall > 3 ? 3 : tall;
    lanes_h /= tall;
    top = v->lane - lanes_h + 1 > 0 ? v->lane - lanes_h + 1 : 0;
    cells = malloc((size_t)pw * sizeof *cells);
    idle = malloc((size_t)pw * sizeof *idle);
    if (!cells || !idle) {
        free(cells);
        free(idle);
        return false;
    }
    for (int k = 0; k < lanes_h && (size_t)(top + k) < v->t.nlanes; k++, y += tall) {
        int lane = top + k;
        bool cur = lane == v->lane;
        tui_draw_text(w, y, 1, TUI_TL_LABEL_W, v->t.lanes[lane].name, cur ? ROLE_SELECTED : ROLE_NORMAL);
        tui_timeline_cells(v, lane, pw, cells);
        for (int c = 0; c < pw; c++) {
            tui_role role;
            const char *g = tui_timeline_glyph(cells[c].mark, a->ascii, &role);
            if (cells[c].mark == TLM_NONE)
                continue;
            for (int t = 0; t < tall; t++)
                glyph(w, y + t, px + c, g, cells[c].selected ? ROLE_SELECTED : role);
        }
    }
    tui_timeline_idle(v, pw, idle);
    tui_draw_text(w, y, 1, TUI_TL_LABEL_W, "GPU idle", ROLE_IDLE);
    for (int c = 0; c < pw; c++)
        if (idle[c])
            glyph(w, y, px + c, a->ascii ? "!" : "\xE2\x96\x80", ROLE_IDLE);
    free(cells);
    free(idle);
    return true;
}

/* The bottom of the timeline window: the newest message since it opened,
 * the selected item (or how to move), and the legend. */
static void timeline_bottom(WINDOW *w, const tui_app *a)
{
    const tui_timeline *v = &a->tl;
    int rows = getmaxy(w), inner = getmaxx(w) - 2;
    char line[1024];
    if (a->log.serial != a->tl_serial && tui_log_recent(&a->log, 0)) {
        const tui_log_entry *m = tui_log_recent(&a->log, 0);
        tui_draw_text(w, rows - 3, 1, inner, m->text,
                      m->level == TUI_LOG_ERROR ? ROLE_BAD : m->level == TUI_LOG_WARN ? ROLE_WARN : ROLE_OK);
    }
    tui_timeline_detail(v, a->ascii, line, sizeof line);
    if (line[0])
        tui_draw_wrapped(w, rows - 5, 1, inner, 2, line, ROLE_EMPH);
    else
        tui_draw_wrapped(w, rows - 5, 1, inner, 2, "Tab selects the next item on the lane, j/k another lane; +/- zoom, h/l pan, "
                                      "Enter zooms to the item, g shows everything", ROLE_DIM);
    legend(w, rows - 2, 1, inner, v, a->ascii);
}

void tui_views_timeline(WINDOW *win, const tui_app *app)
{
    const tui_timeline *v = &app->tl;
    int rows = getmaxy(win), cols = getmaxx(win), inner = cols - 2, y = 1;
    int pw = tui_timeline_plot_width(cols), px = 1 + TUI_TL_LABEL_W + 1;
    char title[TL_TITLE_MAX + 64], note[96], line[1024];
    werase(win);
    tui_timeline_window(v, note, sizeof note);
    snprintf(title, sizeof title, "Timeline: %s%s", v->t.title[0] ? v->t.title : "GPU",
             v->t.note[0] ? " (sample shipped with cudalab, not your GPU)" : "");
    tui_draw_box(win, title, note, true, app->ascii);
    if (!v->loaded) {
        tui_draw_text(win, 1, 1, inner, "no timeline read", ROLE_DIM);
        return;
    }
    tui_draw_footer(win, "T export  f roofline  Esc closes", app->ascii);
    if (rows < 10 || pw < 8) {
        tui_draw_text(win, 1, 1, inner, "the window is too small for the timeline", ROLE_BAD);
        return;
    }
    tui_timeline_summary(v, line, sizeof line);
    y += tui_draw_wrapped(win, y, 1, inner, 2, line, ROLE_NORMAL);
    y = timeline_axis(win, v, y, px, pw, app->ascii);
    if (!timeline_lanes(win, app, y, px, pw))
        return;
    timeline_bottom(win, app);
}

/* ---- the log-log plots: roofline, GB/s by size ---------------------------------------- */

/* A plot's row label ("100G", "0.01") into buf, "" where none falls. */
typedef const char *(*plot_ylabel_fn)(const void *plot, int row, char *buf, size_t n);

/* A plot's frame from row y0: the caption above the y labels, label(plot,
 * row) right-aligned in yw columns beside each of h rows, the vertical
 * axis, and the corner and rule under the pw columns of the plot. */
static void plot_frame(WINDOW *w, int y0, int yw, int h, int pw, const char *caption,
                       plot_ylabel_fn label, const void *plot, bool ascii)
{
    int gx = 1 + yw + 1;
    tui_draw_text(w, y0, 1, yw + 1, caption, ROLE_DIM);
    for (int r = 0; r < h; r++) {
        char buf[16];
        tui_draw_rtext(w, y0 + 1 + r, 1 + yw, yw, label(plot, r, buf, sizeof buf), ROLE_DIM);
        glyph(w, y0 + 1 + r, gx, ascii ? "|" : "\xE2\x94\x82", ROLE_DIM);
    }
    glyph(w, y0 + 1 + h, gx, ascii ? "+" : "\xE2\x94\x94", ROLE_DIM);
    for (int c = 0; c < pw; c++)
        glyph(w, y0 + 1 + h, gx + 1 + c, ascii ? "-" : "\xE2\x94\x80", ROLE_DIM);
}

/* ---- roofline -------------------------------------------------------------------- */

/* Why a plot is not drawn (a), and what to do about it (b, may be NULL). */
static void view_message(WINDOW *w, const char *a, const char *b)
{
    int cols = getmaxx(w), rows = getmaxy(w), y = 2;
    y += tui_draw_wrapped(w, y, 2, cols - 4, rows - 4, a, ROLE_WARN);
    if (b)
        tui_draw_wrapped(w, y + 1, 2, cols - 4, rows - 3 - y, b, ROLE_DIM);
}

/* Where the plot and the legend of points go: the legend beside the plot
 * on a wide window, else under it. */
typedef struct roof_place {
    bool beside;
    int plot_w, plot_h;
    int leg_x, leg_y, leg_h;
} roof_place;

static roof_place roof_layout(int rows, int cols, size_t np, int y0)
{
    int inner = cols - 2;
    roof_place pl = {.beside = cols >= 110};
    if (pl.beside) {
        pl.plot_w = inner - TUI_ROOF_YLABEL_W - 2 - 52;
        pl.plot_h = rows - 2 - y0 - 1;
        pl.leg_x = 1 + TUI_ROOF_YLABEL_W + 2 + pl.plot_w + 2;
        pl.leg_y = y0;
        pl.leg_h = rows - 1 - y0;
    } else {
        int avail = rows - 2 - y0 - 1;
        pl.leg_h = (int)np < avail / 3 ? (int)np : avail / 3;
        if (pl.leg_h < 1)
            pl.leg_h = 1;
        pl.plot_w = inner - TUI_ROOF_YLABEL_W - 2;
        pl.plot_h = avail - pl.leg_h - 1;
        pl.leg_x = 1;
        pl.leg_y = y0 + pl.plot_h + 2;
    }
    return pl;
}

static const char *roof_ylabel(const void *plot, int row, char *buf, size_t n)
{
    return tui_roof_ylabel(plot, row, buf, n);
}

/* The plotted grid p from row y0: the FLOP/s labels and axis, the roofs
 * and the points (the learner's in the OK colour), the FLOP/B axis. */
static void roof_grid(WINDOW *w, const tui_roofplot *p, int y0, bool ascii)
{
    int gx = 1 + TUI_ROOF_YLABEL_W + 1, inner = getmaxx(w) - 2;
    char line[512];
    plot_frame(w, y0, TUI_ROOF_YLABEL_W, p->h, p->w, "FLOP/s", roof_ylabel, p, ascii);
    for (int r = 0; r < p->h; r++) {
        for (int c = 0; c < p->w; c++) {
            const tui_roofcell *cell = tui_roof_cell(p, r, c);
            tui_role role;
            const char *g = tui_roof_glyph(cell->mark, ascii, &role);
            char letter[2] = {cell->letter, '\0'};
            if (cell->mark == RFM_NONE)
                continue;
            if (cell->mark == RFM_POINT)
                glyph(w, y0 + 1 + r, gx + 1 + c, letter, cell->mine ? ROLE_OK : ROLE_WARN);
            else
                glyph(w, y0 + 1 + r, gx + 1 + c, g, role);
        }
    }
    snprintf(line, sizeof line, "%s  FLOP/B", p->xaxis);
    tui_draw_text(w, y0 + 2 + p->h, gx + 1, inner - gx, line, ROLE_DIM);
}

/* The legend: each point's letter and figures, from the scrolled one. */
static void roof_legend(WINDOW *w, const tui_app *a, const roofline *roof, const tui_roofpt *pts,
                        size_t np, roof_place pl)
{
    int rows = getmaxy(w), cols = getmaxx(w);
    int scroll = a->plot_scroll;
    int width = pl.beside ? cols - 1 - pl.leg_x : cols - 2;
    char line[512];
    if (scroll > (int)np - pl.leg_h)
        scroll = (int)np - pl.leg_h > 0 ? (int)np - pl.leg_h : 0;
    if (pl.beside)
        pl.leg_h = rows - 1 - pl.leg_y;
    for (int k = 0; k < pl.leg_h && (size_t)(scroll + k) < np; k++) {
        size_t i = (size_t)(scroll + k);
        tui_roof_describe(roof, &pts[i], tui_roof_letter(i), line, sizeof line);
        if (pl.beside)
            tui_draw_wrapped(w, pl.leg_y + k, pl.leg_x, width, 1, line, pts[i].mine ? ROLE_OK : ROLE_NORMAL);
        else
            tui_draw_text(w, pl.leg_y + k, pl.leg_x, width, line, pts[i].mine ? ROLE_OK : ROLE_NORMAL);
    }
    if ((int)np > pl.leg_h)
        tui_draw_footer(w, "Up/Down scroll the points  Esc closes", a->ascii);
}

/* The points of the rows shown with a result, into pts; returns how many. */
static size_t roof_points(const tui_app *a, tui_roofpt *pts)
{
    static run_result res[VIEW_MAX];
    size_t idx[VIEW_MAX], n = tui_app_rows(a, idx, VIEW_MAX), nres = 0;
    for (size_t k = 0; k < n; k++)
        if (a->ls[a->sel].table.v[idx[k]].has_result)
            res[nres++] = a->ls[a->sel].table.v[idx[k]].r;
    return tui_roof_points(res, nres, pts, TUI_ROOF_MAX_POINTS);
}

void tui_views_roofline(WINDOW *win, const tui_app *app)
{
    const lab *l = tui_app_lab(app);
    int rows = getmaxy(win), cols = getmaxx(win), inner = cols - 2, y0 = 2;
    size_t np;
    tui_roofpt pts[TUI_ROOF_MAX_POINTS];
    roofline roof;
    tui_roofplot p;
    roof_place pl;
    char title[128], line[512];
    bool measured;
    cl_err e;
    werase(win);
    snprintf(title, sizeof title, "Roofline: %s (log-log)", l ? l->id : "");
    tui_draw_box(win, title, "Esc closes", true, app->ascii);
    if (!l)
        return;
    if (!app->dev_known || !app->dev.present) {
        view_message(
            win,
            app->dev_known ? "no CUDA device found: the roofline needs this GPU's peaks "
                             "(its FP32 rate and measured copy bandwidth)"
                           : "waiting for the GPU worker to report the device",
            "On a machine with a GPU, run the lab (R); in the profiling lab the roofline experiment "
            "places one kernel at rising FLOPs per byte.");
        return;
    }
    np = roof_points(app, pts);
    measured = app->dev.peak_bw_measured_gbs > 0;
    roof.peak_gflops = app->dev.peak_fp32_tflops * 1e3;
    roof.peak_gbs = measured ? app->dev.peak_bw_measured_gbs : app->dev.peak_bw_theory_gbs;
    if (!roofline_valid(&roof)) {
        view_message(win,
                     "the device reported no FP32 peak or bandwidth, so there is no roof to draw",
                     NULL);
        return;
    }
    tui_roof_header(&roof, measured, line, sizeof line);
    tui_draw_text(win, 1, 1, inner, line, ROLE_NORMAL);
    if (np == 0) {
        view_message(win, "nothing measured here with both a FLOP rate and a bandwidth yet",
                     "Run the lab (R) at this size; in the profiling lab the roofline experiment places one "
                     "kernel at rising FLOPs per byte.");
        return;
    }
    pl = roof_layout(rows, cols, np, y0);
    err_clear(&e);
    if (!tui_roof_plot(&roof, pts, np, pl.plot_w, pl.plot_h - 1, &p, &e)) {
        tui_roof_free(&p);
        view_message(win, e.msg, NULL);
        return;
    }
    roof_grid(win, &p, y0, app->ascii);
    tui_roof_free(&p);
    roof_legend(win, app, &roof, pts, np, pl);
}

/* ---- GB/s by size ------------------------------------------------------------------ */

#define SWEEP_MIN_W 32          /* the smallest plot drawn, in cells */
#define SWEEP_MIN_H 4

/* The series of the rows measured in the picked exercise's scope, every size. */
static void sweep_series(const tui_app *a, tui_sweep *sw)
{
    const tui_runtable *t = &a->ls[a->sel].table;
    size_t idx[VIEW_MAX], n = tui_runtable_view(t, NULL, idx, VIEW_MAX);
    tui_sweep_init(sw);
    for (size_t k = 0; k < n; k++)
        if (t->v[idx[k]].has_result)
            tui_sweep_add(sw, &t->v[idx[k]].r);
    tui_sweep_finish(sw);
}

/* A series' title: its variant's in the lab, else NULL (its row label). */
static const char *sweep_title(const lab *l, const tui_sweepseries *s)
{
    const lab_variant *v = lab_variant_find(l, s->variant);
    return v && v->title ? v->title : NULL;
}

/* Nothing to plot: why, and how to get rows. */
static void sweep_empty(WINDOW *w, const tui_app *a, const tui_sweep *sw)
{
    char why[1024], how[512];
    size_t nsizes = 0;
    const char *r = a->dev.reason;
    bool gpu = !a->dev_known || a->dev.present;
    tui_app_sizes(a, a->sel, &nsizes);
    if (!gpu)
        snprintf(why, sizeof why, "%s%s: nothing can be measured on this machine, so nothing is "
                 "plotted here yet", strncmp(r, "no CUDA device found", 20) == 0 ? "" :
                 "no CUDA device found: ", r[0] ? r : "reason unknown");
    else if (sw->failed > 0)
        snprintf(why, sizeof why, "nothing measured correctly at two sizes or more yet: %zu row%s "
                 "did not run correctly (%s)", sw->failed, sw->failed == 1 ? "" : "s", sw->failure);
    else
        snprintf(why, sizeof why, "nothing measured at two sizes or more yet");
    if (nsizes >= 2)
        snprintf(how, sizeof how, "%s the lab (R) at two or more of its sizes (s picks the next "
                 "size): each row then draws its GB/s across the sizes, and the plot shows where it "
                 "stops being latency-bound.", gpu ? "Run" : "On a machine with a GPU, run");
    else
        snprintf(how, sizeof how, "%s the lab (R): rows measured at several sizes, such as the "
                 "multigpu lab's all-reduces from 8 B to 1 GiB, plot their GB/s here.",
                 gpu ? "Run" : "On a machine with a GPU, run");
    view_message(w, why, how);
}

static const char *sweep_ylabel(const void *plot, int row, char *buf, size_t n)
{
    return tui_sweep_ylabel(plot, row, buf, n);
}

/* The grid p from row y0: the GB/s labels and axis, the points, the axis
 * with each series' half-bandwidth letter, the size labels, the regions. */
static void sweep_grid(WINDOW *w, const tui_sweepplot *p, bool bytes, int y0, bool ascii)
{
    int gx = 1 + TUI_SWEEP_YLABEL_W + 1, inner = getmaxx(w) - 2, yb = y0 + 1 + p->h;
    tui_role half_role;
    const char *half = tui_sweep_glyph(SWM_HALF, ascii, &half_role);
    plot_frame(w, y0, TUI_SWEEP_YLABEL_W, p->h, p->w, "GB/s", sweep_ylabel, p, ascii);
    for (int r = 0; r < p->h; r++) {
        for (int c = 0; c < p->w; c++) {
            const tui_sweepcell *cell = tui_sweep_cell(p, r, c);
            tui_role role;
            const char *g = tui_sweep_glyph(cell->mark, ascii, &role);
            char letter[2] = {cell->letter, '\0'};
            if (cell->mark == SWM_NONE)
                continue;
            if (cell->mark == SWM_POINT)
                glyph(w, y0 + 1 + r, gx + 1 + c, letter, cell->mine ? ROLE_OK : ROLE_WARN);
            else
                glyph(w, y0 + 1 + r, gx + 1 + c, g, cell->mine && cell->mark == SWM_LINE ? ROLE_OK : role);
        }
    }
    for (int c = 0; c < p->w; c++) {
        char m[2] = {p->marks[c], '\0'};
        if (m[0] != ' ')
            glyph(w, yb, gx + 1 + c, m, ROLE_EMPH);
    }
    tui_draw_text(w, yb + 1, 1, TUI_SWEEP_YLABEL_W, bytes ? "bytes" : "count", ROLE_DIM);
    tui_draw_text(w, yb + 1, gx + 1, inner - gx, p->xaxis, ROLE_DIM);
    tui_draw_text(w, yb + 2, gx + 1, inner - gx, p->regions, ROLE_NORMAL);
    if (p->half_col >= 0)
        glyph(w, yb + 2, gx + 1 + p->half_col, half, half_role);
}

/* The legend from row y, leg_h lines from the scrolled series on. */
static void sweep_legend(WINDOW *w, const tui_app *a, const lab *l, const tui_sweep *sw, int y,
                         int leg_h)
{
    int scroll = a->plot_scroll, inner = getmaxx(w) - 2;
    char line[512], shown[512];
    if (scroll > (int)sw->n - leg_h)
        scroll = (int)sw->n - leg_h;
    for (int k = 0; k < leg_h && (size_t)(scroll + k) < sw->n; k++) {
        size_t i = (size_t)(scroll + k);
        tui_sweep_describe(sw, i, sweep_title(l, &sw->s[i]), line, sizeof line);
        tui_text_clip(line, inner, tui_glyphs_get(a->ascii)->ellipsis, shown, sizeof shown);
        tui_draw_text(w, y + k, 1, inner, shown, sw->s[i].mine ? ROLE_OK : ROLE_NORMAL);
    }
    if ((int)sw->n > leg_h)
        tui_draw_footer(w, "Up/Down scroll the series  f roofline  Esc closes", a->ascii);
}

void tui_views_sweep(WINDOW *win, const tui_app *app)
{
    const lab *l = tui_app_lab(app);
    int rows = getmaxy(win), cols = getmaxx(win), inner = cols - 2, plot_w = inner - TUI_SWEEP_YLABEL_W - 3;
    int head_h = rows >= 24 ? 3 : rows >= 18 ? 2 : 1, need, y0, avail, leg_h, plot_h;
    size_t st[4], ln[4];
    static tui_sweep sw;
    tui_sweepplot p;
    char title[128], head[1024], line[256];
    cl_err e;
    werase(win);
    snprintf(title, sizeof title, "GB/s by size: %s (log-log)", l ? l->id : "");
    tui_draw_box(win, title, NULL, true, app->ascii);
    tui_draw_footer(win, "f roofline  Esc closes", app->ascii);
    if (!l)
        return;
    sweep_series(app, &sw);
    if (sw.n == 0) {
        sweep_empty(win, app, &sw);
        return;
    }
    /* the whole reading when it fits in head_h lines, else its figures */
    tui_sweep_header(&sw, sweep_title(l, &sw.s[sw.best]), false, head, sizeof head);
    if ((int)tui_text_wrap(head, inner, st, ln, 4) > head_h)
        tui_sweep_header(&sw, sweep_title(l, &sw.s[sw.best]), true, head, sizeof head);
    need = (int)tui_text_wrap(head, inner, st, ln, 4);
    y0 = 1 + (need < head_h ? need : head_h);
    /* under the header: the caption, the plot, its axis, labels and
     * regions, a gap, the legend */
    avail = rows - 2 - y0;
    leg_h = (int)sw.n < avail / 4 ? (int)sw.n : avail / 4 > 1 ? avail / 4 : 1;
    plot_h = avail - 5 - leg_h;
    if (plot_w < SWEEP_MIN_W || plot_h < SWEEP_MIN_H) {
        snprintf(line, sizeof line, "the window is too small for the plot (%d x %d): make the "
                 "terminal at least %d columns wide and %d rows high", cols, rows,
                 SWEEP_MIN_W + TUI_SWEEP_YLABEL_W + 5, rows - plot_h + SWEEP_MIN_H + 1);
        view_message(win, line, NULL);
        return;
    }
    err_clear(&e);
    if (!tui_sweep_plot(&sw, plot_w, plot_h, &p, &e)) {
        tui_sweep_free(&p);
        view_message(win, e.msg, NULL);
        return;
    }
    tui_draw_wrapped(win, 1, 1, inner, head_h, head, ROLE_NORMAL);
    sweep_grid(win, &p, sw.bytes, y0, app->ascii);
    tui_sweep_free(&p);
    sweep_legend(win, app, l, &sw, y0 + plot_h + 5, leg_h);
}

/* ---- messages ------------------------------------------------------------------ */

void tui_views_messages(WINDOW *win, const tui_app *app)
{
    int rows = getmaxy(win), cols = getmaxx(win), width = cols - 4, vis = rows - 2, line = 0;
    char note[48], text[TUI_LOG_TEXT + 16];
    werase(win);
    snprintf(note, sizeof note, "%zu message%s", app->log.n, app->log.n == 1 ? "" : "s");
    tui_draw_box(win, "Messages", note, true, app->ascii);
    if (app->log.n == 0)
        tui_draw_text(win, 1, 2, width, "no messages yet", ROLE_DIM);
    for (size_t i = app->log.n; i > 0 && line < app->msg_scroll + vis; i--) {
        const tui_log_entry *e = tui_log_recent(&app->log, i - 1);
        size_t st[64], ln[64], nl = tui_text_wrap(tui_log_text(e, text, sizeof text), width, st, ln, 64);
        tui_role role = e->level == TUI_LOG_ERROR ? ROLE_BAD : e->level == TUI_LOG_WARN ? ROLE_WARN
                                                                                       : ROLE_NORMAL;
        for (size_t k = 0; k < nl && k < 64; k++, line++)
            if (line >= app->msg_scroll && line < app->msg_scroll + vis)
                tui_draw_nstr(win, 1 + line - app->msg_scroll, 2, width, text + st[k], ln[k],
                              tui_theme_attr(role));
    }
    tui_draw_footer(win, "Up/Down/PgUp/PgDn scroll  Esc closes", app->ascii);
}
