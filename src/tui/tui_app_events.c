/* tui_app_events.c - what the worker says during a run, applied to the
 * model: the device's hello (or the worker lost), each row's progress and
 * result into the run table and the progress store, log lines (the
 * compiler's kept for the learner's row), faults, and the run's end, after
 * which a kernel saved meanwhile runs. */
#include "tui/tui_app.h"

#include <string.h>

#include "catalog/experiments_list.h"
#include "tui/tui_app_internal.h"
#include "tui/tui_prof.h"
#include "tui/tui_progress.h"

unsigned tui_app_on_worker_lost(tui_app *app, const char *why)
{
    app->dev_known = true;
    app->dev_lost = true;
    memset(&app->dev, 0, sizeof app->dev);
    strfmt_copy(app->dev.reason, sizeof app->dev.reason, why);
    tui_log_add(&app->log, TUI_LOG_ERROR, "the GPU worker is not running: %s", why);
    return TUI_F_REDRAW;
}

unsigned tui_app_on_hello(tui_app *app, const device_info *dev)
{
    bool first = !app->dev_known || app->dev_lost;
    app->dev_known = true;
    app->dev_lost = false;
    app->dev = *dev;
    if (app->running)
        tui_progress_device(app, dev);
    if (first && !dev->present) {
        const char *r = dev->reason;
        if (strncmp(r, "no CUDA device found", 20) == 0)
            tui_log_add(&app->log, TUI_LOG_WARN, "%s", r);
        else
            tui_log_add(&app->log, TUI_LOG_WARN, "no CUDA device found: %s",
                        r[0] ? r : "reason unknown");
    }
    return TUI_F_REDRAW;
}

static tui_labstate *run_state(tui_app *a, int run)
{
    if (!a->running || run != a->run_id || !a->labs || a->run_lab >= a->labs->n)
        return NULL;
    return &a->ls[a->run_lab];
}

/* Whether the run already counts this row (announced or running). */
static bool awaited(tui_labstate *s, const char *ex, const char *variant, const char *size)
{
    const tui_row *row = tui_runtable_find_in(&s->table, ex, variant, size);
    return row && (row->state == ROW_QUEUED || row->state == ROW_RUNNING);
}

/* In the profiling lab a measurement's row takes the place of its
 * experiment's own row (the multigpu lab's all-reduce rows keep their
 * experiment's id, one a message size). */
static void drop_placeholder(tui_app *a, tui_labstate *s, const char *variant, const char *size)
{
    const char *x;
    tui_row *ph;
    if (!tui_prof_lab(a->labs->v[a->run_lab]) || !(x = tui_prof_experiment(variant))
        || (strcmp(x, variant) == 0 && !size[0]))
        return;
    ph = tui_runtable_find(&s->table, x, "");
    if (!ph)
        return;
    if ((ph->state == ROW_QUEUED || ph->state == ROW_RUNNING) && a->run_rows > 0)
        a->run_rows--;
    tui_runtable_remove(&s->table, x, "");
}

unsigned tui_app_on_progress(tui_app *app, const run_progress *progress)
{
    tui_labstate *s = run_state(app, progress->run);
    if (!s)
        return 0;
    drop_placeholder(app, s, progress->variant, progress->size);
    if (!awaited(s, progress->exercise, progress->variant, progress->size))
        app->run_rows++;
    tui_runtable_progress(&s->table, progress, app->labs->v[app->run_lab]->library, NULL);
    return TUI_F_REDRAW;
}

unsigned tui_app_on_result(tui_app *app, const run_result *result)
{
    tui_labstate *s = run_state(app, result->run);
    if (!s)
        return 0;
    drop_placeholder(app, s, result->variant, result->size);
    if (!awaited(s, result->exercise, result->variant, result->size))
        app->run_rows++;
    tui_runtable_result(&s->table, result, NULL);
    tui_progress_row(app, result);
    app->run_rows_done++;
    if (result->status == RS_NO_DEVICE)
        tui_log_add(&app->log, TUI_LOG_WARN, "%s", result->message);   /* once, counted */
    else if (result->status == RS_ERROR || result->status == RS_FAULT)
        tui_log_add(&app->log, TUI_LOG_ERROR, "%s: %s",
                    result->label[0] ? result->label : result->variant,
                    result->message[0] ? result->message : result_status_text(result->status));
    tui_app_eval(app, app->run_lab);
    return TUI_F_REDRAW;
}

