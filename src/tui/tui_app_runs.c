/* tui_app_runs.c - the run table and runs: the rows shown at the chosen
 * size, the cursor and the size, the learner's files a run uses, a run
 * request built for what was asked, the rows a starting run queues, and an
 * exercise saved or reset. */
#include "tui/tui_app.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "catalog/experiments_list.h"
#include "core/paths.h"
#include "core/units.h"
#include "lab/labneeds.h"
#include "lab/labproblem.h"
#include "lab/workspace.h"
#include "tui/tui_prof.h"
#include "tui/tui_app_internal.h"
#include "tui/tui_progress.h"

/* Where a profiling row's experiment comes among the lab's variants. */
static size_t experiment_rank(const lab *l, const tui_row *r)
{
    const char *x = tui_prof_experiment(r->variant);
    for (size_t v = 0; x && v < l->nvariants; v++)
        if (strcmp(l->variants[v].id, x) == 0)
            return v;
    return l->nvariants;
}

size_t tui_app_rows(const tui_app *app, size_t *idx, size_t max)
{
    const lab *l = tui_app_lab(app);
    const tui_labstate *s;
    if (!l)
        return 0;
    s = &app->ls[app->sel];
    if (tui_prof_lab(l)) {
        size_t nown = 0;
        char *const *own = tui_app_sizes(app, app->sel, &nown);
        size_t n = tui_runtable_view_own(&s->table, tui_app_size(app), (const char *const *)own,
                                         nown, idx, max);
        size_t k = 0;
        while (k < n && strcmp(s->table.v[idx[k]].size, tui_app_size(app)) != 0)
            k++;
        for (size_t i = 1; i < k; i++)
            for (size_t j = i; j > 0 && experiment_rank(l, &s->table.v[idx[j]]) <
                                            experiment_rank(l, &s->table.v[idx[j - 1]]); j--) {
                size_t t = idx[j];
                idx[j] = idx[j - 1];
                idx[j - 1] = t;
            }
        return n;
    }
    return tui_runtable_view(&s->table, tui_app_size(app), idx, max);
}

static size_t run_rows(tui_app *a, size_t *idx, size_t max)
{
    return tui_app_rows(a, idx, max);
}

int tui_app_run_visible(const tui_layout *lay)
{
    int h = lay->run_table.h - 2;
    return h < 1 ? 1 : h;
}

static void run_follow(tui_app *a, const tui_layout *lay)
{
    tui_labstate *s = tui_app_state(a);
    size_t idx[VIEW_MAX], n = run_rows(a, idx, VIEW_MAX);
    int vis = tui_app_run_visible(lay);
    if (!s)
        return;
    if (n == 0) {
        s->run_cursor = 0;
        s->run_scroll = 0;
        return;
    }
    if (s->run_cursor >= n)
        s->run_cursor = n - 1;
    if ((int)s->run_cursor < s->run_scroll)
        s->run_scroll = (int)s->run_cursor;
    if ((int)s->run_cursor >= s->run_scroll + vis)
        s->run_scroll = (int)s->run_cursor - vis + 1;
    if (s->run_scroll > (int)n - vis)
        s->run_scroll = (int)n - vis;
    if (s->run_scroll < 0)
        s->run_scroll = 0;
}

unsigned tui_app_run_cursor_move(tui_app *app, const tui_layout *lay, long to)
{
    tui_labstate *s = tui_app_state(app);
    size_t idx[VIEW_MAX], n = run_rows(app, idx, VIEW_MAX);
    if (!s || n == 0)
        return 0;
    s->run_cursor = (size_t)(to < 0 ? 0 : to >= (long)n ? (long)n - 1 : to);
    run_follow(app, lay);
    return TUI_F_REDRAW;
}

unsigned tui_app_size_move(tui_app *app, const tui_layout *lay, int delta)
{
    const lab *l = tui_app_lab(app);
    tui_labstate *s = tui_app_state(app);
    size_t nsizes = 0;
    long ns;
    if (!l || !s || (tui_app_sizes(app, app->sel, &nsizes), nsizes < 2))
        return 0;
    ns = (long)s->size_idx + delta;
    if (ns < 0 || ns >= (long)nsizes)
        return 0;
    s->size_idx = (size_t)ns;
    run_follow(app, lay);
    return TUI_F_REDRAW;
}

/* ---- runs ------------------------------------------------------------------ */

const tui_row *tui_app_cursor_row(tui_app *app)
{
    tui_labstate *s = tui_app_state(app);
    size_t idx[VIEW_MAX], n = run_rows(app, idx, VIEW_MAX);
    if (!s || n == 0)
        return NULL;
    return &s->table.v[idx[s->run_cursor < n ? s->run_cursor : n - 1]];
}

