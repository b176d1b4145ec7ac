#include "tui/tui.h"

#include <curses.h>
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "prof/ncu.h"
#include "core/paths.h"
#include "core/which.h"
#include "core/watch.h"
#include "lab/labmodel.h"
#include "lab/workspace.h"
#include "tui/tui_app.h"
#include "tui/tui_draw.h"
#include "tui/tui_job.h"
#include "tui/tui_keys.h"
#include "tui/tui_layout.h"
#include "tui/tui_lessonview.h"
#include "tui/tui_milestones.h"
#include "tui/tui_ncu.h"
#include "tui/tui_overlays.h"
#include "tui/tui_panes.h"
#include "tui/tui_runview.h"
#include "tui/tui_san.h"
#include "tui/tui_theme.h"
#include "tui/tui_views.h"
#include "catalog/experiments_list.h"
#include "supervise/supervisor.h"

#define FRAME_MS 100          /* while something animates */
#define IDLE_MS 2000          /* otherwise */

static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig)
{
    stop_signal = sig;
}

typedef struct tui_ctx {
    tui_app app;
    tui_layout lay;
    WINDOW *win[TUI_P_COUNT];
    WINDOW *overlay;
    supervisor *sup;
    char sup_error[CL_ERR_MAX];
    unsigned flags;            /* TUI_F_* gathered from callbacks */
    char workspace[CL_PATH_MAX];
    watch *watch;              /* saves in the workspace folders of opened labs */
    bool *prepared;            /* per lab: workspace copies made and watched */
    size_t last_sel;
    const tui_opts *opts;
    tui_job job;               /* Nsight Compute or compute-sanitizer, in a child */
    tui_ncu_job ncu;
    tui_san_job san;
} tui_ctx;

/* ---- worker callbacks ---------------------------------------------------- */

static void cb_hello(void *ud, const device_info *dev)
{
    tui_ctx *c = ud;
    c->flags |= tui_app_on_hello(&c->app, dev);
}

static void cb_progress(void *ud, const run_progress *p)
{
    tui_ctx *c = ud;
    c->flags |= tui_app_on_progress(&c->app, p);
}

static void cb_result(void *ud, const run_result *r)
{
    tui_ctx *c = ud;
    c->flags |= tui_app_on_result(&c->app, r);
}

static void cb_log(void *ud, int level, const char *msg)
{
    tui_ctx *c = ud;
    c->flags |= tui_app_on_log(&c->app, level, msg);
}

static void cb_fault(void *ud, const run_fault *f)
{
    tui_ctx *c = ud;
    c->flags |= tui_app_on_fault(&c->app, f);
}

static void cb_done(void *ud, int run)
{
    tui_ctx *c = ud;
    c->flags |= tui_app_on_done(&c->app, run);
}

/* ---- windows ------------------------------------------------------------- */

static void windows_free(tui_ctx *c)
{
    for (int p = 0; p < TUI_P_COUNT; p++) {
        if (c->win[p])
            delwin(c->win[p]);
        c->win[p] = NULL;
    }
    if (c->overlay)
        delwin(c->overlay);
    c->overlay = NULL;
}

static void windows_build(tui_ctx *c)
{
    int nlabs = c->app.labs ? (int)c->app.labs->n : 0;
    windows_free(c);
    tui_layout_compute(LINES, COLS, nlabs, &c->lay);
    if (c->lay.too_small)
        return;
    for (int p = 0; p < TUI_P_COUNT; p++) {
        tui_rect r = c->lay.pane[p];
        if (!tui_rect_empty(r))
            c->win[p] = newwin(r.h, r.w, r.y, r.x);
    }
}

static void overlay_window(tui_ctx *c)
{
    tui_rect r;
    if (c->overlay)
        delwin(c->overlay);
    c->overlay = NULL;
    switch (c->app.overlay) {
    case TUI_OV_HELP: case TUI_OV_DETAILS: r = c->lay.help; break;
    case TUI_OV_QUIZ: r = c->lay.quiz; break;
    case TUI_OV_CONFIRM_QUIT: case TUI_OV_CONFIRM_RESET: r = c->lay.confirm; break;
    case TUI_OV_TIMELINE: case TUI_OV_ROOFLINE: r = c->lay.view; break;
    default: return;
    }
    if (!tui_rect_empty(r))
        c->overlay = newwin(r.h, r.w, r.y, r.x);
}

