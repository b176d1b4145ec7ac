/* tui_app.c - what input does to the app model: each key and click, by the
 * open overlay and the focused pane, handed down to the lesson, the run
 * table, the milestones and the tools (tui_app_*.c); the learner's place
 * is recorded after each. */
#include "tui/tui_app.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/paths.h"
#include "tui/tui_app_internal.h"
#include "tui/tui_history.h"
#include "tui/tui_progress.h"

/* ---- lists -------------------------------------------------------------- */

static int labs_visible(const tui_layout *lay)
{
    int h = lay->pane[TUI_P_LABS].h - 2;
    return h < 1 ? 1 : h;
}

static void labs_follow(tui_app *a, const tui_layout *lay)
{
    int vis = labs_visible(lay), sel = (int)a->sel;
    if (sel < a->labs_scroll)
        a->labs_scroll = sel;
    if (sel >= a->labs_scroll + vis)
        a->labs_scroll = sel - vis + 1;
    if (a->labs_scroll < 0)
        a->labs_scroll = 0;
}

static unsigned lab_select(tui_app *a, const tui_layout *lay, long to)
{
    if (!a->labs || a->labs->n == 0)
        return 0;
    to = to < 0 ? 0 : to >= (long)a->labs->n ? (long)a->labs->n - 1 : to;
    a->sel = (size_t)to;
    tui_app_relayout(a, lay);
    return TUI_F_REDRAW;
}

void tui_app_relayout(tui_app *app, const tui_layout *lay)
{
    tui_labstate *s = tui_app_state(app);
    if (!s || lay->too_small)
        return;
    labs_follow(app, lay);
    tui_app_run_cursor_move(app, lay, (long)s->run_cursor);
    tui_app_ms_cursor_move(app, lay, (long)s->ms_cursor);
    tui_app_lesson_scroll(app, lay, 0, false);
    if (app->overlay == TUI_OV_MESSAGES)
        tui_app_messages_key(app, lay, TA_NONE);
}

/* ---- input ----------------------------------------------------------------- */

static unsigned help_key(tui_app *a, const tui_layout *lay, tui_action act)
{
    int page = lay->help.h - 4;
    switch (act) {
    case TA_UP: a->help_scroll--; break;
    case TA_DOWN: a->help_scroll++; break;
    case TA_PAGE_UP: a->help_scroll -= page; break;
    case TA_PAGE_DOWN: a->help_scroll += page; break;
    case TA_HOME: a->help_scroll = 0; break;
    case TA_HELP: case TA_CANCEL: case TA_QUIT: case TA_ENTER:
        a->overlay = a->help_back;
        a->help_back = TUI_OV_NONE;
        break;
    default:
        return 0;
    }
    if (a->help_scroll < 0)
        a->help_scroll = 0;
    return TUI_F_REDRAW;
}

/* Reveals the next hint; the details window shows the newest first, then
 * the ones before it. */
static unsigned show_hint(tui_app *a, const lab *l, tui_labstate *s)
{
    const lab_exercise *x = tui_app_exercise(a);
    size_t n = x ? x->nhints : 0, at = 0;
    if (n == 0) {
        tui_log_add(&a->log, TUI_LOG_INFO, "lab '%s' has no hints", l->id);
        return TUI_F_REDRAW;
    }
    if (s->hints_shown < n) {
        s->hints_shown++;
        tui_progress_hint(a, s->hints_shown - 1);
    }
    snprintf(a->details_title, sizeof a->details_title, "Hint %zu of %zu", s->hints_shown, n);
    a->details[0] = '\0';
    for (size_t k = s->hints_shown; k > 0; k--) {
        at = strfmt_append(a->details, sizeof a->details, at, "%s**Hint %zu.** %s\n",
                    k == s->hints_shown ? "" : "\n---\n", k, x->hints[k - 1]);
    }
    if (s->hints_shown < n)
        strfmt_append(a->details, sizeof a->details, at, "\n*H shows the next hint.*\n");
    a->details_md = true;
    a->details_scroll = 0;
    a->overlay = TUI_OV_DETAILS;
    return TUI_F_REDRAW;
}

