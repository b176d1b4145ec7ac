#include "tui/tui_panes.h"
#include "tui/tui_progress.h"

#include <stdio.h>
#include <string.h>

#include "core/units.h"
#include "tui/tui_draw.h"
#include "tui/tui_fmt.h"
#include "tui/tui_text.h"

#define LAB_WRAP_LINES 4   /* the most lines the selected lab's title takes */

void tui_panes_labs(WINDOW *win, const tui_app *app)
{
    int rows = getmaxy(win), cols = getmaxx(win), inner = cols - 2;
    bool focus = app->focus == TUI_P_LABS;
    char title[32];
    werase(win);
    snprintf(title, sizeof title, "Labs");
    tui_draw_box(win, title, NULL, focus, app->ascii);
    if (!app->labs || app->labs->n == 0) {
        tui_draw_text(win, 1, 1, inner, "no labs found", ROLE_BAD);
        return;
    }
    for (int r = 0, y = 1; y < rows - 1; r++, y++) {
        size_t i = (size_t)(app->labs_scroll + r);
        const lab *l;
        int reached, total, pw = 0;
        char prog[16] = "";
        bool sel = i == app->sel;
        tui_role role;
        if (i >= app->labs->n)
            break;
        l = app->labs->v[i];
        tui_app_progress(app, i, &reached, &total);
        if (total > 0) {
            snprintf(prog, sizeof prog, "%d/%d", reached, total);
            pw = (int)strlen(prog);
        }
        role = sel ? (focus ? ROLE_SELECTED : ROLE_EMPH) : ROLE_NORMAL;
        const char *name = l->title ? l->title : l->id;
        int tw = inner - 2 - (pw ? pw + 1 : 0), lines = 1;
        /* The selected lab's title is shown whole, wrapped over the lines
         * below it when the pane has room for all of them; else it is cut
         * here and reads whole in the lesson's border. */
        size_t at[LAB_WRAP_LINES], len[LAB_WRAP_LINES];
        if (sel && tw > 0) {
            size_t need = tui_text_wrap(name, tw, at, len, LAB_WRAP_LINES);
            if (need <= LAB_WRAP_LINES && (int)need <= rows - 1 - y)
                lines = (int)need;
        }
        if (sel)
            for (int k = 0; k < lines; k++)
                tui_draw_fill(win, y + k, 1, inner, role);
        tui_draw_text(win, y, 1, 2, sel ? tui_glyphs_get(app->ascii)->arrow : " ", role);
        if (sel && tw > 0 && lines > 1) {
            for (int k = 0; k < lines; k++) {
                char piece[256];
                size_t n = len[k] < sizeof piece - 1 ? len[k] : sizeof piece - 1;
                memcpy(piece, name + at[k], n);
                piece[n] = '\0';
                tui_draw_text(win, y + k, 3, tw, piece, role);
            }
        } else {
            char cut[256];
            tui_text_clip(name, tw, tui_glyphs_get(app->ascii)->ellipsis, cut, sizeof cut);
            tui_draw_text(win, y, 3, tw, cut, role);
        }
        if (pw)
            tui_draw_rtext(win, y, cols - 1, pw, prog,
                           sel && focus ? ROLE_SELECTED : reached == total ? ROLE_OK : ROLE_DIM);
        y += lines - 1;
    }
    if (app->labs_scroll > 0 || (size_t)(app->labs_scroll + rows - 2) < app->labs->n) {
        char more[24];
        snprintf(more, sizeof more, "%zu/%zu", app->sel + 1, app->labs->n);
        tui_draw_footer(win, more, app->ascii);
    }
}

static void ms_mark(const tui_app *a, tui_ms_state st, const char **mark, tui_role *role)
{
    const tui_glyphs *g = tui_glyphs_get(a->ascii);
    switch (st) {
    case TUI_MS_REACHED: *mark = g->ok; *role = ROLE_OK; break;
    case TUI_MS_MISSED: *mark = g->bad; *role = ROLE_BAD; break;
    case TUI_MS_ERROR: *mark = g->error; *role = ROLE_BAD; break;
    default: *mark = g->pending; *role = ROLE_DIM; break;
    }
}

#define MS_WRAP_LINES 8   /* the most lines the selected milestone's text takes */
#define MS_FIGURES_MAX 160

/* A milestone's first line(s) at row y: its mark, then its text; the
 * selected one (cur) shown whole, wrapped over as many lines as it needs
 * and the pane has (its line of figures below it), the others on one line
 * each.  Returns the lines the text took. */
