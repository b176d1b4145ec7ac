#include "tui/tui_internal.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/which.h"
#include "lab/labproblem.h"
#include "lab/workspace.h"
#include "prof/ncu.h"

/* ---- the learner's files --------------------------------------------------- */

static const char *ws_of(const tui_ctx *c)
{
    return c->workspace[0] ? c->workspace : NULL;
}

void tui_requests_prepare(tui_ctx *ctx, size_t lab_index)
{
    tui_app *a = &ctx->app;
    const lab *l;
    workspace_files f;
    cl_err e;
    if (!a->labs || lab_index >= a->labs->n || ctx->prepared[lab_index])
        return;
    l = a->labs->v[lab_index];
    ctx->prepared[lab_index] = true;
    for (size_t k = 0; k < l->nexercises; k++) {
        const lab_exercise *x = &l->exercises[k];
        err_clear(&e);
        if (!workspace_prepare(ws_of(ctx), l, x, &f, &e)) {
            tui_log_add(&a->log, TUI_LOG_WARN, "your copy of the exercise could not be made: %s", e.msg);
            continue;
        }
        tui_log_add(&a->log, TUI_LOG_INFO, "your kernel for %s%s%s: %s%s", l->id, x->id[0] ? "/" : "",
                    x->id, f.kernel, f.kernel_created || f.launcher_created ? " (e edits it; saving runs it)" : "");
        if (ctx->watch && !watch_add(ctx->watch, f.dir, &e))
            tui_log_add(&a->log, TUI_LOG_WARN, "saves in %s will not start runs: %s", f.dir, e.msg);
    }
}

/* Exercise k of lab i, or NULL. */
static const lab_exercise *exercise_at(const tui_ctx *c, size_t i, size_t k)
{
    const lab *l = c->app.labs && i < c->app.labs->n ? c->app.labs->v[i] : NULL;
    return l && k < l->nexercises ? &l->exercises[k] : NULL;
}

/* Runs the learner's editor on lab i's kernel with the terminal handed
 * over, and takes the terminal back afterwards. */
static void edit_exercise(tui_ctx *c, size_t i)
{
    tui_app *a = &c->app;
    workspace_files f;
    cl_err e;
    const char *ed = getenv("VISUAL");
    struct sigaction ign, old_int, old_quit;
    pid_t pid;
    int status = 0;
    if (!ed || !ed[0])
        ed = getenv("EDITOR");
    char found[CL_PATH_MAX];
    if (!ed || !ed[0])
        ed = which_tool("vi", found, sizeof found) || !which_tool("nano", found, sizeof found)
                 ? "vi" : "nano";
    err_clear(&e);
    tui_requests_prepare(c, i);
    /* The editor opens the learner's own copy or nothing: a missing copy is
     * made now, and when it cannot be, the learner learns where to fix it. */
    if (!workspace_prepare(ws_of(c), a->labs->v[i], exercise_at(c, i, a->req.ex), &f, &e)) {
        char root[CL_PATH_MAX] = "";
        if (c->workspace[0])
            snprintf(root, sizeof root, "%s", c->workspace);
        else
            paths_workspace(root, sizeof root, NULL);
        tui_log_add(&a->log, TUI_LOG_ERROR,
                    "the editor was not opened: your copy of the exercise could not be made: %s. "
                    "Fix the workspace folder %s, or start cudalab with --workspace DIR",
                    e.msg, root);
        return;
    }
    if (c->watch && !watch_add(c->watch, f.dir, &e))
        tui_log_add(&a->log, TUI_LOG_WARN, "saves in %s will not start runs: %s", f.dir, e.msg);
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigemptyset(&ign.sa_mask);
    def_prog_mode();
    endwin();
    sigaction(SIGINT, &ign, &old_int);
    sigaction(SIGQUIT, &ign, &old_quit);
    pid = fork();
    if (pid == 0) {
        signal(SIGINT, SIG_DFL);
        signal(SIGQUIT, SIG_DFL);
        execlp("sh", "sh", "-c", "exec $0 \"$1\"", ed, f.kernel, (char *)NULL);
        _exit(127);
    }
    if (pid > 0)
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    reset_prog_mode();
    clearok(curscr, TRUE);
    if (pid < 0)
        tui_log_add(&a->log, TUI_LOG_ERROR, "cannot start the editor: %s", strerror(errno));
    else if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
        tui_log_add(&a->log, TUI_LOG_ERROR, "the editor '%s' could not be started; set $EDITOR", ed);
}