static unsigned details_key(tui_app *a, const tui_layout *lay, tui_action act)
{
    int page = lay->help.h - 3;
    switch (act) {
    case TA_UP: a->details_scroll--; break;
    case TA_DOWN: a->details_scroll++; break;
    case TA_PAGE_UP: a->details_scroll -= page; break;
    case TA_PAGE_DOWN: a->details_scroll += page; break;
    case TA_HOME: a->details_scroll = 0; break;
    case TA_CANCEL: case TA_QUIT: case TA_ENTER: case TA_HELP:
        a->overlay = TUI_OV_NONE;
        break;
    case TA_HINT:
        if (a->details_md && tui_app_lab(a))
            return show_hint(a, tui_app_lab(a), tui_app_state(a));
        return 0;
    default:
        return 0;
    }
    if (a->details_scroll < 0)
        a->details_scroll = 0;
    return TUI_F_REDRAW;
}

/* Shows the learner's attempts at the selected lab's exercise. */
static unsigned show_history(tui_app *a, const lab *l)
{
    char kernel[CL_PATH_MAX], launcher[CL_PATH_MAX], why[256];
    char *text = NULL;
    bool have = tui_app_exercise_paths(a, l, tui_app_exercise(a), kernel, launcher, sizeof kernel);
    if (!tui_history_text(l, a->store, have ? kernel : NULL, a->ascii, &text, why, sizeof why)) {
        tui_log_add(&a->log, TUI_LOG_WARN, "%s", why);
        return TUI_F_REDRAW;
    }
    snprintf(a->details_title, sizeof a->details_title, "Your attempts: %s", l->id);
    size_t len = strlen(text);
    if (len >= sizeof a->details)
        snprintf(text + sizeof a->details - 40, 40, "\n... (the rest: cudalab progress)\n");
    snprintf(a->details, sizeof a->details, "%s", text);
    free(text);
    a->details_md = false;
    a->details_scroll = 0;
    a->overlay = TUI_OV_DETAILS;
    return TUI_F_REDRAW;
}

/* x: the lab's next exercise becomes the one e, r, s and H act on. */
static unsigned next_exercise(tui_app *a, const tui_layout *lay)
{
    const lab *l = tui_app_lab(a);
    tui_labstate *s = tui_app_state(a);
    const lab_exercise *x;
    if (!l || l->nexercises < 2) {
        if (l)
            tui_log_add(&a->log, TUI_LOG_INFO, "lab '%s' has %s exercise", l->id,
                        l->nexercises ? "one" : "no");
        return TUI_F_REDRAW;
    }
    s->ex_idx = (s->ex_idx + 1) % l->nexercises;
    s->size_idx = 0;
    s->hints_shown = 0;
    x = tui_app_exercise(a);
    strfmt_copy(s->table.scope, sizeof s->table.scope, x->id);
    tui_app_run_cursor_move(a, lay, 0);
    tui_log_add(&a->log, TUI_LOG_INFO, "exercise %zu of %zu: %s (e edits it, r runs it)",
                s->ex_idx + 1, l->nexercises,
                x->title && x->title[0] ? x->title : x->id[0] ? x->id : "the lab's own");
    return TUI_F_REDRAW;
}

static unsigned exercise_key(tui_app *a, tui_action act)
{
    const lab *l = tui_app_lab(a);
    if (!l)
        return 0;
    if (act == TA_HINT)
        return show_hint(a, l, tui_app_state(a));
    if (l->nexercises == 0) {
        if (act == TA_HISTORY) {
            tui_log_add(&a->log, TUI_LOG_WARN, "lab '%s' has no exercise", l->id);
            return TUI_F_REDRAW;
        }
        tui_log_add(&a->log, TUI_LOG_WARN, "lab '%s' has no exercise to %s", l->id,
                    act == TA_EDIT ? "edit" : "reset");
        return TUI_F_REDRAW;
    }
    if (act == TA_RESET) {
        a->overlay = TUI_OV_CONFIRM_RESET;
        return TUI_F_REDRAW;
    }
    if (act == TA_HISTORY)
        return show_history(a, l);
    memset(&a->req, 0, sizeof a->req);
    a->req.kind = TUI_REQ_EDIT;
    a->req.lab = a->sel;
    a->req.ex = a->ls[a->sel].ex_idx;
    return TUI_F_REQUEST | TUI_F_REDRAW;
}

static unsigned quiz_key(tui_app *a, tui_action act)
{
    const lab *l = tui_app_lab(a);
    size_t nch = l && a->quiz_q < l->nquizzes ? l->quizzes[a->quiz_q].nchoices : 0;
    switch (act) {
    case TA_UP: case TA_LEFT:
        if (a->quiz_cursor > 0)
            a->quiz_cursor--;
        return TUI_F_REDRAW;
    case TA_DOWN: case TA_RIGHT:
        if (a->quiz_cursor + 1 < nch)
            a->quiz_cursor++;
        return TUI_F_REDRAW;
    case TA_ENTER: case TA_PAGE_DOWN:
        return tui_app_quiz_answer(a);
    case TA_CANCEL: case TA_QUIT:
        a->overlay = TUI_OV_NONE;
        return TUI_F_REDRAW;
    default:
        return 0;
    }
}