static int ms_title(WINDOW *w, const tui_app *a, int y, const char *mark, tui_role role,
                    const char *text, bool cur)
{
    int rows = getmaxy(w), inner = getmaxx(w) - 2;
    tui_role trole = cur ? ROLE_SELECTED : ROLE_NORMAL;
    int mw = tui_text_swidth(mark), tw = inner - mw - 1, lines = 1;
    size_t at[MS_WRAP_LINES], len[MS_WRAP_LINES];
    if (cur && tw > 0) {
        size_t need = tui_text_wrap(text, tw, at, len, MS_WRAP_LINES);
        int room = rows - 2 - y;   /* lines left, the figures' line among them */
        lines = (int)(need < MS_WRAP_LINES ? need : MS_WRAP_LINES);
        if (lines > room - 1)
            lines = room - 1 > 1 ? room - 1 : 1;
        if (lines < 1)
            lines = 1;
    }
    if (cur)
        for (int k = 0; k <= lines && y + k < rows - 1; k++)
            tui_draw_fill(w, y + k, 1, inner, trole);
    tui_draw_text(w, y, 1, inner, mark, cur ? trole : role);
    if (cur && tw > 0) {
        for (int k = 0; k < lines; k++) {
            char piece[256];
            size_t n = len[k] < sizeof piece - 1 ? len[k] : sizeof piece - 1;
            memcpy(piece, text + at[k], n);
            piece[n] = '\0';
            tui_draw_text(w, y + k, 1 + mw + 1, tw, piece, trole);
        }
    } else {
        char cut[256];
        tui_text_clip(text, tw, tui_glyphs_get(a->ascii)->ellipsis, cut, sizeof cut);
        tui_draw_text(w, y, 1 + mw + 1, tw, cut, trole);
    }
    return lines;
}

/* A milestone's line of figures: its error, the value measured against the
 * target, the target, or the quiz's state; with math symbols unless
 * ascii. */
static void ms_figures(const tui_app *a, const lab_milestone *ms, const tui_ms *st,
                       char second[MS_FIGURES_MAX])
{
    if (st->state == TUI_MS_ERROR)
        snprintf(second, MS_FIGURES_MAX, "%s", st->error[0] ? st->error : "check failed");
    else if (st->shown[0])
        snprintf(second, MS_FIGURES_MAX, "%s", st->shown);
    else if (ms->target)
        snprintf(second, MS_FIGURES_MAX, "target %s", ms->target);
    else if (ms->quiz)
        snprintf(second, MS_FIGURES_MAX, "%s", st->state == TUI_MS_REACHED ? "quiz answered" :
                                              "quiz: Enter to answer");
    else
        second[0] = '\0';
    if (!a->ascii) {
        char pretty[MS_FIGURES_MAX * 2];
        tui_text_math(second, pretty, sizeof pretty);
        snprintf(second, MS_FIGURES_MAX, "%s", pretty);
    }
}

void tui_panes_milestones(WINDOW *win, const tui_app *app)
{
    int rows = getmaxy(win), cols = getmaxx(win), inner = cols - 2;
    bool focus = app->focus == TUI_P_MILESTONES;
    const lab *l = tui_app_lab(app);
    const tui_labstate *s = l ? &app->ls[app->sel] : NULL;
    char note[16] = "";
    int reached, total, y = 1;
    werase(win);
    if (l) {
        tui_app_progress(app, app->sel, &reached, &total);
        if (total > 0)
            snprintf(note, sizeof note, "%d/%d", reached, total);
    }
    tui_draw_box(win, "Milestones", note, focus, app->ascii);
    if (!l || l->nmilestones == 0) {
        tui_draw_text(win, 1, 1, inner, "no milestones", ROLE_DIM);
        return;
    }
    for (size_t m = (size_t)s->ms_scroll; m < l->nmilestones && y < rows - 1; m++) {
        const lab_milestone *ms = &l->milestones[m];
        const tui_ms *st = &s->ms[m];
        const char *mark;
        tui_role role;
        char second[MS_FIGURES_MAX];
        bool cur = m == s->ms_cursor && focus;
        ms_mark(app, st->state, &mark, &role);
        y += ms_title(win, app, y, mark, role, ms->text ? ms->text : ms->id, cur) - 1;
        ms_figures(app, ms, st, second);
        if (y + 1 < rows - 1)
            tui_draw_text(win, y + 1, 3, inner - 2, second,
                          cur ? ROLE_SELECTED : st->state == TUI_MS_ERROR ? ROLE_BAD : ROLE_DIM);
        y += 2;
    }
}

const char *tui_panes_device_short(const tui_app *app, char *buf, size_t buf_size)
{
    if (!app->dev_known)
        snprintf(buf, buf_size, "probing the GPU");
    else if (app->dev_lost)
        snprintf(buf, buf_size, "GPU worker not running");
    else if (!app->dev.present)
        snprintf(buf, buf_size, "no CUDA device found");
    else
        snprintf(buf, buf_size, "%s", app->dev.name);
    return buf;
}

