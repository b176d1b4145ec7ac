#include "tui/tui_runview.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/strfmt.h"
#include "tui/tui_chart.h"
#include "tui/tui_draw.h"
#include "tui/tui_fmt.h"
#include "tui/tui_text.h"

#define VIEW_MAX 256

typedef struct area {
    int y, x, h, w;     /* relative to the pane's window */
} area;

static area rel(const tui_layout *lay, tui_rect r)
{
    area a = {.y = r.y - lay->pane[TUI_P_RUN].y, .x = r.x - lay->pane[TUI_P_RUN].x, .h = r.h,
              .w = r.w};
    return a;
}

/* The picked exercise (in a lab of several: x picks another) and its sizes. */
static void draw_sizes(WINDOW *w, const tui_app *a, area ar)
{
    const lab *l = tui_app_lab(a);
    const lab_exercise *ex = tui_app_exercise(a);
    const tui_labstate *s = &a->ls[a->sel];
    size_t nsizes = 0;
    char *const *sizes = tui_app_sizes(a, a->sel, &nsizes);
    int x = ar.x;
    if (ex && l->nexercises > 1) {
        char item[RUN_ID_MAX + 16];
        snprintf(item, sizeof item, "[%s] ", ex->id[0] ? ex->id : "exercise");
        x += tui_draw_text(w, ar.y, x, ar.w, "x ", ROLE_DIM);
        x += tui_draw_text(w, ar.y, x, ar.x + ar.w - x, item, ROLE_EMPH);
    }
    x += tui_draw_text(w, ar.y, x, ar.x + ar.w - x, "size ", ROLE_DIM);
    for (size_t i = 0; i < nsizes && x < ar.x + ar.w; i++) {
        char item[RUN_SIZE_MAX + 4];
        bool cur = i == s->size_idx;
        snprintf(item, sizeof item, cur ? "[%s]" : " %s ", sizes[i]);
        x += tui_draw_text(w, ar.y, x, ar.x + ar.w - x, item, cur ? ROLE_EMPH : ROLE_DIM);
    }
    if (nsizes > 1 && x + 6 < ar.x + ar.w)
        tui_draw_text(w, ar.y, x + 1, ar.x + ar.w - x - 1, "(s/S)", ROLE_DIM);
}

static bool row_failed(const tui_row *r)
{
    return r->state == ROW_FAULT ||
           (r->has_result && (r->r.status == RS_ERROR || r->r.status == RS_FAULT));
}

static void draw_table(WINDOW *w, const tui_app *a, area ar, const size_t *idx, size_t n)
{
    const tui_labstate *s = &a->ls[a->sel];
    tui_colspec cols[RC_COUNT];
    int nc = tui_runtable_columns(ar.w, cols), vis = ar.h - 2;
    bool focus = a->focus == TUI_P_RUN;
    if (ar.h < 2)
        return;
    for (int c = 0; c < nc; c++) {
        const char *name = tui_runtable_colname(cols[c].id, cols[c].w);
        if (cols[c].right)
            tui_draw_rtext(w, ar.y + 1, ar.x + cols[c].x + cols[c].w, cols[c].w, name, ROLE_TITLE);
        else
            tui_draw_text(w, ar.y + 1, ar.x + cols[c].x + (cols[c].id == RC_VARIANT ? 2 : 0),
                          cols[c].w, name, ROLE_TITLE);
    }
    if (n == 0) {
        tui_draw_text(w, ar.y + 2, ar.x, ar.w, "nothing measured yet: press r or R to run", ROLE_DIM);
        return;
    }
    for (int r = 0; r < vis && (size_t)(s->run_scroll + r) < n; r++) {
        size_t k = (size_t)(s->run_scroll + r);
        const tui_row *row = &s->table.v[idx[k]];
        bool cur = k == s->run_cursor;
        bool failed = row_failed(row);
        int y = ar.y + 2 + r;
        if (cur)
            tui_draw_fill(w, y, ar.x, ar.w, focus ? ROLE_SELECTED : ROLE_DIM);
        for (int c = 0; c < nc; c++) {
            char buf[512];
            tui_role role;
            int cw = cols[c].w;
            if (failed && cols[c].id == RC_TIME) {
                int end = ar.w;
                for (int d = c + 1; d < nc; d++)
                    if (cols[d].id == RC_CHECK)
                        end = cols[d].x - 1;
                cw = end - cols[c].x;
            } else if (failed && cols[c].id != RC_VARIANT && cols[c].id != RC_CHECK) {
                continue;
            }
            tui_runtable_cell(row, cols[c].id, cw, a->ascii, a->spin, buf, sizeof buf, &role);
            if (cur && focus)
                role = ROLE_SELECTED;
            if (cols[c].right && !(failed && cols[c].id == RC_TIME))
                tui_draw_rtext(w, y, ar.x + cols[c].x + cw, cw, buf, role);
            else
                tui_draw_text(w, y, ar.x + cols[c].x, cw, buf, role);
        }
    }
}