static void draw(tui_ctx *c)
{
    tui_app *a = &c->app;
    if (c->lay.too_small) {
        tui_overlays_too_small(stdscr, LINES, COLS);
        wnoutrefresh(stdscr);
        doupdate();
        return;
    }
    bool full = a->overlay == TUI_OV_TIMELINE || a->overlay == TUI_OV_ROOFLINE;
    if (!full) {
        if (c->win[TUI_P_LABS])
            tui_panes_labs(c->win[TUI_P_LABS], a);
        if (c->win[TUI_P_MILESTONES])
            tui_panes_milestones(c->win[TUI_P_MILESTONES], a);
        if (c->win[TUI_P_DEVICE])
            tui_panes_device(c->win[TUI_P_DEVICE], a);
        if (c->win[TUI_P_LESSON])
            tui_lessonview_draw(c->win[TUI_P_LESSON], a, &c->lay);
        if (c->win[TUI_P_RUN])
            tui_runview_draw(c->win[TUI_P_RUN], a, &c->lay);
        if (c->win[TUI_P_LOG])
            tui_panes_log(c->win[TUI_P_LOG], a, c->lay.log_boxed);
        for (int p = 0; p < TUI_P_COUNT; p++)
            if (c->win[p] && p != TUI_P_STATUS)
                wnoutrefresh(c->win[p]);
    }
    if (c->win[TUI_P_STATUS]) {
        tui_panes_status(c->win[TUI_P_STATUS], a);
        wnoutrefresh(c->win[TUI_P_STATUS]);
    }
    overlay_window(c);
    if (c->overlay) {
        switch (a->overlay) {
        case TUI_OV_HELP: tui_overlays_help(c->overlay, a); break;
        case TUI_OV_DETAILS: tui_overlays_details(c->overlay, a); break;
        case TUI_OV_QUIZ: tui_overlays_quiz(c->overlay, a); break;
        case TUI_OV_CONFIRM_QUIT: tui_overlays_confirm(c->overlay, a); break;
        case TUI_OV_CONFIRM_RESET: tui_overlays_confirm_reset(c->overlay, a); break;
        case TUI_OV_TIMELINE: tui_views_timeline(c->overlay, a); break;
        case TUI_OV_ROOFLINE: tui_views_roofline(c->overlay, a); break;
        default: break;
        }
        wnoutrefresh(c->overlay);
    }
    doupdate();
}

/* ---- the learner's files --------------------------------------------------- */

/* Makes the workspace copies of lab i's exercise (first time the lab is
 * opened) and starts watching them for saves. */
static void prepare_workspace(tui_ctx *c, size_t i)
{
    tui_app *a = &c->app;
    const lab *l;
    workspace_files f;
    cl_err e;
    if (!a->labs || i >= a->labs->n || c->prepared[i])
        return;
    l = a->labs->v[i];
    c->prepared[i] = true;
    if (!l->exercise.kernel)
        return;
    err_clear(&e);
    if (!workspace_prepare(c->workspace[0] ? c->workspace : NULL, l, &f, &e)) {
        tui_log_add(&a->log, TUI_LOG_WARN, "your copy of the exercise could not be made: %s", e.msg);
        return;
    }
    if (f.kernel_created || f.launcher_created)
        tui_log_add(&a->log, TUI_LOG_INFO, "your kernel for %s: %s (e edits it; saving runs it)", l->id,
                    f.kernel);
    else
        tui_log_add(&a->log, TUI_LOG_INFO, "your kernel for %s: %s", l->id, f.kernel);
    if (c->watch && !watch_add(c->watch, f.dir, &e))
        tui_log_add(&a->log, TUI_LOG_WARN, "saves in %s will not start runs: %s", f.dir, e.msg);
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
    prepare_workspace(c, i);
    if (!workspace_files_of(c->workspace[0] ? c->workspace : NULL, a->labs->v[i], &f, &e)) {
        tui_log_add(&a->log, TUI_LOG_ERROR, "cannot edit: %s", e.msg);
        return;
    }
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
    if (!workspace_reset(c->workspace[0] ? c->workspace : NULL, a->labs->v[i], true, &f, backup,
                         sizeof backup, &e)) {
        tui_log_add(&a->log, TUI_LOG_ERROR, "reset failed: %s", e.msg);
        return;
    }
    if (backup[0])
        tui_log_add(&a->log, TUI_LOG_INFO, "your kernel is back to the starter; your files are in %s", backup);
    else
        tui_log_add(&a->log, TUI_LOG_INFO, "your kernel is back to the starter");
}