static unsigned pane_key(tui_app *a, const tui_layout *lay, tui_action act)
{
    tui_labstate *s = tui_app_state(a);
    int page;
    if (!s)
        return 0;
    switch (a->focus) {
    case TUI_P_LABS:
        page = labs_visible(lay);
        switch (act) {
        case TA_UP: return lab_select(a, lay, (long)a->sel - 1);
        case TA_DOWN: return lab_select(a, lay, (long)a->sel + 1);
        case TA_PAGE_UP: return lab_select(a, lay, (long)a->sel - page);
        case TA_PAGE_DOWN: return lab_select(a, lay, (long)a->sel + page);
        case TA_HOME: return lab_select(a, lay, 0);
        case TA_END: return lab_select(a, lay, (long)a->labs->n - 1);
        case TA_ENTER: case TA_RIGHT:
            a->focus = TUI_P_LESSON;
            return TUI_F_REDRAW;
        default: return 0;
        }
    case TUI_P_LESSON:
        page = tui_app_lesson_visible(lay) - 1;
        switch (act) {
        case TA_UP: tui_app_lesson_scroll(a, lay, -1, false); return TUI_F_REDRAW;
        case TA_DOWN: tui_app_lesson_scroll(a, lay, 1, false); return TUI_F_REDRAW;
        case TA_PAGE_UP: tui_app_lesson_scroll(a, lay, -page, false); return TUI_F_REDRAW;
        case TA_PAGE_DOWN: tui_app_lesson_scroll(a, lay, page, false); return TUI_F_REDRAW;
        case TA_HOME: tui_app_lesson_scroll(a, lay, 0, true); return TUI_F_REDRAW;
        case TA_END: tui_app_lesson_scroll(a, lay, 1 << 20, true); return TUI_F_REDRAW;
        case TA_LEFT: return tui_app_step_move(a, -1);
        case TA_RIGHT: case TA_ENTER: return tui_app_step_move(a, 1);
        default: return 0;
        }
    case TUI_P_RUN:
        page = tui_app_run_visible(lay);
        switch (act) {
        case TA_UP: return tui_app_run_cursor_move(a, lay, (long)s->run_cursor - 1);
        case TA_DOWN: return tui_app_run_cursor_move(a, lay, (long)s->run_cursor + 1);
        case TA_PAGE_UP: return tui_app_run_cursor_move(a, lay, (long)s->run_cursor - page);
        case TA_PAGE_DOWN: return tui_app_run_cursor_move(a, lay, (long)s->run_cursor + page);
        case TA_HOME: return tui_app_run_cursor_move(a, lay, 0);
        case TA_END: return tui_app_run_cursor_move(a, lay, VIEW_MAX);
        case TA_LEFT: return tui_app_size_move(a, lay, -1);
        case TA_RIGHT: return tui_app_size_move(a, lay, 1);
        case TA_ENTER: return tui_app_row_details(a);
        default: return 0;
        }
    case TUI_P_MILESTONES:
        page = tui_app_ms_visible(lay);
        switch (act) {
        case TA_UP: return tui_app_ms_cursor_move(a, lay, (long)s->ms_cursor - 1);
        case TA_DOWN: return tui_app_ms_cursor_move(a, lay, (long)s->ms_cursor + 1);
        case TA_PAGE_UP: return tui_app_ms_cursor_move(a, lay, (long)s->ms_cursor - page);
        case TA_PAGE_DOWN: return tui_app_ms_cursor_move(a, lay, (long)s->ms_cursor + page);
        case TA_HOME: return tui_app_ms_cursor_move(a, lay, 0);
        case TA_END: return tui_app_ms_cursor_move(a, lay, 1 << 20);
        case TA_ENTER: case TA_RIGHT: return tui_app_ms_details(a);
        default: return 0;
        }
    default:
        return 0;
    }
}

/* M, C, B, I: the exercise under compute-sanitizer memcheck, racecheck,
 * synccheck or initcheck.  The request names its tool in args[0]. */
static unsigned sanitize_key(tui_app *a, tui_action act)
{
    unsigned f = tui_app_sanitize_key(a, act == TA_RACECHECK);
    if ((f & TUI_F_REQUEST) && (act == TA_SYNCCHECK || act == TA_INITCHECK)) {
        snprintf(a->req.args[0], sizeof a->req.args[0], "%s",
                 act == TA_SYNCCHECK ? "synccheck" : "initcheck");
        a->req.nargs = 1;
    }
    return f;
}