static const char *strip_prefix(const char *reason)
{
    static const char pre[] = "no CUDA device found";
    if (strncmp(reason, pre, sizeof pre - 1) == 0) {
        reason += sizeof pre - 1;
        while (*reason == ':' || *reason == ' ')
            reason++;
    }
    return reason;
}

void tui_panes_device(WINDOW *win, const tui_app *app)
{
    int rows = getmaxy(win), cols = getmaxx(win), inner = cols - 2, y = 1;
    const device_info *d = &app->dev;
    char line[160], x[TUI_FMT_MAX], z[TUI_FMT_MAX];
    werase(win);
    tui_draw_box(win, "Device", NULL, false, app->ascii);
    if (!app->dev_known) {
        tui_draw_text(win, 1, 1, inner, "probing the GPU...", ROLE_DIM);
        return;
    }
    if (app->dev_lost) {
        y += tui_draw_wrapped(win, y, 1, inner, rows - 2, "GPU worker not running", ROLE_BAD);
        if (y < rows - 1)
            tui_draw_wrapped(win, y, 1, inner, rows - 1 - y, d->reason, ROLE_DIM);
        return;
    }
    if (!d->present) {
        const char *why = strip_prefix(d->reason);
        y += tui_draw_wrapped(win, y, 1, inner, rows - 2, "no CUDA device found", ROLE_BAD);
        if (why[0] && y < rows - 1)
            tui_draw_wrapped(win, y, 1, inner, rows - 1 - y, why, ROLE_DIM);
        return;
    }
    tui_draw_text(win, y++, 1, inner, d->name, ROLE_EMPH);
    if (y < rows - 1) {
        snprintf(line, sizeof line, "%d SMs, sm_%d%d", d->sm_count, d->cc_major, d->cc_minor);
        tui_draw_text(win, y++, 1, inner, line, ROLE_NORMAL);
    }
    if (y < rows - 1) {
        snprintf(line, sizeof line, "%s, L2 %s",
                 units_bytes(d->mem_total_gib * 1073741824.0, x, sizeof x),
                 units_bytes(d->l2_mib * 1048576.0, z, sizeof z));
        tui_draw_text(win, y++, 1, inner, line, ROLE_NORMAL);
    }
    if (y < rows - 1) {
        if (d->peak_bw_measured_gbs > 0)
            snprintf(line, sizeof line, "BW %s of %s", units_sig3(d->peak_bw_measured_gbs, x, sizeof x),
                     tui_fmt_rate(d->peak_bw_theory_gbs, -1, z, sizeof z));
        else
            snprintf(line, sizeof line, "BW %s peak", tui_fmt_rate(d->peak_bw_theory_gbs, -1, z, sizeof z));
        tui_draw_text(win, y++, 1, inner, line, ROLE_NORMAL);
    }
    if (y < rows - 1) {
        snprintf(line, sizeof line, "FP32 %s", tui_fmt_rate(-1, d->peak_fp32_tflops, x, sizeof x));
        tui_draw_text(win, y++, 1, inner, line, ROLE_NORMAL);
    }
    if (y < rows - 1) {
        snprintf(line, sizeof line, "driver %d.%d, runtime %d.%d", d->driver_version / 1000,
                 (d->driver_version % 1000) / 10, d->runtime_version / 1000, (d->runtime_version % 1000) / 10);
        tui_draw_text(win, y++, 1, inner, line, ROLE_DIM);
    }
}

static tui_role level_role(tui_log_level l)
{
    return l == TUI_LOG_ERROR ? ROLE_BAD : l == TUI_LOG_WARN ? ROLE_WARN : ROLE_NORMAL;
}

void tui_panes_log(WINDOW *win, const tui_app *app, bool boxed)
{
    int rows = getmaxy(win), cols = getmaxx(win);
    char text[TUI_LOG_TEXT + 16];
    werase(win);
    if (!boxed) {
        /* one line: the newest message, cut with an ellipsis; m shows all */
        const tui_log_entry *e = tui_log_recent(&app->log, 0);
        char cut[TUI_LOG_TEXT + 32];
        if (e)
            tui_draw_text(win, 0, 1, cols - 2,
                          tui_text_clip(tui_log_text(e, text, sizeof text), cols - 2,
                                        tui_glyphs_get(app->ascii)->ellipsis, cut, sizeof cut),
                          level_role(e->level));
        return;
    }
    char note[32] = "";
    if (app->log.n > 0)
        snprintf(note, sizeof note, "m: all %zu", app->log.n);
    tui_draw_box(win, "Messages", note, false, app->ascii);
    {
        int inner = cols - 2, y = rows - 2;
        for (size_t i = 0; y >= 1; i++) {
            const tui_log_entry *e = tui_log_recent(&app->log, i);
            size_t st[16], ln[16], nl;
            if (!e)
                break;
            tui_log_text(e, text, sizeof text);
            nl = tui_text_wrap(text, inner, st, ln, 16);
            if (nl > 16)
                nl = 16;
            for (size_t k = nl; k > 0 && y >= 1; k--, y--)
                tui_draw_nstr(win, y, 1, inner, text + st[k - 1], ln[k - 1],
                              tui_theme_attr(level_role(e->level)));
        }
    }
}