/* True for a compiler's "file:line:col: error: ..." diagnostic. */
static bool is_diagnostic(const char *msg)
{
    const char *c = strchr(msg, ':');
    return c && c > msg && (strstr(msg, ": error: ") || strstr(msg, ": warning: "));
}

/* True for what the compiler itself printed: a diagnostic, or ptxas's own
 * lines ("ptxas info    : Used 40 registers", "ptxas warning : ..."). */
static bool is_compiler_line(const char *msg)
{
    return is_diagnostic(msg) || strncmp(msg, "ptxas", 5) == 0;
}

/* The compiler's lines a run shows in the messages pane; the rest go to
 * the row's details only, and are counted when the run ends. */
#define COMPILER_LINES_SHOWN 3

unsigned tui_app_on_log(tui_app *app, int level, const char *msg)
{
    char path[TUI_TL_PATH_MAX];
    if (experiments_timeline_path(msg, path, sizeof path)) {
        strfmt_copy(app->tl_path, sizeof app->tl_path, path);
        app->tl_stale = true;
        tui_log_add(&app->log, TUI_LOG_INFO, "%s (t shows it)", msg);
        return TUI_F_REDRAW;
    }
    if (app->running && app->labs && app->run_lab < app->labs->n && is_compiler_line(msg)) {
        tui_labstate *s = &app->ls[app->run_lab];
        size_t len = strlen(s->compile_log);
        if (len + strlen(msg) + 2 < sizeof s->compile_log)
            strfmt_append(s->compile_log, sizeof s->compile_log, len, "%s\n", msg);
        if (app->compiler_shown >= COMPILER_LINES_SHOWN) {
            app->compiler_hidden++;
            return TUI_F_REDRAW;
        }
        app->compiler_shown++;
    }
    tui_log_add(&app->log,
                level >= 2   ? TUI_LOG_ERROR
                : level == 1 ? TUI_LOG_WARN
                             : TUI_LOG_INFO,
                "%s", msg);
    return TUI_F_REDRAW;
}

unsigned tui_app_on_fault(tui_app *app, const run_fault *fault)
{
    tui_labstate *s = run_state(app, fault->run);
    if (strcmp(fault->cause, "cancelled") == 0) {
        tui_log_add(&app->log, TUI_LOG_INFO, "run %d cancelled", fault->run);
    } else {
        tui_log_add(&app->log, TUI_LOG_ERROR,
                    "worker fault (%s)%s%s: %s; the next run starts a fresh worker", fault->cause,
                    fault->variant[0] ? " in " : "", fault->variant, fault->message);
    }
    if (s && strcmp(fault->cause, "cancelled") != 0) {
        char scope[RUN_ID_MAX];
        strfmt_copy(scope, sizeof scope, s->table.scope);
        strfmt_copy(s->table.scope, sizeof s->table.scope, app->run_ex);
        tui_runtable_fault(&s->table, fault, app->run_size);
        strfmt_copy(s->table.scope, sizeof s->table.scope, scope);
    }
    return TUI_F_REDRAW;
}

unsigned tui_app_on_done(tui_app *app, int run)
{
    tui_labstate *s = run_state(app, run);
    unsigned f = TUI_F_REDRAW;
    if (!s)
        return 0;
    tui_runtable_finish(&s->table, "not run: the run ended first");
    if (app->compiler_hidden > 0)
        tui_log_add(&app->log, TUI_LOG_INFO,
                    "%d more line%s from the compiler not shown here: Enter on "
                    "your kernel's row shows them all",
                    app->compiler_hidden, app->compiler_hidden == 1 ? "" : "s");
    app->compiler_shown = app->compiler_hidden = 0;
    app->running = false;
    tui_progress_run_done(app);
    if (app->rerun_lab) {
        size_t i = app->rerun_lab - 1;
        app->rerun_lab = 0;
        if (i == app->sel)
            f |= tui_app_request_run(app, RUN_EXERCISE);
    }
    return f;
}
