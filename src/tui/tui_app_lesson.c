/* tui_app_lesson.c - the lesson pane (the step laid out and cached, its
 * scroll, moving between steps), the milestone pane's cursor and details,
 * and the quizzes: opening one and answering it. */
#include "tui/tui_app.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab/milestone.h"
#include "tui/tui_app_internal.h"
#include "tui/tui_progress.h"

#define LESSON_MAX_WIDTH 100

static int clampi(int v, int lo, int hi)
{
    if (v > hi)
        v = hi;
    if (v < lo)
        v = lo;
    return v;
}

/* ---- lesson ------------------------------------------------------------- */

int tui_app_lesson_width(const tui_layout *lay)
{
    int w = lay->pane[TUI_P_LESSON].w - 4;
    if (w > LESSON_MAX_WIDTH)
        w = LESSON_MAX_WIDTH;
    return w < 8 ? 8 : w;
}

const md_doc *tui_app_lesson(tui_app *app, int width)
{
    const lab *l = tui_app_lab(app);
    tui_labstate *s = tui_app_state(app);
    char *src;
    size_t n;
    const lab_step *st;
    if (!l || !s || l->nsteps == 0) {
        tui_md_free(&app->lesson);
        app->lesson_valid = false;
        return &app->lesson;
    }
    if (app->lesson_valid && app->lesson_lab == app->sel && app->lesson_step == s->step &&
        app->lesson_width == width)
        return &app->lesson;
    tui_md_free(&app->lesson);
    app->lesson_valid = false;
    st = &l->steps[s->step < l->nsteps ? s->step : 0];
    n = strlen(st->title ? st->title : "") + strlen(st->body ? st->body : "") + 8;
    src = malloc(n);
    if (!src)
        return &app->lesson;
    snprintf(src, n, "# %s\n\n%s", st->title ? st->title : "", st->body ? st->body : "");
    if (tui_md_render(src, width, app->ascii, &app->lesson, NULL)) {
        app->lesson_valid = true;
        app->lesson_lab = app->sel;
        app->lesson_step = s->step;
        app->lesson_width = width;
    }
    free(src);
    return &app->lesson;
}

int tui_app_lesson_visible(const tui_layout *lay)
{
    int h = lay->pane[TUI_P_LESSON].h - 2;
    return h < 1 ? 1 : h;
}

void tui_app_lesson_scroll(tui_app *app, const tui_layout *lay, int delta, bool absolute)
{
    tui_labstate *s = tui_app_state(app);
    const md_doc *d;
    int max;
    if (!s)
        return;
    d = tui_app_lesson(app, tui_app_lesson_width(lay));
    max = (int)d->n - tui_app_lesson_visible(lay);
    if (max < 0)
        max = 0;
    s->lesson_scroll = clampi(absolute ? delta : s->lesson_scroll + delta, 0, max);
}

unsigned tui_app_step_move(tui_app *app, int delta)
{
    const lab *l = tui_app_lab(app);
    tui_labstate *s = tui_app_state(app);
    long ns;
    if (!l || !s || l->nsteps == 0)
        return 0;
    ns = (long)s->step + delta;
    if (ns < 0 || ns >= (long)l->nsteps)
        return 0;
    s->step = (size_t)ns;
    s->lesson_scroll = 0;
    return TUI_F_REDRAW;
}

int tui_app_ms_visible(const tui_layout *lay)
{
    int h = (lay->pane[TUI_P_MILESTONES].h - 2) / 2;
    return h < 1 ? 1 : h;
}

unsigned tui_app_ms_cursor_move(tui_app *app, const tui_layout *lay, long to)
{
    const lab *l = tui_app_lab(app);
    tui_labstate *s = tui_app_state(app);
    int vis = tui_app_ms_visible(lay);
    if (!l || !s || l->nmilestones == 0)
        return 0;
    s->ms_cursor = (size_t)(to < 0 ? 0 : to >= (long)l->nmilestones ? (long)l->nmilestones - 1 : to);
    if ((int)s->ms_cursor < s->ms_scroll)
        s->ms_scroll = (int)s->ms_cursor;
    if ((int)s->ms_cursor >= s->ms_scroll + vis)
        s->ms_scroll = (int)s->ms_cursor - vis + 1;
    if (s->ms_scroll > (int)l->nmilestones - vis)
        s->ms_scroll = (int)l->nmilestones - vis;
    if (s->ms_scroll < 0)
        s->ms_scroll = 0;
    return TUI_F_REDRAW;
}