static bool is_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

bool tui_app_exercise_paths(const tui_app *app, const lab *the_lab, const lab_exercise *exercise,
                            char *kernel, char *launcher, size_t path_size)
{
    workspace_files f;
    bool mine;
    if (!workspace_files_of(app->workspace, the_lab, exercise, &f, NULL))
        return false;
    mine = is_file(f.kernel);
    strfmt_copy(kernel, path_size, mine ? f.kernel : f.starter_kernel);
    strfmt_copy(launcher, path_size,
                mine && f.launcher[0] && is_file(f.launcher) ? f.launcher : f.starter_launcher);
    return true;
}


/* The run of a listed exercise x at the chosen size: its own rungs, its
 * kernel, the CPU and its library, as its own problem. */
static void exercise_request(tui_app *a, const lab *l, const lab_exercise *x, run_request *req)
{
    lab_request_problem(l, x, req);
    strfmt_copy(req->exercise, sizeof req->exercise, x->id);
    for (size_t v = 0; v < x->nvariants; v++)
        lab_request_add_variant(req, &x->variants[v]);
    if (!tui_app_exercise_paths(a, l, x, req->exercise_kernel, req->exercise_launcher,
                                RUN_PATH_MAX))
        req->exercise_kernel[0] = '\0';
}

/* The profiling lab's rows a run of mode asks for, into req: every
 * experiment, the one of the row under the cursor, or the learner's
 * pipeline alone; true when the pipeline (own) runs too. */
static bool pick_experiments(const lab *l, const lab_exercise *own, run_mode mode,
                             const tui_row *row, run_request *req)
{
    const char *xp = NULL;
    bool exercise = false;
    if (mode == RUN_ALL) {
        for (size_t v = 0; v < l->nvariants; v++)
            lab_request_add_variant(req, &l->variants[v]);
        exercise = own != NULL;
    } else if (mode == RUN_SELECTED && row && (xp = tui_prof_experiment(row->variant)) != NULL) {
        for (size_t v = 0; v < l->nvariants; v++)
            if (strcmp(l->variants[v].id, xp) == 0)
                lab_request_add_variant(req, &l->variants[v]);
    } else {
        exercise = own != NULL;
    }
    req->cpu = exercise;
    req->budget_s = 0;     /* each part's own default, as `cudalab profile` has it */
    return exercise;
}

/* The lab's variant under the cursor (else its first) into req; true when
 * there is none and the lab's own exercise (own) runs instead. */
static bool pick_variant(const lab *l, const lab_exercise *own, const tui_row *row,
                         run_request *req)
{
    const lab_variant *pick = NULL;
    for (size_t v = 0; row && v < l->nvariants; v++)
        if (strcmp(l->variants[v].id, row->variant) == 0)
            pick = &l->variants[v];
    if (!pick && l->nvariants > 0)
        pick = &l->variants[0];
    if (pick)
        lab_request_add_variant(req, pick);
    else
        return own != NULL;
    return false;
}

/* The rows a run of mode asks for, into req: the picked exercise's, the
 * profiling lab's experiments, all the lab's variants or the row under the
 * cursor; true when the learner's kernel runs too. */
static bool pick_rows(tui_app *a, const lab *l, run_mode mode, const tui_row *row,
                      run_request *req)
{
    const lab_exercise *x = tui_app_exercise(a), *own = lab_own_exercise(l);
    if (x && x->id[0] &&
        (mode == RUN_EXERCISE || (mode == RUN_ALL && !tui_prof_lab(l)) ||
         (mode == RUN_SELECTED && row && row->exercise[0]))) {
        exercise_request(a, l, x, req);
        return req->exercise_kernel[0] != '\0';
    }
    if (tui_prof_lab(l))
        return pick_experiments(l, own, mode, row, req);
    if (mode == RUN_ALL) {
        for (size_t v = 0; v < l->nvariants; v++)
            lab_request_add_variant(req, &l->variants[v]);
        return own != NULL;
    }
    if (mode == RUN_EXERCISE)
        return own != NULL;
    if (row && row->kind == RK_EXERCISE && own)
        return true;
    return pick_variant(l, own, row, req);
}