/* A key while an overlay is open: it goes to that overlay. */
static unsigned overlay_key(tui_app *a, const tui_layout *lay, tui_action act)
{
    switch (a->overlay) {
    case TUI_OV_HELP:
        return help_key(a, lay, act);
    case TUI_OV_QUIZ:
        return quiz_key(a, act);
    case TUI_OV_DETAILS:
        return details_key(a, lay, act);
    case TUI_OV_TIMELINE:
        return tui_app_timeline_key(a, lay, act);
    case TUI_OV_ROOFLINE:
    case TUI_OV_SWEEP:
        return tui_app_plot_key(a, act);
    case TUI_OV_MESSAGES:
        return tui_app_messages_key(a, lay, act);
    case TUI_OV_CONFIRM_QUIT:
        a->overlay = TUI_OV_NONE;
        if (act == TA_YES || act == TA_QUIT)
            return TUI_F_QUIT;
        return TUI_F_REDRAW;
    case TUI_OV_CONFIRM_RESET:
        a->overlay = TUI_OV_NONE;
        if (act == TA_YES) {
            memset(&a->req, 0, sizeof a->req);
            a->req.kind = TUI_REQ_RESET;
            a->req.lab = a->sel;
            a->req.ex = a->ls[a->sel].ex_idx;
            return TUI_F_REQUEST | TUI_F_REDRAW;
        }
        return TUI_F_REDRAW;
    case TUI_OV_NONE:
        break;
    }
    return 0;
}

static unsigned app_key(tui_app *a, const tui_layout *lay, tui_action act)
{
    if (act == TA_REFRESH)
        return TUI_F_REPAINT | TUI_F_REDRAW;
    if (a->overlay != TUI_OV_NONE)
        return overlay_key(a, lay, act);
    if (lay->too_small)
        return act == TA_QUIT ? TUI_F_QUIT : 0;
    switch (act) {
    case TA_QUIT:
        if (a->running) {
            a->overlay = TUI_OV_CONFIRM_QUIT;
            return TUI_F_REDRAW;
        }
        return TUI_F_QUIT;
    case TA_HELP:
        a->overlay = TUI_OV_HELP;
        a->help_back = TUI_OV_NONE;
        a->help_scroll = 0;
        return TUI_F_REDRAW;
    case TA_NEXT_PANE:
        a->focus = (tui_pane_id)((a->focus + 1) % TUI_P_FOCUSABLE);
        return TUI_F_REDRAW;
    case TA_PREV_PANE:
        a->focus = (tui_pane_id)((a->focus + TUI_P_FOCUSABLE - 1) % TUI_P_FOCUSABLE);
        return TUI_F_REDRAW;
    case TA_NEXT_STEP:
        return tui_app_step_move(a, 1);
    case TA_PREV_STEP:
        return tui_app_step_move(a, -1);
    case TA_NEXT_SIZE:
        return tui_app_size_move(a, lay, 1);
    case TA_PREV_SIZE:
        return tui_app_size_move(a, lay, -1);
    case TA_RUN:
        return tui_app_request_run(a, RUN_SELECTED);
    case TA_RUN_ALL:
        return tui_app_request_run(a, RUN_ALL);
    case TA_CANCEL:
        return tui_app_request_cancel(a);
    case TA_CHART:
        a->chart_swap = !a->chart_swap;
        return TUI_F_REDRAW;
    case TA_EDIT:
    case TA_RESET:
    case TA_HINT:
    case TA_HISTORY:
        return exercise_key(a, act);
    case TA_NEXT_EXERCISE:
        return next_exercise(a, lay);
    case TA_TIMELINE:
        return tui_app_timeline_open(a);
    case TA_EXPORT:
        return tui_app_timeline_export(a);
    case TA_ROOFLINE:
        return tui_app_plot_open(a, TUI_OV_ROOFLINE);
    case TA_SWEEP:
        return tui_app_plot_open(a, TUI_OV_SWEEP);
    case TA_MESSAGES:
        return tui_app_messages_open(a, lay);
    case TA_NCU:
        return tui_app_ncu_key(a);
    case TA_MEMCHECK:
    case TA_RACECHECK:
    case TA_SYNCCHECK:
    case TA_INITCHECK:
        return sanitize_key(a, act);
    default:
        return pane_key(a, lay, act);
    }
}

