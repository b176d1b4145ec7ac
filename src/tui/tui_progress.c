#include "tui/tui_progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

bool tui_progress_saving(const tui_app *a)
{
    return saving(a);
}

void tui_progress_attach(tui_app *a, struct store *s, const char *why)
{
    a->store = s;
    /* a store opened read-only (a folder or file that cannot be written):
     * the status bar says "progress not saved" from the start */
    a->store_failed = s && store_readonly(s);
    recorder_init(&a->rec, s, "tui");
    if (!s)
        tui_log_add(&a->log, TUI_LOG_WARN, "%s; your work this session is kept until you quit",
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

void tui_progress_restore(tui_app *a)
{
    if (!a->store || !a->labs)
        return;
    cl_err e = {{0}};
    char last[RUN_ID_MAX];
    for (size_t i = 0; i < a->labs->n; i++) {
        const lab *l = a->labs->v[i];
        int step = 0;
        if (store_place_get(a->store, l->id, &step, &e) && step >= 0 && (size_t)step < l->nsteps)
            a->ls[i].step = (size_t)step;
        restore_answers(a, i);
        restore_rows(a, i);
        tui_app_eval(a, i);
    }
    if (store_last_lab(a->store, last, sizeof last, &e))
        for (size_t i = 0; i < a->labs->n; i++)
            if (strcmp(a->labs->v[i]->id, last) == 0)
                a->sel = i;
    a->placed = true;
    a->placed_lab = a->sel;
    a->placed_step = a->labs->n ? a->ls[a->sel].step : 0;
}

void tui_progress_place(tui_app *a)
{
    const lab *l = tui_app_lab(a);
    if (!l || !saving(a))
        return;
    size_t step = a->ls[a->sel].step;
    if (a->placed && a->placed_lab == a->sel && a->placed_step == step)
        return;
    cl_err e = {{0}};
    if (!store_place_set(a->store, l->id, (int)step, &e))
        failed(a, e.msg);
    a->placed = true;
    a->placed_lab = a->sel;
    a->placed_step = step;
}

void tui_progress_quiz(tui_app *a, size_t q, size_t choice, bool correct)
{
    const lab *l = tui_app_lab(a);
    cl_err e = {{0}};
    if (l && saving(a) && q < l->nquizzes &&
        !store_quiz_answer(a->store, l->id, l->quizzes[q].id, (int)choice, correct, &e))
        failed(a, e.msg);
}

void tui_progress_hint(tui_app *a, size_t index)
{
    const lab *l = tui_app_lab(a);
    cl_err e = {{0}};
    if (l && saving(a) && !store_hint_revealed(a->store, l->id, (int)index, &e))
        failed(a, e.msg);
}

void tui_progress_run_started(tui_app *a, const run_request *req)
{
    a->prog_n = 0;
    recorder_begin(&a->rec, req, a->dev_known ? &a->dev : NULL);
}

void tui_progress_device(tui_app *a, const device_info *dev)
{
    recorder_device(&a->rec, dev);
}

void tui_progress_row(tui_app *a, const run_result *r)
{
    const char *cause = NULL;
    diagnosis d;
    if (r->kind == RK_EXERCISE && r->status != RS_CORRECT) {
        diag_row(r, NULL, NULL, 0, NULL, &d);
        cause = diag_cause_name(d.cause);
    }
    recorder_row(&a->rec, r, cause);
    if (a->prog_n == a->prog_cap) {
        size_t cap = a->prog_cap ? 2 * a->prog_cap : 32;
        run_result *v = realloc(a->prog_rows, cap * sizeof *v);
        if (!v)
            return;
        a->prog_rows = v;
        a->prog_cap = cap;
    }
    a->prog_rows[a->prog_n++] = *r;
}

void tui_progress_run_done(tui_app *a)
{
    if (!a->labs || a->run_lab >= a->labs->n)
        return;
    lab *l = a->labs->v[a->run_lab];
    tui_labstate *s = &a->ls[a->run_lab];
    ms_eval *ev = l->nmilestones ? calloc(l->nmilestones, sizeof *ev) : NULL;
    int newly = 0;
    if (ev && a->prog_n > 0) {
        recorder_milestones(&a->rec, l, a->prog_rows, a->prog_n, ev, &newly);
        for (size_t m = 0; m < l->nmilestones; m++) {
            if (ev[m].state != MS_REACHED || s->ms[m].earned)
                continue;
            s->ms[m].earned = true;
            s->ms[m].earned_at = (double)time(NULL);
            snprintf(s->ms[m].earned_shown, sizeof s->ms[m].earned_shown, "%s", ev[m].shown);
            tui_log_add(&a->log, TUI_LOG_INFO, "milestone reached: %s (%s)",
                        l->milestones[m].text, ev[m].shown);
        }
    }
    free(ev);
    a->prog_n = 0;
    if (a->rec.failed[0])
        failed(a, a->rec.failed);
    tui_app_eval(a, a->run_lab);
}
