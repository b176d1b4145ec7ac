#include "tui/tui.h"

#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "catalog/experiments_list.h"
#include "store/store.h"
#include "tui/tui_internal.h"
#include "tui/tui_lessonview.h"
#include "tui/tui_milestones.h"
#include "tui/tui_overlays.h"
#include "tui/tui_panes.h"
#include "tui/tui_progress.h"
#include "tui/tui_runview.h"
#include "tui/tui_term.h"
#include "tui/tui_theme.h"
#include "tui/tui_views.h"

#define FRAME_MS 100          /* while something animates */
#define IDLE_MS 2000          /* otherwise */

static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig)
{
    stop_signal = sig;
}

/* ---- worker callbacks ---------------------------------------------------- */

/* Each worker event goes to the app; the flags it returns wait for the loop. */
#define FORWARD(event, type)                                                   \
    static void cb_##event(void *ud, type arg)                                 \
    {                                                                          \
        tui_ctx *c = ud;                                                       \
        c->flags |= tui_app_on_##event(&c->app, arg);                          \
    }
FORWARD(hello, const device_info *)
FORWARD(progress, const run_progress *)
FORWARD(result, const run_result *)
FORWARD(fault, const run_fault *)
FORWARD(done, int)

static void cb_log(void *ud, int level, const char *msg)
{
    tui_ctx *c = ud;
    c->flags |= tui_app_on_log(&c->app, level, msg);
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
    case TUI_OV_TIMELINE: case TUI_OV_ROOFLINE: case TUI_OV_SWEEP: case TUI_OV_MESSAGES:
        r = c->lay.view;
        break;
    default: return;
    }
    if (!tui_rect_empty(r))
        c->overlay = newwin(r.h, r.w, r.y, r.x);
}

/* An overlay opened, closed or changed: what it covered is drawn again
 * whole, the gaps between panes (stdscr) and every pane, so none of its
 * characters stay behind on a line a pane did not change. */
static void uncover(tui_ctx *c)
{
    werase(stdscr);
    wnoutrefresh(stdscr);
    for (int p = 0; p < TUI_P_COUNT; p++)
        if (c->win[p])
            touchwin(c->win[p]);
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
    bool full = a->overlay == TUI_OV_TIMELINE || a->overlay == TUI_OV_ROOFLINE ||
                a->overlay == TUI_OV_SWEEP || a->overlay == TUI_OV_MESSAGES;
    if ((int)a->overlay != c->drawn_overlay)
        uncover(c);
    c->drawn_overlay = (int)a->overlay;
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
        case TUI_OV_SWEEP: tui_views_sweep(c->overlay, a); break;
        case TUI_OV_MESSAGES: tui_views_messages(c->overlay, a); break;
        default: break;
        }
        wnoutrefresh(c->overlay);
    }
    doupdate();
}