unsigned tui_app_request_run(tui_app *app, run_mode mode)
{
    const lab *l = tui_app_lab(app);
    const lab_exercise *x = tui_app_exercise(app), *own = lab_own_exercise(l);
    run_request *req = &app->req.run;
    const tui_row *row = tui_app_cursor_row(app);
    bool exercise;
    if (!l)
        return 0;
    if (app->running) {
        tui_log_add(&app->log, TUI_LOG_WARN,
                    "a run is in progress: wait for it, or cancel it with Esc or c");
        return TUI_F_REDRAW;
    }
    if (!l->problem || (l->nvariants == 0 && l->nexercises == 0)) {
        tui_log_add(&app->log, TUI_LOG_WARN, "lab '%s' has no kernels to run", l->id);
        return TUI_F_REDRAW;
    }
    if (!tui_app_size(app)[0] && !tui_prof_lab(l)) {
        tui_log_add(&app->log, TUI_LOG_WARN, "lab '%s' declares no problem sizes", l->id);
        return TUI_F_REDRAW;
    }
    memset(&app->req, 0, sizeof app->req);
    strfmt_copy(req->lab, sizeof req->lab, l->id);
    lab_request_problem(l, NULL, req);
    req->nsizes = 1;
    strfmt_copy(req->sizes[0], sizeof req->sizes[0], tui_app_size(app));
    req->budget_s = 0.5;
    req->cpu = true;
    exercise = pick_rows(app, l, mode, row, req);
    if (exercise && !req->exercise[0] &&
        !tui_app_exercise_paths(app, l, own, req->exercise_kernel, req->exercise_launcher,
                                RUN_PATH_MAX))
        exercise = false;
    if (!exercise)
        req->exercise_kernel[0] = req->exercise_launcher[0] = '\0';
    else if (!tui_prof_lab(l) || strcmp(l->problem, EXPERIMENTS_MULTIGPU) == 0)
        lab_request_needs(l, req->exercise[0] ? x : own, req);   /* its milestones' rungs */
    if (req->nvariants == 0 && !exercise) {
        memset(&app->req, 0, sizeof app->req);
        tui_log_add(&app->log, TUI_LOG_WARN, "lab '%s': nothing to run", l->id);
        return TUI_F_REDRAW;
    }
    app->req.kind = TUI_REQ_RUN;
    app->req.time_limit_s = app->time_limit_s > 0 ? app->time_limit_s : l->time_limit_s;
    return TUI_F_REQUEST | TUI_F_REDRAW;
}

unsigned tui_app_request_cancel(tui_app *app)
{
    if (!app->running && app->job != TUI_JOB_NONE) {
        memset(&app->req, 0, sizeof app->req);
        app->req.kind = TUI_REQ_CANCEL_JOB;
        return TUI_F_REQUEST | TUI_F_REDRAW;
    }
    if (!app->running)
        return 0;
    memset(&app->req, 0, sizeof app->req);
    app->req.kind = TUI_REQ_CANCEL;
    return TUI_F_REQUEST | TUI_F_REDRAW;
}

/* A profiling run starts: each experiment's rows (or its own row while
 * it has none) and, with the exercise, the pipeline's rows are queued
 * (the multigpu lab's learner rows come as its all-reduces' do, a size
 * at a time). */
static void started_profiling(tui_app *a, tui_labstate *s, const run_request *req)
{
    const char *size = req->nsizes > 0 ? req->sizes[0] : "";
    for (int v = 0; v < req->nvariants; v++) {
        bool any = false;
        for (size_t k = 0; k < s->table.n; k++) {
            tui_row *r = &s->table.v[k];
            const char *x = tui_prof_experiment(r->variant);
            if (!x || strcmp(x, req->variants[v].id) != 0 || strcmp(r->variant, x) == 0)
                continue;
            tui_runtable_expect(&s->table, r->variant, NULL, r->kind, r->size, NULL);
            a->run_rows++;
            any = true;
        }
        if (!any) {
            tui_runtable_expect(&s->table, req->variants[v].id, NULL, RK_KERNEL, "", NULL);
            a->run_rows++;
        } else {
            tui_runtable_remove(&s->table, req->variants[v].id, "");
        }
    }
    bool pipeline = strcmp(req->problem, EXPERIMENTS_MULTIGPU) != 0;
    if (req->exercise_kernel[0] && pipeline) {
        tui_runtable_forget_skipped(&s->table, size);
        if (req->cpu) {
            tui_runtable_expect(&s->table, "cpu", NULL, RK_CPU, size, NULL);
            a->run_rows++;
        }
        tui_runtable_expect(&s->table, "starter", NULL, RK_KERNEL, size, NULL);
        tui_runtable_expect(&s->table, "exercise", "your pipeline", RK_EXERCISE, size, NULL);
        a->run_rows += 2;
    }
    tui_log_add(&a->log, TUI_LOG_INFO, "run %d: %s%s%s (Esc cancels)", req->run, req->lab,
                !pipeline && req->exercise_kernel[0]
                    ? (req->nvariants > 0 ? ": the experiments with your kernel" : ": your kernel")
                : req->nvariants > 0 ? (req->exercise_kernel[0] ? ": the experiments, then your pipeline at " : ": experiments")
                                     : ": your pipeline at ",
                req->exercise_kernel[0] && pipeline ? size : "");
}

