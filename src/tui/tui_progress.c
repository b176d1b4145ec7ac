#include "tui/tui_progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/grow.h"

#include "store/recorder.h"
#include "store/store.h"
#include "supervise/diag_row.h"
#include "tui/tui_app_internal.h"

/* Stops saving after a failed write, saying so once. */
static void failed(tui_app *a, const char *why)
{
    if (a->store_failed)
        return;
    a->store_failed = true;
    tui_log_add(&a->log, TUI_LOG_WARN, "progress is no longer saved: %s", why);
}

static bool saving(const tui_app *a)
{
    return a->store && !a->store_failed;
}

bool tui_progress_saving(const tui_app *app)
{
    return saving(app);
}

void tui_progress_attach(tui_app *app, struct store *db, const char *why)
{
    app->store = db;
    /* a store opened read-only (a folder or file that cannot be written):
     * the status bar says "progress not saved" from the start */
    app->store_failed = db && store_readonly(db);
    recorder_init(&app->rec, db, "tui");
    if (!db)
        tui_log_add(&app->log, TUI_LOG_WARN, "%s; your work this session is kept until you quit",
                    why && why[0] ? why : "progress is not saved");
}

/* A read of the record that failed (a damaged page, an I/O error): said,
 * and nothing more is written into that file this session. */
static void unreadable(tui_app *a, const cl_err *e)
{
    if (e->msg[0])
        failed(a, e->msg);
}

/* The quizzes, hints and milestones recorded for lab i. */
static void restore_answers(tui_app *a, size_t i)
{
    const lab *l = a->labs->v[i];
    tui_labstate *s = &a->ls[i];
    cl_err e = {{0}};
    store_quiz *qs = NULL;
    size_t n = 0;
    if (!store_quizzes(a->store, l->id, &qs, &n, &e))
        unreadable(a, &e);
    else
        for (size_t k = 0; k < n; k++) {
            long q = tui_app_quiz_index(l, qs[k].id);
            if (q < 0)
                continue;
            s->quiz_ok[q] = qs[k].answered_right;
            if (qs[k].last_choice >= 0 && (size_t)qs[k].last_choice < l->quizzes[q].nchoices)
                s->quiz_pick[q] = qs[k].last_choice;
        }
    free(qs);
    int *hints = NULL;
    /* hints are kept for the exercise a lab opens on, its first */
    size_t nhints = l->nexercises ? l->exercises[0].nhints : 0;
    if (!store_hints(a->store, l->id, &hints, &n, &e))
        unreadable(a, &e);
    else
        for (size_t k = 0; k < n; k++)
            if (hints[k] >= 0 && (size_t)hints[k] + 1 > s->hints_shown &&
                (size_t)hints[k] < nhints)
                s->hints_shown = (size_t)hints[k] + 1;
    free(hints);
    store_milestone *ms = NULL;
    if (!store_milestones(a->store, l->id, &ms, &n, &e))
        unreadable(a, &e);
    else
        for (size_t k = 0; k < n; k++)
            for (size_t m = 0; m < l->nmilestones; m++)
                if (strcmp(l->milestones[m].id, ms[k].id) == 0) {
                    s->ms[m].earned = true;
                    s->ms[m].earned_at = ms[k].at;
                    snprintf(s->ms[m].earned_shown, sizeof s->ms[m].earned_shown, "%s",
                             ms[k].shown);
                }
    free(ms);
}

/* The rows of lab i's latest run with the learner's kernel, into the table,
 * marked with when they were recorded. */
static void restore_rows(tui_app *a, size_t i)
{
    const lab *l = a->labs->v[i];
    tui_labstate *s = &a->ls[i];
    cl_err e = {{0}};
    store_row *rows = NULL;
    size_t n = 0;
    if (!store_latest_exercise_run(a->store, l->id, &rows, &n, &e)) {
        unreadable(a, &e);
        return;
    }
    for (size_t k = 0; k < n; k++) {
        rows[k].r.run = 0;
        if (!tui_runtable_result(&s->table, &rows[k].r, &e))
            break;
        tui_row *row = tui_runtable_find(&s->table, rows[k].r.variant, rows[k].r.size);
        if (row)
            row->recorded_at = rows[k].at;
    }
    if (n > 0) {
        /* Show the size that was run, when the lab has it. */
        for (size_t z = 0; z < l->nsizes; z++)
            if (strcmp(l->sizes[z], rows[n - 1].r.size) == 0)
                s->size_idx = z;
    }
    free(rows);
}