static void draw_chart(WINDOW *w, const tui_app *a, area ar, const size_t *idx, size_t n, int first,
                       int scroll)
{
    const tui_labstate *s = &a->ls[a->sel];
    const tui_glyphs *g = tui_glyphs_get(a->ascii);
    double vals[VIEW_MAX];
    int lw, vw = 7, bw, y;
    tui_chart_scale sc;
    char axis[512];
    size_t shown = 0;
    if (ar.h < 3 || ar.w < 20)
        return;
    tui_draw_text(w, ar.y, ar.x, ar.w, "speedup over the CPU (log scale)", ROLE_TITLE);
    for (size_t k = 0; k < n; k++) {
        const tui_row *row = &s->table.v[idx[k]];
        vals[k] = row->has_result && !row_failed(row) ? row->r.speedup_cpu : 0;
    }
    /* labels as wide as the longest, up to two fifths of the chart */
    lw = 4;
    for (size_t k = 0; k < n; k++) {
        int lwk = tui_text_swidth(s->table.v[idx[k]].label);
        if (lwk > lw)
            lw = lwk;
    }
    if (lw > ar.w * 2 / 5)
        lw = ar.w * 2 / 5;
    bw = ar.w - lw - vw - 2;
    if (bw < 4 || !tui_chart_scale_for(vals, n, bw, &sc))
        return;
    y = ar.y + first;
    for (size_t k = (size_t)scroll; k < n && y < ar.y + ar.h - 1; k++) {
        const tui_row *row = &s->table.v[idx[k]];
        char v[TUI_FMT_MAX];
        int e = tui_chart_eighths(&sc, vals[k]), full = e / 8, part = e % 8, x;
        char cut[RUN_ID_MAX + 8];
        tui_draw_text(w, y, ar.x, lw, tui_text_clip(row->label, lw, g->ellipsis, cut, sizeof cut),
                      ROLE_NORMAL);
        x = ar.x + lw + 1;
        wattrset(w, tui_theme_attr(vals[k] > 0 && vals[k] < 1.0 ? ROLE_SLOW : ROLE_BAR));
        for (int c = 0; c < full; c++)
            mvwaddstr(w, y, x + c, g->bar_full);
        if (part > 0 && g->bar_part[part][0])
            mvwaddstr(w, y, x + full, g->bar_part[part]);
        else if (part >= 4 && !g->utf8)
            mvwaddstr(w, y, x + full, g->bar_full);
        wattrset(w, 0);
        if (vals[k] > 0)
            tui_draw_rtext(w, y, ar.x + ar.w, vw, tui_fmt_speedup(vals[k], v, sizeof v), ROLE_NORMAL);
        if (vals[k] > 0)
            shown++;
        y++;
    }
    if (shown == 0)
        tui_draw_text(w, ar.y + first < ar.y + ar.h - 1 ? ar.y + first : ar.y, ar.x + lw + 1, bw,
                      "no measurements at this size yet", ROLE_DIM);
    {
        int one = tui_chart_tick_col(&sc, 1.0);
        tui_chart_axis(&sc, axis, sizeof axis);
        tui_draw_text(w, ar.y + ar.h - 1, ar.x + lw + 1, bw, axis, ROLE_DIM);
        if (one >= 0 && shown > 0) {
            for (int yy = ar.y + first; yy < y; yy++) {
                chtype ch = mvwinch(w, yy, ar.x + lw + 1 + one) & A_CHARTEXT;
                if (ch == ' ')
                    tui_draw_text(w, yy, ar.x + lw + 1 + one, 1, a->ascii ? ":" : "\xE2\x94\x8A", ROLE_DIM);
            }
        }
    }
}