typedef struct status_key {
    const char *key, *what;
} status_key;

/* The keys the status bar offers now, most useful first: the open view's,
 * else the common ones with the selected lab's own. */
static size_t status_keys(const tui_app *a, status_key *out, size_t max)
{
    static const status_key tl_keys[] = {
        {"Esc", "close"}, {"+/-", "zoom"}, {"h/l", "pan"}, {"j/k", "lane"}, {"Tab", "item"},
        {"Enter", "zoom to it"}, {"T", "export trace"}, {"f", "roofline"}, {"?", "help"},
    };
    static const status_key roof_keys[] = {
        {"Esc", "close"}, {"t", "timeline"}, {"Up/Down", "points"}, {"b", "by size"}, {"?", "help"},
    };
    static const status_key sweep_keys[] = {
        {"Esc", "close"}, {"Up/Down", "series"}, {"f", "roofline"}, {"?", "help"},
    };
    static const status_key sweep[] = {{"b", "GB/s by size"}};
    static const status_key head[] = {
        {"?", "help"}, {"q", "quit"}, {"Tab", "pane"}, {"n/p", "step"}, {"r", "run"}, {"R", "run all"},
    };
    static const status_key prof[] = {{"t", "timeline"}, {"f", "roofline"}, {"N", "ncu"}};
    static const status_key ex[] = {{"e", "edit"}, {"H", "hint"}, {"a", "attempts"},
                                    {"M", "memcheck"}};
    static const status_key exs[] = {{"x", "exercise"}};
    static const status_key tail[] = {{"s", "size"}, {"m", "messages"}, {"Esc", "cancel"}};
    const lab *l = tui_app_lab(a);
    size_t n = 0;
#define ADD(arr)                                                         \
    for (size_t i = 0; i < sizeof arr / sizeof arr[0] && n < max; i++) \
        out[n++] = arr[i];
    if (a->overlay == TUI_OV_TIMELINE) {
        ADD(tl_keys);
        return n;
    }
    if (a->overlay == TUI_OV_ROOFLINE) {
        ADD(roof_keys);
        return n;
    }
    if (a->overlay == TUI_OV_SWEEP) {
        ADD(sweep_keys);
        return n;
    }
    ADD(head);
    if (l && l->nexercises > 1)
        ADD(exs);
    if (l && l->problem && strcmp(l->problem, "profiling") == 0) {
        ADD(prof);
    } else if (l && l->nexercises > 0) {
        ADD(ex);
    }
    if (l && tui_runtable_swept(&a->ls[a->sel].table))
        ADD(sweep);
    ADD(tail);
#undef ADD
    return n;
}

void tui_panes_status(WINDOW *win, const tui_app *app)
{
    status_key keys[24];
    size_t nk = status_keys(app, keys, 24);
    int cols = getmaxx(win), x = 0, rw;
    char right[192], dev[128];
    const tui_glyphs *g = tui_glyphs_get(app->ascii);
    werase(win);
    tui_draw_fill(win, 0, 0, cols, ROLE_STATUS);
    if (app->running)
        snprintf(right, sizeof right, "%s running %d/%d ",
                 g->spinner[app->spin % (unsigned)g->nspinner], app->run_rows_done, app->run_rows);
    else if (app->job != TUI_JOB_NONE)
        snprintf(right, sizeof right, "%s %s ", g->spinner[app->spin % (unsigned)g->nspinner],
                 app->job_what);
    else
        snprintf(right, sizeof right, "%s%s ",
                 tui_progress_saving(app) ? "" : "progress not saved | ",
                 tui_panes_device_short(app, dev, sizeof dev));
    rw = tui_text_swidth(right);
    for (size_t i = 0; i < nk; i++) {
        int need = tui_text_swidth(keys[i].key) + 1 + tui_text_swidth(keys[i].what) + 2;
        if (x + need > cols - rw - 1)
            break;
        x += tui_draw_text(win, 0, x, cols - x, keys[i].key, ROLE_KEY);
        x += tui_draw_text(win, 0, x, cols - x, " ", ROLE_STATUS);
        x += tui_draw_text(win, 0, x, cols - x, keys[i].what, ROLE_STATUS);
        x += 2;
    }
    if (rw < cols)
        tui_draw_text(win, 0, cols - rw, rw, right, ROLE_STATUS);
}