static unsigned app_mouse(tui_app *a, const tui_layout *lay, int y, int x, tui_mouse m)
{
    int p;
    tui_labstate *s = tui_app_state(a);
    tui_action wheel = m == TUI_MOUSE_WHEEL_UP ? TA_UP : TA_DOWN;
    if (a->overlay == TUI_OV_HELP && m != TUI_MOUSE_CLICK)
        return help_key(a, lay, wheel);
    if (a->overlay == TUI_OV_DETAILS && m != TUI_MOUSE_CLICK)
        return details_key(a, lay, wheel);
    if (a->overlay == TUI_OV_TIMELINE)
        return m == TUI_MOUSE_CLICK ? 0 : tui_app_timeline_key(a, lay, m == TUI_MOUSE_WHEEL_UP ? TA_ZOOM_IN : TA_ZOOM_OUT);
    if (a->overlay == TUI_OV_ROOFLINE || a->overlay == TUI_OV_SWEEP)
        return m == TUI_MOUSE_CLICK ? 0 : tui_app_plot_key(a, wheel);
    if (a->overlay == TUI_OV_MESSAGES)
        return m == TUI_MOUSE_CLICK ? 0 : tui_app_messages_key(a, lay, wheel);
    if (a->overlay != TUI_OV_NONE) {
        if (m == TUI_MOUSE_CLICK && a->overlay == TUI_OV_QUIZ && tui_rect_contains(lay->quiz, y, x))
            return 0;
        if (m == TUI_MOUSE_CLICK) {
            a->overlay = TUI_OV_NONE;
            return TUI_F_REDRAW;
        }
        return 0;
    }
    p = tui_layout_hit(lay, y, x);
    if (p == TUI_P_LOG && m == TUI_MOUSE_CLICK)
        return tui_app_messages_open(a, lay);
    if (p < 0 || p >= TUI_P_FOCUSABLE || !s)
        return 0;
    if (m != TUI_MOUSE_CLICK) {
        tui_pane_id keep = a->focus;
        unsigned f;
        if (p == TUI_P_LESSON) {
            tui_app_lesson_scroll(a, lay, wheel == TA_UP ? -3 : 3, false);
            return TUI_F_REDRAW;
        }
        a->focus = (tui_pane_id)p;
        f = pane_key(a, lay, wheel);
        a->focus = keep;
        return f;
    }
    a->focus = (tui_pane_id)p;
    switch (p) {
    case TUI_P_LABS: {
        int row = y - lay->pane[p].y - 1;
        if (row >= 0 && row < labs_visible(lay) && a->labs_scroll + row < (int)a->labs->n)
            lab_select(a, lay, a->labs_scroll + row);
        break;
    }
    case TUI_P_RUN: {
        int row = y - lay->run_table.y - 2;
        if (row >= 0 && tui_rect_contains(lay->run_table, y, x))
            tui_app_run_cursor_move(a, lay, s->run_scroll + row);
        break;
    }
    case TUI_P_MILESTONES: {
        int row = (y - lay->pane[p].y - 1) / 2;
        const lab *l = tui_app_lab(a);
        if (y > lay->pane[p].y && l && s->ms_scroll + row < (int)l->nmilestones) {
            bool again = s->ms_cursor == (size_t)(s->ms_scroll + row);
            tui_app_ms_cursor_move(a, lay, s->ms_scroll + row);
            if (again && l->milestones[s->ms_cursor].quiz)
                return tui_app_quiz_open(a, s->ms_cursor);
        }
        break;
    }
    default:
        break;
    }
    return TUI_F_REDRAW;
}

/* Every key and click may move the learner to another lab or step: the
 * place is recorded after each. */
unsigned tui_app_key(tui_app *app, const tui_layout *lay, tui_action act)
{
    unsigned f = app_key(app, lay, act);
    tui_progress_place(app);
    return f;
}

unsigned tui_app_digit(tui_app *app, int digit)
{
    const lab *l = tui_app_lab(app);
    if (app->overlay != TUI_OV_QUIZ || !l || app->quiz_q >= l->nquizzes || digit < 1 ||
        (size_t)digit > l->quizzes[app->quiz_q].nchoices)
        return 0;
    app->quiz_cursor = (size_t)digit - 1;
    return TUI_F_REDRAW;
}

unsigned tui_app_mouse(tui_app *app, const tui_layout *lay, int row, int col, tui_mouse mouse)
{
    unsigned f = app_mouse(app, lay, row, col, mouse);
    tui_progress_place(app);
    return f;
}