/* ---- quizzes ------------------------------------------------------------- */

unsigned tui_app_quiz_open(tui_app *app, size_t milestone)
{
    const lab *l = tui_app_lab(app);
    tui_labstate *s = tui_app_state(app);
    long q;
    if (!l || !s || milestone >= l->nmilestones)
        return 0;
    q = tui_app_quiz_index(l, l->milestones[milestone].quiz);
    if (q < 0) {
        tui_log_add(&app->log, TUI_LOG_ERROR,
                    "milestone '%s' names quiz '%s', which the lab does not have",
                    l->milestones[milestone].id,
                    l->milestones[milestone].quiz ? l->milestones[milestone].quiz : "");
        return TUI_F_REDRAW;
    }
    app->overlay = TUI_OV_QUIZ;
    app->quiz_ms = milestone;
    app->quiz_q = (size_t)q;
    app->quiz_cursor = s->quiz_pick[q] >= 0 ? (size_t)s->quiz_pick[q] : 0;
    app->quiz_answered = -1;
    app->quiz_feedback[0] = '\0';
    return TUI_F_REDRAW;
}

unsigned tui_app_quiz_answer(tui_app *app)
{
    const lab *l = tui_app_lab(app);
    tui_labstate *s = tui_app_state(app);
    const lab_quiz *qz;
    const char *fb;
    bool correct = false;
    if (!l || !s || app->quiz_q >= l->nquizzes)
        return 0;
    qz = &l->quizzes[app->quiz_q];
    if (app->quiz_cursor >= qz->nchoices)
        return 0;
    fb = lab_quiz_answer(l, app->quiz_q, app->quiz_cursor, &correct);
    app->quiz_answered = (int)app->quiz_cursor;
    app->quiz_correct = correct;
    s->quiz_pick[app->quiz_q] = (int)app->quiz_cursor;
    if (correct)
        s->quiz_ok[app->quiz_q] = true;
    tui_progress_quiz(app, app->quiz_q, app->quiz_cursor, correct);
    if (fb && fb[0])
        strfmt_copy(app->quiz_feedback, sizeof app->quiz_feedback, fb);
    else
        strfmt_copy(app->quiz_feedback, sizeof app->quiz_feedback,
                 correct ? "Correct." : "Not quite; try another answer.");
    tui_app_eval(app, app->sel);
    return TUI_F_REDRAW;
}

/* ---- milestones ----------------------------------------------------------- */

unsigned tui_app_ms_details(tui_app *app)
{
    const lab *l = tui_app_lab(app);
    tui_labstate *s = tui_app_state(app);
    const lab_milestone *m;
    const tui_ms *st;
    static const char *const names[] = {"not reached yet", "reached", "not reached", "error"};
    if (!l || !s || s->ms_cursor >= l->nmilestones)
        return 0;
    m = &l->milestones[s->ms_cursor];
    if (m->quiz)
        return tui_app_quiz_open(app, s->ms_cursor);
    st = &s->ms[s->ms_cursor];
    tui_log_add(&app->log, st->state == TUI_MS_ERROR ? TUI_LOG_ERROR : TUI_LOG_INFO,
                "%s: %s%s%s%s%s", m->text ? m->text : m->id, names[st->state],
                st->shown[0] ? " (" : "", st->shown, st->shown[0] ? ")" : "",
                st->state == TUI_MS_ERROR ? st->error : "");
    if (st->state == TUI_MS_PENDING && m->target)
        tui_log_add(&app->log, TUI_LOG_INFO, "target: %s; run the lab (R) to measure", m->target);
    /* A measured milestone is judged at one size: take the learner there. */
    const char *judged = lab_milestone_size(l, s->ms_cursor);
    if (st->state != TUI_MS_REACHED && judged && l->nsizes > 1 &&
        !lab_same_size(l, tui_app_size(app), judged)) {
        for (size_t k = 0; k < l->nsizes; k++)
            if (lab_same_size(l, l->sizes[k], judged)) {
                s->size_idx = k;
                s->run_cursor = 0;
                tui_log_add(&app->log, TUI_LOG_INFO,
                            "size set to %s, where this milestone is judged; press r to run it",
                            l->sizes[k]);
                break;
            }
    }
    return TUI_F_REDRAW;
}