static void reset_exercise(tui_ctx *c, size_t i)
{
    tui_app *a = &c->app;
    workspace_files f;
    char backup[CL_PATH_MAX];
    cl_err e;
    err_clear(&e);
    if (!workspace_reset(ws_of(c), a->labs->v[i], exercise_at(c, i, a->req.ex), true, &f, backup,
                         sizeof backup, &e)) {
        tui_log_add(&a->log, TUI_LOG_ERROR, "reset failed: %s", e.msg);
        return;
    }
    tui_app_exercise_reset(a, i, exercise_at(c, i, a->req.ex));
    if (backup[0])
        tui_log_add(&a->log, TUI_LOG_INFO, "your kernel is back to the starter; your files are in %s", backup);
    else if (f.kernel_created || f.launcher_created)
        tui_log_add(&a->log, TUI_LOG_INFO, "your kernel is back to the starter");
    else
        tui_log_add(&a->log, TUI_LOG_INFO, "your files were the starters already: nothing changed, "
                    "no backup made");
}

unsigned tui_requests_saves(tui_ctx *ctx)
{
    watch_change ch[8];
    unsigned flags = 0;
    int n;
    cl_err e;
    if (!ctx->watch)
        return 0;
    err_clear(&e);
    n = watch_poll(ctx->watch, ch, 8, &e);
    for (int k = 0; k < n; k++) {
        for (size_t i = 0; ctx->app.labs && i < ctx->app.labs->n; i++) {
            const lab *l = ctx->app.labs->v[i];
            for (size_t x = 0; ctx->prepared[i] && x < l->nexercises; x++) {
                workspace_files f;
                const char *p = ch[k].path;
                if (!workspace_files_of(ws_of(ctx), l, &l->exercises[x], &f, NULL))
                    continue;
                if (strcmp(p, f.kernel) == 0 || (f.launcher[0] && strcmp(p, f.launcher) == 0))
                    flags |= tui_app_exercise_saved(&ctx->app, i, &l->exercises[x], p);
            }
        }
    }
    return flags;
}

/* ---- Nsight Compute and compute-sanitizer -------------------------------------- */

/* The program and global options a child cudalab needs to see what this
 * one sees: the same labs, workspace and time limit. */
static bool self_args(tui_ctx *c, tui_ncu_job *j, cl_err *e)
{
    char limit[32];
    j->nargs = 0;
    if (!paths_self_exe(j->args[j->nargs++], sizeof j->args[0], e))
        return false;
    for (size_t i = 1; i < c->opts->nlab_dirs && j->nargs + 2 < TUI_NCU_MAX_ARGS; i++) {
        snprintf(j->args[j->nargs++], sizeof j->args[0], "--labs");
        snprintf(j->args[j->nargs++], sizeof j->args[0], "%s", c->opts->lab_dirs[i]);
    }
    if (c->workspace[0]) {
        snprintf(j->args[j->nargs++], sizeof j->args[0], "--workspace");
        snprintf(j->args[j->nargs++], sizeof j->args[0], "%s", c->workspace);
    }
    if (c->opts->time_limit_s > 0) {
        snprintf(limit, sizeof limit, "%g", c->opts->time_limit_s);
        snprintf(j->args[j->nargs++], sizeof j->args[0], "--time-limit");
        snprintf(j->args[j->nargs++], sizeof j->args[0], "%s", limit);
    }
    return true;
}