void tui_runview_draw(WINDOW *win, const tui_app *app, const tui_layout *lay)
{
    const lab *l = tui_app_lab(app);
    bool focus = app->focus == TUI_P_RUN;
    size_t idx[VIEW_MAX], n = 0;
    char title[128], note[64];
    area table = rel(lay, lay->run_table), chart = rel(lay, lay->run_chart);
    werase(win);
    if (!l) {
        tui_draw_box(win, "Run", NULL, focus, app->ascii);
        return;
    }
    snprintf(title, sizeof title, "Run: %s", l->id);
    note[0] = '\0';
    if (app->running && app->run_lab == app->sel)
        snprintf(note, sizeof note, "%s %d/%d rows",
                 tui_glyphs_get(app->ascii)
                     ->spinner[app->spin % (unsigned)tui_glyphs_get(app->ascii)->nspinner],
                 app->run_rows_done, app->run_rows);
    else if (app->running)
        snprintf(note, sizeof note, "running %s", app->labs->v[app->run_lab]->id);
    n = tui_app_rows(app, idx, VIEW_MAX);
    double recorded = 0;
    for (size_t i = 0; i < n; i++)
        if (app->ls[app->sel].table.v[idx[i]].recorded_at > recorded)
            recorded = app->ls[app->sel].table.v[idx[i]].recorded_at;
    if (!note[0] && recorded > 0) {
        time_t t = (time_t)recorded;
        struct tm tm;
        localtime_r(&t, &tm);
        strftime(note, sizeof note, "results of %Y-%m-%d %H:%M", &tm);
    }
    tui_draw_box(win, title, note, focus, app->ascii);
    if (table.h < 1 || table.w < 4)
        return;
    if (!l->problem || (l->nvariants == 0 && l->nexercises == 0)) {
        tui_draw_text(win, table.y, table.x, table.w, "this lab has nothing to run", ROLE_DIM);
        return;
    }
    draw_sizes(win, app, table);
    if (lay->run_chart.h > 0) {
        draw_table(win, app, table, idx, n);
        bool beside = lay->run_chart.y == lay->run_table.y;
        draw_chart(win, app, chart, idx, n, beside ? 2 : 1,
                   beside ? app->ls[app->sel].run_scroll : 0);
    } else if (app->chart_swap) {
        area rest = {.y = table.y + 1, .x = table.x, .h = table.h - 1, .w = table.w};
        draw_chart(win, app, rest, idx, n, 1, 0);
    } else {
        draw_table(win, app, table, idx, n);
    }
    /* The selected row's label is cut in a narrow table: the bottom
     * border shows it whole. */
    char foot[160] = "";
    const tui_labstate *s = &app->ls[app->sel];
    if (focus && s->run_cursor < n && !app->chart_swap) {
        tui_colspec cols[RC_COUNT];
        int nc = tui_runtable_columns(table.w, cols);
        const tui_row *row = &s->table.v[idx[s->run_cursor]];
        for (int c = 0; c < nc; c++)
            if (cols[c].id == RC_VARIANT && tui_text_swidth(row->label) + 2 > cols[c].w)
                snprintf(foot, sizeof foot, "%s", row->label);
    }
    if (lay->run_chart.h == 0 && foot[0])
        strfmt_append(foot, sizeof foot, strlen(foot), "  v: chart");
    else if (lay->run_chart.h == 0)
        snprintf(foot, sizeof foot, "%s", app->chart_swap ? "v: table" : "v: chart");
    tui_draw_footer(win, foot, app->ascii);
}