/* Saves noticed by the watch: each one in a lab's workspace runs it. */
static unsigned read_saves(tui_ctx *c)
{
    watch_change ch[8];
    unsigned flags = 0;
    int n;
    cl_err e;
    if (!c->watch)
        return 0;
    err_clear(&e);
    n = watch_poll(c->watch, ch, 8, &e);
    for (int k = 0; k < n; k++) {
        for (size_t i = 0; c->app.labs && i < c->app.labs->n; i++) {
            workspace_files f;
            const char *p = ch[k].path;
            if (!c->prepared[i] || !c->app.labs->v[i]->exercise.kernel ||
                !workspace_files_of(c->workspace[0] ? c->workspace : NULL, c->app.labs->v[i], &f, NULL))
                continue;
            if (strcmp(p, f.kernel) == 0 || (f.launcher[0] && strcmp(p, f.launcher) == 0))
                flags |= tui_app_exercise_saved(&c->app, i, p);
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
    prepare_workspace(c, a->req.lab);
    j->tool = a->req.racecheck ? SANITIZE_RACECHECK : SANITIZE_MEMCHECK;
    snprintf(j->problem, sizeof j->problem, "%s", l->exercise.problem ? l->exercise.problem : l->problem);
    snprintf(j->lab, sizeof j->lab, "%s", l->id);
    for (size_t z = 0; z < l->nsizes && j->nsizes < RUN_MAX_SIZES; z++)
        snprintf(j->sizes[j->nsizes++], sizeof j->sizes[0], "%s", l->sizes[z]);
    if (!tui_app_exercise_paths(a, l, j->kernel, j->launcher, sizeof j->kernel)) {
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

static void handle_request(tui_ctx *c)
{
    tui_app *a = &c->app;
    cl_err e;
    err_clear(&e);
    switch (a->req.kind) {
    case TUI_REQ_RUN:
        if (!c->sup) {
            tui_app_run_failed(a, c->sup_error);
        } else if (supervisor_submit(c->sup, &a->req.run, a->req.time_limit_s, &e)) {
            run_request started = a->req.run;
            tui_app_run_started(a, &started);
        } else {
            tui_app_run_failed(a, e.msg);
        }
        break;
    case TUI_REQ_CANCEL:
        a->req.kind = TUI_REQ_NONE;
        if (c->sup)
            supervisor_cancel(c->sup);
        break;
    case TUI_REQ_EDIT:
        a->req.kind = TUI_REQ_NONE;
        edit_exercise(c, a->req.lab);
        break;
    case TUI_REQ_RESET:
        a->req.kind = TUI_REQ_NONE;
        reset_exercise(c, a->req.lab);
        break;
    case TUI_REQ_NCU:
        start_ncu(c);
        break;
    case TUI_REQ_SANITIZE:
        start_sanitize(c);
        break;
    case TUI_REQ_CANCEL_JOB:
        a->req.kind = TUI_REQ_NONE;
        if (tui_job_active(&c->job)) {
            tui_job_clear(&c->job);
            tui_log_add(&a->log, TUI_LOG_INFO, "%s stopped", a->job_what);
        }
        a->job = TUI_JOB_NONE;
        break;
    case TUI_REQ_NONE:
        break;
    }
}

static unsigned handle_mouse(tui_ctx *c)
{
    MEVENT ev;
    if (getmouse(&ev) != OK)
        return 0;
    if (ev.bstate & BUTTON4_PRESSED)
        return tui_app_mouse(&c->app, &c->lay, ev.y, ev.x, TUI_MOUSE_WHEEL_UP);
#ifdef BUTTON5_PRESSED
    if (ev.bstate & BUTTON5_PRESSED)
        return tui_app_mouse(&c->app, &c->lay, ev.y, ev.x, TUI_MOUSE_WHEEL_DOWN);
#endif
    if (ev.bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON1_RELEASED))
        return ev.bstate & BUTTON1_RELEASED ? 0 : tui_app_mouse(&c->app, &c->lay, ev.y, ev.x, TUI_MOUSE_CLICK);
    return 0;
}

/* Reads every key waiting; returns the flags of what they did. */
static unsigned read_keys(tui_ctx *c)
{
    unsigned flags = 0;
    int ch;
    while ((ch = getch()) != ERR) {
        if (ch == KEY_RESIZE) {
            windows_build(c);
            flags |= TUI_F_REDRAW | TUI_F_REPAINT;
        } else if (ch == KEY_MOUSE) {
            flags |= handle_mouse(c);
        } else {
            flags |= tui_app_key(&c->app, &c->lay, tui_keys_lookup(ch));
        }
        if (flags & TUI_F_REQUEST) {
            bool edit = c->app.req.kind == TUI_REQ_EDIT;
            handle_request(c);
            flags &= ~(unsigned)TUI_F_REQUEST;
            if (edit)
                flags |= TUI_F_REPAINT | TUI_F_REDRAW;
        }
        if (flags & TUI_F_QUIT)
            break;
    }
    return flags;
}

/* ---- setup --------------------------------------------------------------- */

static bool want_colour(const tui_opts *o)
{
    const char *nc = getenv("NO_COLOR");
    return !o->no_color && !(nc && nc[0]);
}

static void install_signals(struct sigaction *old)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaction(sigs[i], &sa, &old[i]);
}

static void restore_signals(const struct sigaction *old)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaction(sigs[i], &old[i], NULL);
}

static void add_diags(tui_app *a, const lab_diags *d)
{
    for (size_t i = 0; i < d->n; i++) {
        const lab_diag *g = &d->v[i];
        if (g->line > 0)
            tui_log_add(&a->log, TUI_LOG_WARN, "%s:%d: %s", g->file, g->line, g->msg);
        else
            tui_log_add(&a->log, TUI_LOG_WARN, "%s: %s", g->file, g->msg);
    }
}

static int loop(tui_ctx *c)
{
    unsigned flags = TUI_F_REDRAW;
    while (!stop_signal) {
        struct pollfd fds[4];
        int nfds = 1, timeout, sfd, wslot = -1, jslot = -1;
        bool animate;
        if (flags & TUI_F_REPAINT)
            clearok(curscr, TRUE);
        if (flags & (TUI_F_REDRAW | TUI_F_REPAINT))
            draw(c);
        flags = 0;

        fds[0].fd = STDIN_FILENO;
        fds[0].events = POLLIN;
        fds[0].revents = 0;
        sfd = c->sup ? supervisor_fd(c->sup) : -1;
        if (sfd >= 0) {
            fds[1].fd = sfd;
            fds[1].events = POLLIN;
            fds[1].revents = 0;
            nfds = 2;
        }
        if (c->watch) {
            wslot = nfds++;
            fds[wslot].fd = watch_fd(c->watch);
            fds[wslot].events = POLLIN;
            fds[wslot].revents = 0;
        }
        if (tui_job_fd(&c->job) >= 0) {
            jslot = nfds++;
            fds[jslot].fd = tui_job_fd(&c->job);
            fds[jslot].events = POLLIN;
            fds[jslot].revents = 0;
        }
        animate = c->app.running || c->app.job != TUI_JOB_NONE;
        timeout = animate ? FRAME_MS : IDLE_MS;
        if (poll(fds, (nfds_t)nfds, timeout) < 0 && errno != EINTR)
            return 1;
        if (stop_signal)
            break;

        if (c->sup && (sfd >= 0 || supervisor_busy(c->sup))) {
            c->flags = 0;
            supervisor_pump(c->sup, 0);
            flags |= c->flags;
            c->flags = 0;
        }
        if (wslot >= 0 && fds[wslot].revents)
            flags |= read_saves(c);
        if (jslot >= 0 && fds[jslot].revents && tui_job_pump(&c->job)) {
            flags |= tui_app_on_job(&c->app, c->job.out ? c->job.out : "", c->job.status);
            tui_job_clear(&c->job);
        }
        if (flags & TUI_F_REQUEST) {
            handle_request(c);
            flags &= ~(unsigned)TUI_F_REQUEST;
        }
        flags |= read_keys(c);
        if (c->app.sel != c->last_sel) {
            c->last_sel = c->app.sel;
            prepare_workspace(c, c->app.sel);
            flags |= TUI_F_REDRAW;
        }
        if (flags & TUI_F_QUIT)
            return 0;
        if (c->app.running || c->app.job != TUI_JOB_NONE || animate) {
            c->app.spin++;
            flags |= TUI_F_REDRAW;
        }
        if (c->sup && !c->app.dev_known && sfd < 0 && supervisor_fd(c->sup) < 0 && !c->app.running)
            flags |= tui_app_on_worker_lost(&c->app, "the worker stopped before it reported the GPU");
    }
    return 128 + (int)stop_signal;
}

/* The timeline t shows before a run has recorded one: the file named by
 * $CUDALAB_TIMELINE_FILE (how the end-to-end test shows a recorded sample
 * on a machine without a GPU), else the one `cudalab profile` or an earlier
 * session left in the data folder, else the sample recorded on a real GPU
 * that ships in assets/timelines/. */
static void timeline_fallback(tui_app *a, const char *home)
{
    const char *env = getenv("CUDALAB_TIMELINE_FILE");
    char path[CL_PATH_MAX];
    if (env && env[0]) {
        snprintf(a->tl_fallback, sizeof a->tl_fallback, "%s", env);
        return;
    }
    if (experiments_timeline_file(path, sizeof path, NULL) && access(path, R_OK) == 0) {
        snprintf(a->tl_fallback, sizeof a->tl_fallback, "%s", path);
        return;
    }
    if (home && paths_join(path, sizeof path, home, TUI_SAMPLE_TIMELINE) && access(path, R_OK) == 0)
        snprintf(a->tl_fallback, sizeof a->tl_fallback, "%s", path);
}

int tui_run(const tui_opts *o)
{
    static tui_ctx ctx;
    tui_ctx *c = &ctx;
    lab_set labs = {NULL, 0};
    lab_diags diags = {NULL, 0, 0};
    struct sigaction old[4];
    supervisor_callbacks cb = {cb_hello, cb_progress, cb_result, cb_log, cb_fault, cb_done};
    supervisor_opts so;
    SCREEN *scr = NULL;
    bool ascii;
    cl_err e;
    int rc = 1;
    const char *cs;

    memset(c, 0, sizeof *c);
    tui_job_init(&c->job);
    c->opts = o;
    err_clear(&e);
    stop_signal = 0;
    setlocale(LC_ALL, "");
    cs = nl_langinfo(CODESET);
    ascii = o->ascii || !cs || strcmp(cs, "UTF-8") != 0;
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
        fprintf(stderr, "cudalab: the interactive lab needs a terminal; "
                        "for scripts use 'cudalab list' or 'cudalab run LAB'\n");
        return 2;
    }
    if (!lab_set_load(&labs, o->lab_dirs, o->nlab_dirs, o->home, &diags, &e)) {
        fprintf(stderr, "cudalab: %s\n", e.msg);
        goto cleanup;
    }
    if (!tui_app_init(&c->app, &labs, ascii, &e)) {
        fprintf(stderr, "cudalab: %s\n", e.msg);
        goto cleanup;
    }
    c->app.time_limit_s = o->time_limit_s;
    c->app.ms_eval = tui_milestones_eval;
    timeline_fallback(&c->app, o->home);
    if (paths_workspace(c->workspace, sizeof c->workspace, NULL))
        c->app.workspace = c->workspace;
    c->prepared = calloc(labs.n + 1, sizeof *c->prepared);
    if (!c->prepared) {
        fprintf(stderr, "cudalab: out of memory\n");
        goto cleanup;
    }
    c->watch = watch_new(0, &e);
    if (!c->watch)
        tui_log_add(&c->app.log, TUI_LOG_WARN, "saving your kernel will not start a run: %s", e.msg);
    prepare_workspace(c, 0);
    add_diags(&c->app, &diags);
    for (size_t i = 0; i < labs.n; i++)
        tui_app_eval(&c->app, i);

    memset(&so, 0, sizeof so);
    so.cb = &cb;
    so.ud = c;
    so.time_limit_s = o->time_limit_s;
    c->sup = supervisor_new(&so, &e);
    if (!c->sup) {
        snprintf(c->sup_error, sizeof c->sup_error, "cannot start the worker: %s", e.msg);
        tui_log_add(&c->app.log, TUI_LOG_ERROR, "%s", c->sup_error);
    }

    install_signals(old);
    scr = newterm(NULL, stdout, stdin);
    if (!scr) {
        restore_signals(old);
        fprintf(stderr, "cudalab: cannot use this terminal (TERM=%s)\n",
                getenv("TERM") ? getenv("TERM") : "");
        goto cleanup;
    }
    set_term(scr);
    cbreak();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    nodelay(stdscr, TRUE);
    set_escdelay(25);
    curs_set(0);
    mousemask(BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON4_PRESSED
#ifdef BUTTON5_PRESSED
                  | BUTTON5_PRESSED
#endif
              , NULL);
    mouseinterval(0);
    tui_theme_init(want_colour(o));
    windows_build(c);
    draw(c);

    if (c->sup) {
        err_clear(&e);
        if (!supervisor_hello(c->sup, 0, NULL, &e) && supervisor_fd(c->sup) < 0)
            tui_app_on_worker_lost(&c->app, e.msg);
    }

    rc = loop(c);

    windows_free(c);
    endwin();
    delscreen(scr);
    restore_signals(old);

cleanup:
    tui_job_clear(&c->job);
    if (c->sup)
        supervisor_free(c->sup);
    c->sup = NULL;
    if (c->watch)
        watch_free(c->watch);
    c->watch = NULL;
    free(c->prepared);
    c->prepared = NULL;
    tui_app_free(&c->app);
    lab_set_free(&labs);
    lab_diags_free(&diags);
    return rc;
}
