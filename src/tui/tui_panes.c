#include "tui/tui_panes.h"
#include "tui/tui_progress.h"

#include <stdio.h>
#include <string.h>

#include "core/units.h"
#include "tui/tui_draw.h"
#include "tui/tui_fmt.h"
#include "tui/tui_text.h"

#define LAB_WRAP_LINES 4   /* the most lines the selected lab's title takes */

void tui_panes_labs(WINDOW *w, const tui_app *a)
{
    int rows = getmaxy(w), cols = getmaxx(w), inner = cols - 2;
    bool focus = a->focus == TUI_P_LABS;
    char title[32];
    werase(w);
    snprintf(title, sizeof title, "Labs");
    tui_draw_box(w, title, NULL, focus, a->ascii);
    if (!a->labs || a->labs->n == 0) {
        tui_draw_text(w, 1, 1, inner, "no labs found", ROLE_BAD);
        return;
    }
    for (int r = 0, y = 1; y < rows - 1; r++, y++) {
        size_t i = (size_t)(a->labs_scroll + r);
        const lab *l;
        int reached, total, pw = 0;
        char prog[16] = "";
        bool sel = i == a->sel;
        tui_role role;
        if (i >= a->labs->n)
            break;
        l = a->labs->v[i];
        tui_app_progress(a, i, &reached, &total);
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
                tui_draw_fill(w, y + k, 1, inner, role);
        tui_draw_text(w, y, 1, 2, sel ? tui_glyphs_get(a->ascii)->arrow : " ", role);
        if (sel && tw > 0 && lines > 1) {
            for (int k = 0; k < lines; k++) {
                char piece[256];
                size_t n = len[k] < sizeof piece - 1 ? len[k] : sizeof piece - 1;
                memcpy(piece, name + at[k], n);
                piece[n] = '\0';
                tui_draw_text(w, y + k, 3, tw, piece, role);
            }
        } else {
            char cut[256];
            tui_text_clip(name, tw, tui_glyphs_get(a->ascii)->ellipsis, cut, sizeof cut);
            tui_draw_text(w, y, 3, tw, cut, role);
        }
        if (pw)
            tui_draw_rtext(w, y, cols - 1, pw, prog,
                           sel && focus ? ROLE_SELECTED : reached == total ? ROLE_OK : ROLE_DIM);
        y += lines - 1;
    }
    if (a->labs_scroll > 0 || (size_t)(a->labs_scroll + rows - 2) < a->labs->n) {
        char more[24];
        snprintf(more, sizeof more, "%zu/%zu", a->sel + 1, a->labs->n);
        tui_draw_footer(w, more, a->ascii);
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

void tui_panes_milestones(WINDOW *w, const tui_app *a)
{
    int rows = getmaxy(w), cols = getmaxx(w), inner = cols - 2;
    bool focus = a->focus == TUI_P_MILESTONES;
    const lab *l = tui_app_lab(a);
    const tui_labstate *s = l ? &a->ls[a->sel] : NULL;
    char note[16] = "";
    int reached, total, y = 1;
    werase(w);
    if (l) {
        tui_app_progress(a, a->sel, &reached, &total);
        if (total > 0)
            snprintf(note, sizeof note, "%d/%d", reached, total);
    }
    tui_draw_box(w, "Milestones", note, focus, a->ascii);
    if (!l || l->nmilestones == 0) {
        tui_draw_text(w, 1, 1, inner, "no milestones", ROLE_DIM);
        return;
    }
    for (size_t m = (size_t)s->ms_scroll; m < l->nmilestones && y < rows - 1; m++) {
        const lab_milestone *ms = &l->milestones[m];
        const tui_ms *st = &s->ms[m];
        const char *mark;
        tui_role role;
        char second[MS_FIGURES_MAX];
        bool cur = m == s->ms_cursor && focus;
        ms_mark(a, st->state, &mark, &role);
        y += ms_title(w, a, y, mark, role, ms->text ? ms->text : ms->id, cur) - 1;
        ms_figures(a, ms, st, second);
        if (y + 1 < rows - 1)
            tui_draw_text(w, y + 1, 3, inner - 2, second,
                          cur ? ROLE_SELECTED : st->state == TUI_MS_ERROR ? ROLE_BAD : ROLE_DIM);
        y += 2;
    }
}

const char *tui_panes_device_short(const tui_app *a, char *buf, size_t n)
{
    if (!a->dev_known)
        snprintf(buf, n, "probing the GPU");
    else if (a->dev_lost)
        snprintf(buf, n, "GPU worker not running");
    else if (!a->dev.present)
        snprintf(buf, n, "no CUDA device found");
    else
        snprintf(buf, n, "%s", a->dev.name);
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

void tui_panes_device(WINDOW *w, const tui_app *a)
{
    int rows = getmaxy(w), cols = getmaxx(w), inner = cols - 2, y = 1;
    const device_info *d = &a->dev;
    char line[160], x[TUI_FMT_MAX], z[TUI_FMT_MAX];
    werase(w);
    tui_draw_box(w, "Device", NULL, false, a->ascii);
    if (!a->dev_known) {
        tui_draw_text(w, 1, 1, inner, "probing the GPU...", ROLE_DIM);
        return;
    }
    if (a->dev_lost) {
        y += tui_draw_wrapped(w, y, 1, inner, rows - 2, "GPU worker not running", ROLE_BAD);
        if (y < rows - 1)
            tui_draw_wrapped(w, y, 1, inner, rows - 1 - y, d->reason, ROLE_DIM);
        return;
    }
    if (!d->present) {
        const char *why = strip_prefix(d->reason);
        y += tui_draw_wrapped(w, y, 1, inner, rows - 2, "no CUDA device found", ROLE_BAD);
        if (why[0] && y < rows - 1)
            tui_draw_wrapped(w, y, 1, inner, rows - 1 - y, why, ROLE_DIM);
        return;
    }
    tui_draw_text(w, y++, 1, inner, d->name, ROLE_EMPH);
    if (y < rows - 1) {
        snprintf(line, sizeof line, "%d SMs, sm_%d%d", d->sm_count, d->cc_major, d->cc_minor);
        tui_draw_text(w, y++, 1, inner, line, ROLE_NORMAL);
    }
    if (y < rows - 1) {
        snprintf(line, sizeof line, "%s, L2 %s",
                 units_bytes(d->mem_total_gib * 1073741824.0, x, sizeof x),
                 units_bytes(d->l2_mib * 1048576.0, z, sizeof z));
        tui_draw_text(w, y++, 1, inner, line, ROLE_NORMAL);
    }
    if (y < rows - 1) {
        if (d->peak_bw_measured_gbs > 0)
            snprintf(line, sizeof line, "BW %s of %s", units_sig3(d->peak_bw_measured_gbs, x, sizeof x),
                     tui_fmt_rate(d->peak_bw_theory_gbs, -1, z, sizeof z));
        else
            snprintf(line, sizeof line, "BW %s peak", tui_fmt_rate(d->peak_bw_theory_gbs, -1, z, sizeof z));
        tui_draw_text(w, y++, 1, inner, line, ROLE_NORMAL);
    }
    if (y < rows - 1) {
        snprintf(line, sizeof line, "FP32 %s", tui_fmt_rate(-1, d->peak_fp32_tflops, x, sizeof x));
        tui_draw_text(w, y++, 1, inner, line, ROLE_NORMAL);
    }
    if (y < rows - 1) {
        snprintf(line, sizeof line, "driver %d.%d, runtime %d.%d", d->driver_version / 1000,
                 (d->driver_version % 1000) / 10, d->runtime_version / 1000, (d->runtime_version % 1000) / 10);
        tui_draw_text(w, y++, 1, inner, line, ROLE_DIM);
    }
}

static tui_role level_role(tui_log_level l)
{
    return l == TUI_LOG_ERROR ? ROLE_BAD : l == TUI_LOG_WARN ? ROLE_WARN : ROLE_NORMAL;
}

void tui_panes_log(WINDOW *w, const tui_app *a, bool boxed)
{
    int rows = getmaxy(w), cols = getmaxx(w);
    char text[TUI_LOG_TEXT + 16];
    werase(w);
    if (!boxed) {
        /* one line: the newest message, cut with an ellipsis; m shows all */
        const tui_log_entry *e = tui_log_recent(&a->log, 0);
        char cut[TUI_LOG_TEXT + 32];
        if (e)
            tui_draw_text(w, 0, 1, cols - 2,
                          tui_text_clip(tui_log_text(e, text, sizeof text), cols - 2,
                                        tui_glyphs_get(a->ascii)->ellipsis, cut, sizeof cut),
                          level_role(e->level));
        return;
    }
    char note[32] = "";
    if (a->log.n > 0)
        snprintf(note, sizeof note, "m: all %zu", a->log.n);
    tui_draw_box(w, "Messages", note, false, a->ascii);
    {
        int inner = cols - 2, y = rows - 2;
        for (size_t i = 0; y >= 1; i++) {
            const tui_log_entry *e = tui_log_recent(&a->log, i);
            size_t st[16], ln[16], nl;
            if (!e)
                break;
            tui_log_text(e, text, sizeof text);
            nl = tui_text_wrap(text, inner, st, ln, 16);
            if (nl > 16)
                nl = 16;
            for (size_t k = nl; k > 0 && y >= 1; k--, y--)
                tui_draw_nstr(w, y, 1, inner, text + st[k - 1], ln[k - 1],
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
        {"Esc", "close"}, {"t", "timeline"}, {"Up/Down", "points"}, {"?", "help"},
    };
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
    ADD(head);
    if (l && l->nexercises > 1)
        ADD(exs);
    if (l && l->problem && strcmp(l->problem, "profiling") == 0) {
        ADD(prof);
    } else if (l && l->nexercises > 0) {
        ADD(ex);
    }
    ADD(tail);
#undef ADD
    return n;
}

void tui_panes_status(WINDOW *w, const tui_app *a)
{
    status_key keys[24];
    size_t nk = status_keys(a, keys, 24);
    int cols = getmaxx(w), x = 0, rw;
    char right[192], dev[128];
    const tui_glyphs *g = tui_glyphs_get(a->ascii);
    werase(w);
    tui_draw_fill(w, 0, 0, cols, ROLE_STATUS);
    if (a->running)
        snprintf(right, sizeof right, "%s running %d/%d ", g->spinner[a->spin % (unsigned)g->nspinner],
                 a->run_rows_done, a->run_rows);
    else if (a->job != TUI_JOB_NONE)
        snprintf(right, sizeof right, "%s %s ", g->spinner[a->spin % (unsigned)g->nspinner], a->job_what);
    else
        snprintf(right, sizeof right, "%s%s ", tui_progress_saving(a) ? "" : "progress not saved | ",
                 tui_panes_device_short(a, dev, sizeof dev));
    rw = tui_text_swidth(right);
    for (size_t i = 0; i < nk; i++) {
        int need = tui_text_swidth(keys[i].key) + 1 + tui_text_swidth(keys[i].what) + 2;
        if (x + need > cols - rw - 1)
            break;
        x += tui_draw_text(w, 0, x, cols - x, keys[i].key, ROLE_KEY);
        x += tui_draw_text(w, 0, x, cols - x, " ", ROLE_STATUS);
        x += tui_draw_text(w, 0, x, cols - x, keys[i].what, ROLE_STATUS);
        x += 2;
    }
    if (rw < cols)
        tui_draw_text(w, 0, cols - rw, rw, right, ROLE_STATUS);
}