void tui_progress_restore(tui_app *app)
{
    if (!app->store || !app->labs)
        return;
    cl_err e = {{0}};
    char last[RUN_ID_MAX];
    for (size_t i = 0; i < app->labs->n; i++) {
        const lab *l = app->labs->v[i];
        int step = 0;
        if (store_place_get(app->store, l->id, &step, &e) && step >= 0 && (size_t)step < l->nsteps)
            app->ls[i].step = (size_t)step;
        restore_answers(app, i);
        restore_rows(app, i);
        tui_app_eval(app, i);
    }
    if (store_last_lab(app->store, last, sizeof last, &e))
        for (size_t i = 0; i < app->labs->n; i++)
            if (strcmp(app->labs->v[i]->id, last) == 0)
                app->sel = i;
    app->placed = true;
    app->placed_lab = app->sel;
    app->placed_step = app->labs->n ? app->ls[app->sel].step : 0;
}

void tui_progress_place(tui_app *app)
{
    const lab *l = tui_app_lab(app);
    if (!l || !saving(app))
        return;
    size_t step = app->ls[app->sel].step;
    if (app->placed && app->placed_lab == app->sel && app->placed_step == step)
        return;
    cl_err e = {{0}};
    if (!store_place_set(app->store, l->id, (int)step, &e))
        failed(app, e.msg);
    app->placed = true;
    app->placed_lab = app->sel;
    app->placed_step = step;
}

void tui_progress_quiz(tui_app *app, size_t quiz, size_t choice, bool correct)
{
    const lab *l = tui_app_lab(app);
    cl_err e = {{0}};
    if (l && saving(app) && quiz < l->nquizzes &&
        !store_quiz_answer(app->store, l->id, l->quizzes[quiz].id, (int)choice, correct, &e))
        failed(app, e.msg);
}

void tui_progress_hint(tui_app *app, size_t index)
{
    const lab *l = tui_app_lab(app);
    cl_err e = {{0}};
    if (l && saving(app) && !store_hint_revealed(app->store, l->id, (int)index, &e))
        failed(app, e.msg);
}

void tui_progress_run_started(tui_app *app, const run_request *req)
{
    app->prog_n = 0;
    recorder_begin(&app->rec, req, app->dev_known ? &app->dev : NULL);
}

void tui_progress_device(tui_app *app, const device_info *dev)
{
    recorder_device(&app->rec, dev);
}

void tui_progress_row(tui_app *app, const run_result *result)
{
    const char *cause = NULL;
    diagnosis d;
    if (result->kind == RK_EXERCISE && result->status != RS_CORRECT) {
        diag_row(result, NULL, NULL, 0, NULL, &d);
        cause = diag_cause_name(d.cause);
    }
    recorder_row(&app->rec, result, cause);
    if (!grow_one((void **)&app->prog_rows, &app->prog_cap, app->prog_n,
                  sizeof *app->prog_rows, 32))
        return;
    app->prog_rows[app->prog_n++] = *result;
}

void tui_progress_run_done(tui_app *app)
{
    if (!app->labs || app->run_lab >= app->labs->n)
        return;
    lab *l = app->labs->v[app->run_lab];
    tui_labstate *s = &app->ls[app->run_lab];
    ms_eval *ev = l->nmilestones ? calloc(l->nmilestones, sizeof *ev) : NULL;
    int newly = 0;
    if (ev && app->prog_n > 0) {
        recorder_milestones(&app->rec, l, app->prog_rows, app->prog_n, ev, &newly);
        for (size_t m = 0; m < l->nmilestones; m++) {
            if (ev[m].state != MS_REACHED || s->ms[m].earned)
                continue;
            s->ms[m].earned = true;
            s->ms[m].earned_at = (double)time(NULL);
            snprintf(s->ms[m].earned_shown, sizeof s->ms[m].earned_shown, "%s", ev[m].shown);
            tui_log_add(&app->log, TUI_LOG_INFO, "milestone reached: %s (%s)",
                        l->milestones[m].text, ev[m].shown);
        }
    }
    free(ev);
    app->prog_n = 0;
    if (app->rec.failed[0])
        failed(app, app->rec.failed);
    tui_app_eval(app, app->run_lab);
}