void tui_app_run_started(tui_app *app, const run_request *req)
{
    tui_labstate *s;
    const char *size = req->nsizes > 0 ? req->sizes[0] : "";
    size_t li = app->sel;
    app->req.kind = TUI_REQ_NONE;
    for (size_t i = 0; app->labs && i < app->labs->n; i++)
        if (strcmp(app->labs->v[i]->id, req->lab) == 0)
            li = i;
    if (!app->labs || li >= app->labs->n)
        return;
    s = &app->ls[li];
    app->running = true;
    app->run_id = req->run;
    app->run_lab = li;
    strfmt_copy(app->run_size, sizeof app->run_size, size);
    strfmt_copy(app->run_ex, sizeof app->run_ex, req->exercise);
    app->run_rows = 0;
    app->run_rows_done = 0;
    app->compiler_shown = app->compiler_hidden = 0;
    s->compile_log[0] = '\0';
    tui_progress_run_started(app, req);
    char scope[RUN_ID_MAX];
    strfmt_copy(scope, sizeof scope, s->table.scope);
    strfmt_copy(s->table.scope, sizeof s->table.scope, req->exercise);
    if (tui_prof_lab(app->labs->v[li]) && strcmp(req->problem, app->labs->v[li]->problem) == 0) {
        started_profiling(app, s, req);
        strfmt_copy(s->table.scope, sizeof s->table.scope, scope);
        return;
    }
    for (int z = 0; z < req->nsizes; z++) {
        tui_runtable_forget_skipped(&s->table, req->sizes[z]);
        if (req->cpu) {
            tui_runtable_expect(&s->table, "cpu", NULL, RK_CPU, req->sizes[z], NULL);
            app->run_rows++;
        }
        if (req->library[0]) {
            tui_runtable_expect(&s->table, req->library, NULL, RK_LIBRARY, req->sizes[z], NULL);
            app->run_rows++;
        }
        for (int v = 0; v < req->nvariants; v++) {
            tui_runtable_expect(&s->table, req->variants[v].id, NULL, RK_KERNEL, req->sizes[z], NULL);
            app->run_rows++;
        }
        if (req->exercise_kernel[0]) {
            tui_runtable_expect(&s->table, "exercise", NULL, RK_EXERCISE, req->sizes[z], NULL);
            app->run_rows++;
        }
    }
    strfmt_copy(s->table.scope, sizeof s->table.scope, scope);
    tui_log_add(&app->log, TUI_LOG_INFO, "run %d: %s%s%s at size %s (Esc cancels)", req->run,
                req->lab, req->exercise[0] ? ", exercise " : "", req->exercise, size);
}

void tui_app_run_failed(tui_app *app, const char *why)
{
    app->req.kind = TUI_REQ_NONE;
    tui_log_add(&app->log, TUI_LOG_ERROR, "cannot start the run: %s", why);
}

unsigned tui_app_exercise_saved(tui_app *app, size_t lab_index, const lab_exercise *exercise,
                                const char *file)
{
    const char *base;
    if (!app->labs || lab_index >= app->labs->n || !exercise)
        return 0;
    base = paths_base_name(file);
    if (lab_index != app->sel || exercise != tui_app_exercise(app)) {
        tui_log_add(&app->log, TUI_LOG_INFO,
                    "%s saved (lab %s%s%s): select it%s and press r to run it", base,
                    app->labs->v[lab_index]->id, exercise->id[0] ? ", exercise " : "", exercise->id,
                    exercise->id[0] ? " (x picks the exercise)" : "");
        return TUI_F_REDRAW;
    }
    if (app->running) {
        app->rerun_lab = lab_index + 1;
        tui_log_add(&app->log, TUI_LOG_INFO, "%s saved: your kernel runs when this run ends", base);
        return TUI_F_REDRAW;
    }
    tui_log_add(&app->log, TUI_LOG_INFO, "%s saved: compiling and running your kernel", base);
    return tui_app_request_run(app, RUN_EXERCISE);
}

void tui_app_exercise_reset(tui_app *app, size_t lab_index, const lab_exercise *exercise)
{
    if (!app->labs || lab_index >= app->labs->n || !exercise)
        return;
    tui_runtable_forget_exercise(&app->ls[lab_index].table, exercise->id);
    app->ls[lab_index].compile_log[0] = '\0';
}
