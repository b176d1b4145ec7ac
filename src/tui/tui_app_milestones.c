/* tui_app_milestones.c - where each milestone stands: a quiz's from its
 * answers, a measured one's from the run table's results (through the
 * app's evaluator), and one reached in an earlier run stays reached with
 * the value and the day that earned it. */
#include "tui/tui_app.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tui/tui_app_internal.h"

long tui_app_quiz_index(const lab *the_lab, const char *id)
{
    for (size_t q = 0; q < the_lab->nquizzes; q++)
        if (id && the_lab->quizzes[q].id && strcmp(the_lab->quizzes[q].id, id) == 0)
            return (long)q;
    return -1;
}

static void when(double t, char *out, size_t n)
{
    time_t s = (time_t)t;
    struct tm tm;
    localtime_r(&s, &tm);
    strftime(out, n, "%Y-%m-%d %H:%M", &tm);
}

/* The text a milestone reached in an earlier run shows: "223x >= 100x,
 * reached 2026-11-24 10:31". */
static void earned_text(const tui_ms *m, char *out, size_t n)
{
    char at[32];
    when(m->earned_at, at, sizeof at);
    snprintf(out, n, "%s%sreached %s", m->earned_shown, m->earned_shown[0] ? ", " : "", at);
}

void tui_app_eval(tui_app *app, size_t lab_index)
{
    lab *l;
    tui_labstate *s;
    run_result *rs = NULL;
    size_t n = 0;
    if (!app->labs || lab_index >= app->labs->n)
        return;
    l = app->labs->v[lab_index];
    s = &app->ls[lab_index];
    if (s->table.n > 0 && app->ms_eval) {
        rs = malloc(s->table.n * sizeof *rs);
        if (rs)
            n = tui_runtable_results(&s->table, rs, s->table.n);
    }
    for (size_t m = 0; m < l->nmilestones; m++) {
        tui_ms *o = &s->ms[m];
        if (l->milestones[m].quiz) {
            long q = tui_app_quiz_index(l, l->milestones[m].quiz);
            memset(o, 0, sizeof *o);
            if (q < 0)
                o->state = TUI_MS_ERROR;
            else if (s->quiz_ok[q])
                o->state = TUI_MS_REACHED;
            else if (s->quiz_pick[q] >= 0)
                o->state = TUI_MS_MISSED;
            else
                o->state = TUI_MS_PENDING;
            continue;
        }
        if (app->ms_eval && rs && n > 0) {
            tui_ms kept = *o;
            app->ms_eval(l, m, rs, n, o);
            o->earned = kept.earned;
            o->earned_at = kept.earned_at;
            snprintf(o->earned_shown, sizeof o->earned_shown, "%s", kept.earned_shown);
        }
        /* Reached in an earlier run: it stays reached, with what earned it. */
        if (o->earned && o->state != TUI_MS_REACHED) {
            o->state = TUI_MS_REACHED;
            earned_text(o, o->shown, sizeof o->shown);
        }
    }
    free(rs);
}

void tui_app_progress(const tui_app *app, size_t lab_index, int *reached, int *total)
{
    const lab *l;
    *reached = 0;
    *total = 0;
    if (!app->labs || lab_index >= app->labs->n)
        return;
    l = app->labs->v[lab_index];
    *total = (int)l->nmilestones;
    for (size_t m = 0; m < l->nmilestones; m++)
        if (app->ls[lab_index].ms[m].state == TUI_MS_REACHED)
            (*reached)++;
}