/* ---- input --------------------------------------------------------------- */

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
            tui_app_relayout(&c->app, &c->lay);
            flags |= TUI_F_REDRAW | TUI_F_REPAINT;
        } else if (ch == KEY_MOUSE) {
            flags |= handle_mouse(c);
        } else if (ch >= '1' && ch <= '9' && c->app.overlay == TUI_OV_QUIZ) {
            flags |= tui_app_digit(&c->app, ch - '0');
        } else {
            flags |= tui_app_key(&c->app, &c->lay, tui_keys_lookup(ch));
        }
        if (flags & TUI_F_REQUEST) {
            bool edit = c->app.req.kind == TUI_REQ_EDIT;
            tui_requests_handle(c);
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

/* Sends the stop signals to on_stop_signal, keeping the old handlers in
 * old; with install false, puts the old handlers back. */
static void stop_signals(bool install, struct sigaction *old)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaction(sigs[i], install ? &sa : &old[i], install ? &old[i] : NULL);
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

/* Adds fd to the poll set, unless it is closed (negative); returns its
 * slot, or -1. */
static int poll_add(struct pollfd *fds, int *n, int fd)
{
    if (fd < 0)
        return -1;
    fds[*n] = (struct pollfd){.fd = fd, .events = POLLIN};
    return (*n)++;
}

static int loop(tui_ctx *c)
{
    unsigned flags = TUI_F_REDRAW;
    while (!stop_signal) {
        struct pollfd fds[4];
        int nfds = 0, timeout, sfd, wslot, jslot;
        bool animate;
        if (flags & TUI_F_REPAINT)
            clearok(curscr, TRUE);
        if (flags & (TUI_F_REDRAW | TUI_F_REPAINT))
            draw(c);
        flags = 0;

        poll_add(fds, &nfds, STDIN_FILENO);
        sfd = c->sup ? supervisor_fd(c->sup) : -1;
        poll_add(fds, &nfds, sfd);
        wslot = c->watch ? poll_add(fds, &nfds, watch_fd(c->watch)) : -1;
        jslot = poll_add(fds, &nfds, tui_job_fd(&c->job));
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
            flags |= tui_requests_saves(c);
        if (jslot >= 0 && fds[jslot].revents && tui_job_pump(&c->job)) {
            flags |= tui_app_on_job(&c->app, c->job.out ? c->job.out : "", c->job.status);
            tui_job_clear(&c->job);
        }
        if (flags & TUI_F_REQUEST) {
            tui_requests_handle(c);
            flags &= ~(unsigned)TUI_F_REQUEST;
        }
        flags |= read_keys(c);
        if (c->app.sel != c->last_sel) {
            c->last_sel = c->app.sel;
            tui_requests_prepare(c, c->app.sel);
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

/* Opens the progress store and reads back where the learner was. */
static void open_progress(tui_ctx *c)
{
    store *s = NULL;
    char notice[1024];
    cl_err e = {{0}};
    if (!store_open(NULL, &s, notice, sizeof notice, &e)) {
        tui_progress_attach(&c->app, NULL, e.msg);
        return;
    }
    if (notice[0])
        tui_log_add(&c->app.log, TUI_LOG_WARN, "%s", notice);
    tui_progress_attach(&c->app, s, NULL);
    tui_progress_restore(&c->app);
}

/* The terminal's modes for the lab: keys one at a time and unechoed, the
 * keypad and mouse decoded, reads that never block, no cursor, colours. */
static void screen_modes(bool colour)
{
    cbreak();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    /* Home and End as terminals send them whatever TERM's entry says. */
    static const char *const home_keys[] = {"\033[H", "\033OH", "\033[1~", "\033[7~"};
    static const char *const end_keys[] = {"\033[F", "\033OF", "\033[4~", "\033[8~"};
    for (size_t k = 0; k < 4; k++) {
        if (key_defined(home_keys[k]) == 0)
            define_key(home_keys[k], KEY_HOME);
        if (key_defined(end_keys[k]) == 0)
            define_key(end_keys[k], KEY_END);
    }
    nodelay(stdscr, TRUE);
    set_escdelay(25);
    curs_set(0);
    mousemask(BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON4_PRESSED
#ifdef BUTTON5_PRESSED
                  | BUTTON5_PRESSED
#endif
              , NULL);
    mouseinterval(0);
    tui_theme_init(colour);
}

/* What tui_run leaves behind, whatever got made. */
static void free_run(tui_ctx *c, lab_set *labs, lab_diags *diags)
{
    tui_job_clear(&c->job);
    if (c->sup)
        supervisor_free(c->sup);
    c->sup = NULL;
    if (c->watch)
        watch_free(c->watch);
    c->watch = NULL;
    free(c->prepared);
    c->prepared = NULL;
    store_close(c->app.store);
    tui_app_free(&c->app);
    lab_set_free(labs);
    lab_diags_free(diags);
}

/* Everything the lab needs before the screen: the labs, the app's state,
 * the workspace watch, the progress store and the worker.  false (with a
 * message on stderr) when the lab cannot open at all. */
static bool start_app(tui_ctx *c, const tui_opts *o, lab_set *labs, lab_diags *diags)
{
    static const supervisor_callbacks cb = {
        .on_hello = cb_hello,
        .on_progress = cb_progress,
        .on_result = cb_result,
        .on_log = cb_log,
        .on_fault = cb_fault,
        .on_done = cb_done,
    };
    cl_err e = {{0}};
    const char *cs = nl_langinfo(CODESET);
    bool ascii = o->ascii || !cs || strcmp(cs, "UTF-8") != 0;
    if (!lab_set_load(labs, o->lab_dirs, o->nlab_dirs, o->home, diags, &e) ||
        !tui_app_init(&c->app, labs, ascii, &e)) {
        fprintf(stderr, "cudalab: %s\n", e.msg);
        return false;
    }
    c->app.time_limit_s = o->time_limit_s;
    c->app.ms_eval = tui_milestones_eval;
    timeline_fallback(&c->app, o->home);
    if (paths_workspace(c->workspace, sizeof c->workspace, NULL))
        c->app.workspace = c->workspace;
    c->prepared = calloc(labs->n + 1, sizeof *c->prepared);
    if (!c->prepared) {
        fprintf(stderr, "cudalab: out of memory\n");
        return false;
    }
    c->watch = watch_new(0, &e);
    if (!c->watch)
        tui_log_add(&c->app.log, TUI_LOG_WARN, "saving your kernel will not start a run: %s", e.msg);
    tui_requests_prepare(c, 0);
    add_diags(&c->app, diags);
    for (size_t i = 0; i < labs->n; i++)
        tui_app_eval(&c->app, i);
    open_progress(c);

    supervisor_opts so;
    memset(&so, 0, sizeof so);
    so.cb = &cb;
    so.ud = c;
    so.time_limit_s = o->time_limit_s;
    err_clear(&e);
    c->sup = supervisor_new(&so, &e);
    if (!c->sup) {
        snprintf(c->sup_error, sizeof c->sup_error, "cannot start the worker: %s", e.msg);
        tui_log_add(&c->app.log, TUI_LOG_ERROR, "%s", c->sup_error);
    }
    return true;
}

int tui_run(const tui_opts *opts)
{
    static tui_ctx ctx;
    tui_ctx *c = &ctx;
    lab_set labs = {NULL, 0};
    lab_diags diags = {NULL, 0, 0};
    struct sigaction old[4];
    SCREEN *scr = NULL;
    int rc = 1;

    memset(c, 0, sizeof *c);
    tui_job_init(&c->job);
    c->opts = opts;
    stop_signal = 0;
    setlocale(LC_ALL, "");
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
        fprintf(stderr, "cudalab: the interactive lab needs a terminal; "
                        "for scripts use 'cudalab list' or 'cudalab run LAB'\n");
        return 2;
    }
    char why[512];
    if (!tui_term_usable(why, sizeof why)) {
        fprintf(stderr, "cudalab: %s\n", why);
        return 3;   /* cannot run here */
    }
    if (!start_app(c, opts, &labs, &diags))
        goto cleanup;

    stop_signals(true, old);
    scr = newterm(NULL, stdout, stdin);
    if (!scr) {
        stop_signals(false, old);
        fprintf(stderr, "cudalab: cannot use this terminal (TERM=%s): set TERM to one this "
                        "machine knows, e.g. TERM=xterm-256color, or use 'cudalab run LAB'\n",
                getenv("TERM") ? getenv("TERM") : "");
        rc = 3;
        goto cleanup;
    }
    set_term(scr);
    screen_modes(want_colour(opts));
    windows_build(c);
    draw(c);

    if (c->sup) {
        cl_err e = {{0}};
        if (!supervisor_hello(c->sup, 0, NULL, &e) && supervisor_fd(c->sup) < 0)
            tui_app_on_worker_lost(&c->app, e.msg);
    }

    rc = loop(c);

    windows_free(c);
    endwin();
    delscreen(scr);
    stop_signals(false, old);

cleanup:
    free_run(c, &labs, &diags);
    return rc;
}