static void start_ncu(tui_ctx *c)
{
    tui_app *a = &c->app;
    tui_ncu_job *j = &c->ncu;
    cl_err e;
    err_clear(&e);
    memset(j, 0, sizeof *j);
    if (!ncu_find(j->ncu, sizeof j->ncu)) {
        tui_app_job_failed(a, ncu_install_hint());
        return;
    }
    if (a->dev_known && !a->dev.present) {
        tui_app_job_failed(a, "no CUDA device found: Nsight Compute needs a GPU to profile a kernel on");
        return;
    }
    if (!self_args(c, j, &e)) {
        tui_app_job_failed(a, e.msg);
        return;
    }
    for (int i = 0; i < a->req.nargs && j->nargs < TUI_NCU_MAX_ARGS; i++)
        snprintf(j->args[j->nargs++], sizeof j->args[0], "%s", a->req.args[i]);
    snprintf(j->kernel, sizeof j->kernel, "%s", a->req.kernel);
    j->timeout_s = a->time_limit_s > 0 ? a->time_limit_s * 4 : 0;
    if (!tui_job_start(&c->job, tui_ncu_child, j, &e))
        tui_app_job_failed(a, e.msg);
    else
        tui_app_job_started(a);
}

static void start_sanitize(tui_ctx *c)
{
    tui_app *a = &c->app;
    tui_san_job *j = &c->san;
    const lab *l;
    cl_err e;
    err_clear(&e);
    memset(j, 0, sizeof *j);
    if (!a->labs || a->req.lab >= a->labs->n) {
        a->req.kind = TUI_REQ_NONE;
        return;
    }
    l = a->labs->v[a->req.lab];
    const lab_exercise *x = exercise_at(c, a->req.lab, a->req.ex);
    tui_requests_prepare(c, a->req.lab);
    j->tool = a->req.racecheck ? SANITIZE_RACECHECK : SANITIZE_MEMCHECK;
    if (a->req.nargs > 0)    /* the request names its tool: "synccheck", "initcheck", ... */
        sanitize_tool_from_name(a->req.args[0], &j->tool);
    snprintf(j->problem, sizeof j->problem, "%s", x && x->problem ? x->problem : l->problem);
    snprintf(j->lab, sizeof j->lab, "%s", l->id);
    j->spec = lab_problem_spec(l, j->problem);
    if (lab_problem_decl(l, j->problem))
        snprintf(j->lab_file, sizeof j->lab_file, "%s", l->path);
    for (size_t z = 0; x && z < x->nsizes && j->nsizes < RUN_MAX_SIZES; z++)
        snprintf(j->sizes[j->nsizes++], sizeof j->sizes[0], "%s", x->sizes[z]);
    if (!x || !tui_app_exercise_paths(a, l, x, j->kernel, j->launcher, sizeof j->kernel)) {
        tui_app_job_failed(a, "this lab has no exercise to check");
        return;
    }
    j->time_limit_s = a->time_limit_s;
    if (!tui_job_start(&c->job, tui_san_child, j, &e))
        tui_app_job_failed(a, e.msg);
    else
        tui_app_job_started(a);
}

/* ---- requests ------------------------------------------------------------ */

void tui_requests_handle(tui_ctx *ctx)
{
    tui_app *a = &ctx->app;
    cl_err e;
    err_clear(&e);
    switch (a->req.kind) {
    case TUI_REQ_RUN:
        if (!ctx->sup) {
            tui_app_run_failed(a, ctx->sup_error);
        } else if (supervisor_submit(ctx->sup, &a->req.run, a->req.time_limit_s, &e)) {
            run_request started = a->req.run;
            tui_app_run_started(a, &started);
        } else {
            tui_app_run_failed(a, e.msg);
        }
        break;
    case TUI_REQ_CANCEL:
        a->req.kind = TUI_REQ_NONE;
        if (ctx->sup)
            supervisor_cancel(ctx->sup);
        break;
    case TUI_REQ_EDIT:
        a->req.kind = TUI_REQ_NONE;
        edit_exercise(ctx, a->req.lab);
        break;
    case TUI_REQ_RESET:
        a->req.kind = TUI_REQ_NONE;
        reset_exercise(ctx, a->req.lab);
        break;
    case TUI_REQ_NCU:
        start_ncu(ctx);
        break;
    case TUI_REQ_SANITIZE:
        start_sanitize(ctx);
        break;
    case TUI_REQ_CANCEL_JOB:
        a->req.kind = TUI_REQ_NONE;
        if (tui_job_active(&ctx->job)) {
            tui_job_clear(&ctx->job);
            tui_log_add(&a->log, TUI_LOG_INFO, "%s stopped", a->job_what);
        }
        a->job = TUI_JOB_NONE;
        break;
    case TUI_REQ_NONE:
        break;
    }
}
