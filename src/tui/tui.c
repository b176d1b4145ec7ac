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
#include <unistd.h>

#include "core/paths.h"
#include "lab/labmodel.h"
#include "tui/tui_app.h"
#include "tui/tui_draw.h"
#include "tui/tui_keys.h"
#include "tui/tui_layout.h"
#include "tui/tui_lessonview.h"
#include "tui/tui_milestones.h"
#include "tui/tui_overlays.h"
#include "tui/tui_panes.h"
#include "tui/tui_runview.h"
#include "tui/tui_theme.h"
#include "worker/supervisor.h"

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
    case TUI_OV_HELP: r = c->lay.help; break;
    case TUI_OV_QUIZ: r = c->lay.quiz; break;
    case TUI_OV_CONFIRM_QUIT: r = c->lay.confirm; break;
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
    if (c->win[TUI_P_STATUS])
        tui_panes_status(c->win[TUI_P_STATUS], a);
    for (int p = 0; p < TUI_P_COUNT; p++)
        if (c->win[p])
            wnoutrefresh(c->win[p]);
    overlay_window(c);
    if (c->overlay) {
        switch (a->overlay) {
        case TUI_OV_HELP: tui_overlays_help(c->overlay, a); break;
        case TUI_OV_QUIZ: tui_overlays_quiz(c->overlay, a); break;
        case TUI_OV_CONFIRM_QUIT: tui_overlays_confirm(c->overlay, a); break;
        default: break;
        }
        wnoutrefresh(c->overlay);
    }
    doupdate();
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
            handle_request(c);
            flags &= ~(unsigned)TUI_F_REQUEST;
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
        struct pollfd fds[2];
        int nfds = 1, timeout, sfd;
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
        animate = c->app.running;
        timeout = animate ? FRAME_MS : IDLE_MS;
        if (poll(fds, (nfds_t)nfds, timeout) < 0 && errno != EINTR)
            return 1;
        if (stop_signal)
            break;

        if (c->sup && (nfds == 2 || supervisor_busy(c->sup))) {
            c->flags = 0;
            supervisor_pump(c->sup, 0);
            flags |= c->flags;
            c->flags = 0;
        }
        flags |= read_keys(c);
        if (flags & TUI_F_QUIT)
            return 0;
        if (c->app.running || animate) {
            c->app.spin++;
            flags |= TUI_F_REDRAW;
        }
        if (c->sup && !c->app.dev_known && sfd < 0 && supervisor_fd(c->sup) < 0 && !c->app.running) {
            device_info none;
            memset(&none, 0, sizeof none);
            snprintf(none.reason, sizeof none.reason, "the worker stopped before reporting the device");
            flags |= tui_app_on_hello(&c->app, &none);
        }
    }
    return 128 + (int)stop_signal;
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
    if (paths_workspace(c->workspace, sizeof c->workspace, NULL))
        c->app.workspace = c->workspace;
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
        if (!supervisor_hello(c->sup, 0, NULL, &e) && supervisor_fd(c->sup) < 0) {
            device_info none;
            memset(&none, 0, sizeof none);
            snprintf(none.reason, sizeof none.reason, "%s", e.msg);
            tui_app_on_hello(&c->app, &none);
        }
    }

    rc = loop(c);

    windows_free(c);
    endwin();
    delscreen(scr);
    restore_signals(old);

cleanup:
    if (c->sup)
        supervisor_free(c->sup);
    c->sup = NULL;
    tui_app_free(&c->app);
    lab_set_free(&labs);
    lab_diags_free(&diags);
    return rc;
}
