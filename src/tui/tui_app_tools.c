#include "tui/tui_app.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "catalog/experiments_list.h"
#include "core/paths.h"
#include "prof/trace.h"
#include "tui/tui_app_internal.h"
#include "tui/tui_ncu.h"
#include "tui/tui_prof.h"

/* ---- the timeline ------------------------------------------------------------------ */

/* Reads the timeline to show when none is read yet or a newer one was
 * announced; false (with a message) when there is none. */
static bool timeline_ready(tui_app *a)
{
    const char *path = a->tl_path[0] ? a->tl_path : a->tl_fallback;
    cl_err e;
    struct stat st;
    if (a->tl.loaded && !a->tl_stale && (!path[0] || strcmp(path, a->tl.path) == 0))
        return true;
    if (!path[0] || stat(path, &st) != 0) {
        if (a->tl.loaded)
            return true;
        tui_log_add(&a->log, TUI_LOG_WARN, "no timeline yet: the profiling lab's experiments record one "
                                           "(select that lab and press R)");
        return false;
    }
    err_clear(&e);
    if (!tui_timeline_load(&a->tl, path, &e)) {
        tui_log_add(&a->log, TUI_LOG_ERROR, "cannot read the timeline %s: %s", path, e.msg);
        a->tl_stale = false;
        return a->tl.loaded;
    }
    a->tl_stale = false;
    if (strstr(path, TUI_SAMPLE_DIR) && !a->tl.t.note[0])
        snprintf(a->tl.t.note, sizeof a->tl.t.note,
                 "a sample recorded on %s that ships with cudalab, not a recording of this machine",
                 a->tl.t.title[0] ? a->tl.t.title : "another GPU");
    if (a->tl.t.note[0])
        tui_log_add(&a->log, TUI_LOG_INFO, "this timeline is %s; the profiling lab's R records your "
                                           "GPU's", a->tl.t.note);
    return true;
}

/* The exported file's name: "timeline-<stamp>", or for a sample
 * "timeline-sample-<device>-<stamp>", so it cannot pass for the learner's
 * own recording. */
static void export_name(const tui_app *a, const char *stamp, char *out, size_t n)
{
    char dev[64];
    size_t k = 0;
    for (const char *p = a->tl.t.title; *p && k + 1 < sizeof dev; p++) {
        char c = *p;
        bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        if (keep)
            dev[k++] = c;
        else if (k > 0 && dev[k - 1] != '-')
            dev[k++] = '-';
    }
    while (k > 0 && dev[k - 1] == '-')
        k--;
    dev[k] = '\0';
    if (!a->tl.t.note[0])
        snprintf(out, n, "timeline-%s", stamp);
    else
        snprintf(out, n, "timeline-sample-%s%s%s", dev, k ? "-" : "", stamp);
}

unsigned tui_app_timeline_open(tui_app *app)
{
    if (!timeline_ready(app))
        return TUI_F_REDRAW;
    app->overlay = TUI_OV_TIMELINE;
    app->tl_serial = app->log.serial;
    return TUI_F_REDRAW;
}

/* Where an exported trace goes: the profiling lab's workspace folder, or
 * <workspace>/timelines when no lab profiles. */
static bool export_dir(const tui_app *a, char *dir, size_t n, cl_err *e)
{
    char ws[CL_PATH_MAX];
    const char *id = "timelines";
    for (size_t i = 0; a->labs && i < a->labs->n; i++)
        if (a->labs->v[i]->problem && strcmp(a->labs->v[i]->problem, EXPERIMENTS_PROBLEM) == 0)
            id = a->labs->v[i]->id;
    if (a->workspace)
        strfmt_copy(ws, sizeof ws, a->workspace);
    else if (!paths_workspace(ws, sizeof ws, e))
        return false;
    if (!paths_join(dir, n, ws, id))
        return err_set(e, "the workspace path is too long");
    return true;
}

unsigned tui_app_timeline_export(tui_app *app)
{
    char dir[CL_PATH_MAX], path[CL_PATH_MAX + 160], stamp[32], name[128];
    time_t now = time(NULL);
    struct tm tmv;
    struct stat st;
    cl_err e;
    if (!timeline_ready(app))
        return TUI_F_REDRAW;
    err_clear(&e);
    if (!export_dir(app, dir, sizeof dir, &e) || !paths_mkdir_p(dir, &e)) {
        tui_log_add(&app->log, TUI_LOG_ERROR, "cannot write the trace: %s", e.msg);
        return TUI_F_REDRAW;
    }
    localtime_r(&now, &tmv);
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tmv);
    export_name(app, stamp, name, sizeof name);
    snprintf(path, sizeof path, "%s/%s.json", dir, name);
    for (int k = 2; stat(path, &st) == 0 && k < 100; k++)
        snprintf(path, sizeof path, "%s/%s-%d.json", dir, name, k);
    if (!trace_write(&app->tl.t, path, &e)) {
        tui_log_add(&app->log, TUI_LOG_ERROR, "cannot write the trace: %s", e.msg);
        return TUI_F_REDRAW;
    }
    tui_log_add(&app->log, TUI_LOG_INFO, "trace%s written to %s: open it in ui.perfetto.dev or "
                "chrome://tracing", app->tl.t.note[0] ? " of the shipped sample" : "", path);
    return TUI_F_REDRAW;
}

unsigned tui_app_timeline_key(tui_app *app, const tui_layout *lay, tui_action act)
{
    int w = tui_timeline_plot_width(lay->view.w);
    switch (act) {
    case TA_ZOOM_IN: tui_timeline_zoom(&app->tl, 2.0, w); break;
    case TA_ZOOM_OUT: tui_timeline_zoom(&app->tl, 0.5, w); break;
    case TA_LEFT: tui_timeline_pan(&app->tl, -(w / 8 > 1 ? w / 8 : 1), w); break;
    case TA_RIGHT: tui_timeline_pan(&app->tl, w / 8 > 1 ? w / 8 : 1, w); break;
    case TA_PAGE_UP: tui_timeline_pan(&app->tl, -w, w); break;
    case TA_PAGE_DOWN: tui_timeline_pan(&app->tl, w, w); break;
    case TA_UP: tui_timeline_lane(&app->tl, -1, w); break;
    case TA_DOWN: tui_timeline_lane(&app->tl, 1, w); break;
    case TA_NEXT_PANE: tui_timeline_step(&app->tl, 1, w); break;
    case TA_PREV_PANE: tui_timeline_step(&app->tl, -1, w); break;
    case TA_ENTER: tui_timeline_focus(&app->tl, w); break;
    case TA_HOME: case TA_END: tui_timeline_reset(&app->tl); break;
    case TA_EXPORT: return tui_app_timeline_export(app);
    case TA_ROOFLINE: return tui_app_plot_open(app, TUI_OV_ROOFLINE);
    case TA_SWEEP: return tui_app_plot_open(app, TUI_OV_SWEEP);
    case TA_HELP:
        app->help_back = TUI_OV_TIMELINE;
        app->overlay = TUI_OV_HELP;
        app->help_scroll = 0;
        break;
    case TA_CANCEL: case TA_QUIT: case TA_TIMELINE:
        app->overlay = TUI_OV_NONE;
        break;
    default:
        return 0;
    }
    return TUI_F_REDRAW;
}

/* ---- the messages view ----------------------------------------------------- */

int tui_app_messages_width(const tui_layout *lay)
{
    return lay->view.w - 4 > 1 ? lay->view.w - 4 : 1;
}

int tui_app_messages_visible(const tui_layout *lay)
{
    return lay->view.h - 2 > 1 ? lay->view.h - 2 : 1;
}

/* The last line the view may start at. */
static int messages_last(const tui_app *a, const tui_layout *lay)
{
    int total = (int)tui_log_lines(&a->log, tui_app_messages_width(lay));
    int last = total - tui_app_messages_visible(lay);
    return last > 0 ? last : 0;
}

unsigned tui_app_messages_open(tui_app *app, const tui_layout *lay)
{
    app->overlay = TUI_OV_MESSAGES;
    app->msg_scroll = messages_last(app, lay);
    return TUI_F_REDRAW;
}

unsigned tui_app_messages_key(tui_app *app, const tui_layout *lay, tui_action act)
{
    int page = tui_app_messages_visible(lay) - 1, last = messages_last(app, lay);
    switch (act) {
    case TA_UP: app->msg_scroll--; break;
    case TA_DOWN: app->msg_scroll++; break;
    case TA_PAGE_UP: app->msg_scroll -= page > 0 ? page : 1; break;
    case TA_PAGE_DOWN: app->msg_scroll += page > 0 ? page : 1; break;
    case TA_HOME: app->msg_scroll = 0; break;
    case TA_END: app->msg_scroll = last; break;
    case TA_CANCEL: case TA_QUIT: case TA_MESSAGES: case TA_ENTER:
        app->overlay = TUI_OV_NONE;
        return TUI_F_REDRAW;
    case TA_NONE: break;          /* the size changed: stay in range */
    default:
        return 0;
    }
    if (app->msg_scroll > last)
        app->msg_scroll = last;
    if (app->msg_scroll < 0)
        app->msg_scroll = 0;
    return TUI_F_REDRAW;
}

/* ---- the roofline and GB/s by size ------------------------------------------------ */

unsigned tui_app_plot_open(tui_app *app, tui_overlay view)
{
    app->overlay = view;
    app->plot_scroll = 0;
    return TUI_F_REDRAW;
}

unsigned tui_app_plot_key(tui_app *app, tui_action act)
{
    tui_overlay self = app->overlay;
    switch (act) {
    case TA_UP: app->plot_scroll--; break;
    case TA_DOWN: app->plot_scroll++; break;
    case TA_PAGE_UP: app->plot_scroll -= 5; break;
    case TA_PAGE_DOWN: app->plot_scroll += 5; break;
    case TA_HOME: app->plot_scroll = 0; break;
    case TA_TIMELINE: return tui_app_timeline_open(app);
    case TA_EXPORT: return tui_app_timeline_export(app);
    case TA_ROOFLINE: case TA_SWEEP: {
        tui_overlay other = act == TA_ROOFLINE ? TUI_OV_ROOFLINE : TUI_OV_SWEEP;
        if (other != self)
            return tui_app_plot_open(app, other);
        app->overlay = TUI_OV_NONE;
        break;
    }
    case TA_HELP:
        app->help_back = self;
        app->overlay = TUI_OV_HELP;
        app->help_scroll = 0;
        break;
    case TA_CANCEL: case TA_QUIT: case TA_ENTER:
        app->overlay = TUI_OV_NONE;
        break;
    default:
        return 0;
    }
    if (app->plot_scroll < 0)
        app->plot_scroll = 0;
    return TUI_F_REDRAW;
}

/* ---- Nsight Compute and compute-sanitizer ------------------------------------------ */

static bool job_busy(tui_app *a)
{
    if (a->running) {
        tui_log_add(&a->log, TUI_LOG_WARN, "a run is in progress: wait for it, or cancel it with Esc or c");
        return true;
    }
    if (a->job != TUI_JOB_NONE) {
        tui_log_add(&a->log, TUI_LOG_WARN, "%s is still running (Esc or c stops it)", a->job_what);
        return true;
    }
    return false;
}

static void req_arg(tui_request *r, const char *s)
{
    if (r->nargs < TUI_REQ_ARGS)
        strfmt_copy(r->args[r->nargs++], sizeof r->args[0], s);
}

/* The regular expression naming the learner's kernels, read from the
 * kernel file; false when the file has none. */
static bool exercise_regex(const tui_app *a, const lab *l, char *out, size_t n)
{
    char kernel[RUN_PATH_MAX], launcher[RUN_PATH_MAX];
    FILE *f;
    char *src;
    long len;
    bool ok = false;
    if (!tui_app_exercise_paths(a, l, tui_app_exercise(a), kernel, launcher, sizeof kernel) ||
        !(f = fopen(kernel, "r")))
        return false;
    if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) > 0 && len < (1L << 22) && fseek(f, 0, SEEK_SET) == 0 &&
        (src = malloc((size_t)len + 1)) != NULL) {
        size_t got = fread(src, 1, (size_t)len, f);
        src[got] = '\0';
        ok = tui_ncu_kernel_regex(src, out, n) > 0;
        free(src);
    }
    fclose(f);
    return ok;
}

/* The kernels an Nsight Compute job on a row chooses from: the picked
 * exercise's when the row is one of its rows, else the lab's. */
typedef struct ncu_scope {
    bool listed;               /* the row is a row of the picked exercise */
    const lab_variant *vs;
    size_t nv;
    char exarg[RUN_ID_MAX];    /* "--exercise", or "--exercise=ID" when listed */
} ncu_scope;

/* The profiling lab's experiment row: `cudalab profile EXPERIMENT`, looking
 * at its kernel; false (logged) when the row has none. */
static bool ncu_experiment(tui_app *a, const lab *l, const tui_row *row)
{
    tui_request *r = &a->req;
    const char *x = tui_prof_experiment(row->variant), *kernel;
    if (!x) {
        tui_log_add(&a->log, TUI_LOG_WARN, "Nsight Compute here looks inside the experiments' kernels; "
                                           "for your pipeline, the timeline (t) and `cudalab report %s` "
                                           "show where its time goes", l->id);
        return false;
    }
    kernel = tui_prof_kernel(row->variant);
    if (!kernel) {
        tui_log_add(&a->log, TUI_LOG_WARN, "%s times copies, not a kernel: the timeline (t) shows them",
                    row->label);
        return false;
    }
    strfmt_copy(r->kernel, sizeof r->kernel, kernel);
    req_arg(r, "profile");
    req_arg(r, x);
    return true;
}

/* A shipped kernel's row: `cudalab run` of that variant alone; false
 * (logged) when it names no kernel. */
static bool ncu_shipped(tui_app *a, const lab *l, const tui_row *row, const ncu_scope *sc)
{
    tui_request *r = &a->req;
    const char *kernel = NULL;
    for (size_t v = 0; v < sc->nv; v++)
        if (strcmp(sc->vs[v].id, row->variant) == 0)
            kernel = sc->vs[v].kernel;
    if (!kernel) {
        tui_log_add(&a->log, TUI_LOG_WARN, "%s names no shipped kernel", row->label);
        return false;
    }
    strfmt_copy(r->kernel, sizeof r->kernel, kernel);
    req_arg(r, "run");
    req_arg(r, l->id);
    if (sc->listed)
        req_arg(r, sc->exarg);
    req_arg(r, "--variant");
    req_arg(r, row->variant);
    req_arg(r, "--size");
    req_arg(r, row->size);
    req_arg(r, "--no-cpu");
    return true;
}

/* The learner's kernel's row: `cudalab run --exercise` with one variant,
 * looking at the kernels its file defines; false (logged) when it defines
 * none. */
static bool ncu_exercise(tui_app *a, const lab *l, const tui_row *row, const ncu_scope *sc)
{
    tui_request *r = &a->req;
    if (!exercise_regex(a, l, r->kernel, sizeof r->kernel)) {
        tui_log_add(&a->log, TUI_LOG_WARN, "no __global__ function found in your kernel file (e edits it)");
        return false;
    }
    req_arg(r, "run");
    req_arg(r, l->id);
    req_arg(r, sc->exarg);
    if (sc->nv > 0) {
        req_arg(r, "--variant");
        req_arg(r, sc->vs[0].id);
    }
    req_arg(r, "--size");
    req_arg(r, row->size);
    req_arg(r, "--no-cpu");
    return true;
}

unsigned tui_app_ncu_key(tui_app *app)
{
    const lab *l = tui_app_lab(app);
    const tui_row *row = tui_app_cursor_row(app);
    const lab_exercise *ex = tui_app_exercise(app);
    tui_request *r = &app->req;
    ncu_scope sc;
    bool ok;
    if (!l)
        return 0;
    if (!row) {
        tui_log_add(&app->log, TUI_LOG_WARN,
                    "select a row of the run table first (Tab moves there)");
        return TUI_F_REDRAW;
    }
    if (job_busy(app))
        return TUI_F_REDRAW;
    memset(r, 0, sizeof *r);
    sc.listed = row->exercise[0] && ex && ex->id[0];
    sc.vs = sc.listed ? ex->variants : l->variants;
    sc.nv = sc.listed ? ex->nvariants : l->nvariants;
    snprintf(sc.exarg, sizeof sc.exarg, "--exercise%s%s", sc.listed ? "=" : "",
             sc.listed ? ex->id : "");
    if (tui_prof_lab(l) && !row->exercise[0]) {
        ok = ncu_experiment(app, l, row);
    } else if (row->kind == RK_KERNEL) {
        ok = ncu_shipped(app, l, row, &sc);
    } else if (row->kind == RK_EXERCISE) {
        ok = ncu_exercise(app, l, row, &sc);
    } else {
        tui_log_add(&app->log, TUI_LOG_WARN,
                    "%s runs no kernel of cudalab's: select a shipped kernel or "
                    "your kernel",
                    row->label);
        ok = false;
    }
    if (!ok)
        return TUI_F_REDRAW;
    req_arg(r, "--budget");
    req_arg(r, "0.05");
    r->kind = TUI_REQ_NCU;
    r->lab = app->sel;
    strfmt_copy(r->variant, sizeof r->variant, row->variant);
    strfmt_copy(r->size, sizeof r->size, row->size);
    return TUI_F_REQUEST | TUI_F_REDRAW;
}

unsigned tui_app_sanitize_key(tui_app *app, bool racecheck)
{
    const lab *l = tui_app_lab(app);
    if (!l)
        return 0;
    if (l->nexercises == 0) {
        tui_log_add(&app->log, TUI_LOG_WARN, "lab '%s' has no exercise to check", l->id);
        return TUI_F_REDRAW;
    }
    if (job_busy(app))
        return TUI_F_REDRAW;
    memset(&app->req, 0, sizeof app->req);
    app->req.kind = TUI_REQ_SANITIZE;
    app->req.lab = app->sel;
    app->req.ex = app->ls[app->sel].ex_idx;
    app->req.racecheck = racecheck;
    strfmt_copy(app->req.args[0], sizeof app->req.args[0], racecheck ? "racecheck" : "memcheck");
    app->req.nargs = 1;
    strfmt_copy(app->req.variant, sizeof app->req.variant, "exercise");
    return TUI_F_REQUEST | TUI_F_REDRAW;
}

/* The tool a sanitize request names: args[0] ("synccheck"), else memcheck
 * or racecheck as the flag says. */
static const char *sanitize_tool_of(const tui_request *r)
{
    if (r->nargs > 0 && r->args[0][0])
        return r->args[0];
    return r->racecheck ? "racecheck" : "memcheck";
}

void tui_app_job_started(tui_app *app)
{
    const tui_request *r = &app->req;
    app->job = r->kind == TUI_REQ_NCU ? TUI_JOB_NCU : TUI_JOB_SANITIZE;
    app->job_lab = r->lab;
    strfmt_copy(app->job_variant, sizeof app->job_variant, r->variant);
    strfmt_copy(app->job_size, sizeof app->job_size, r->size);
    if (app->job == TUI_JOB_NCU) {
        snprintf(app->job_what, sizeof app->job_what, "Nsight Compute on %s", r->kernel);
        tui_log_add(&app->log, TUI_LOG_INFO,
                    "profiling with Nsight Compute: the first launch of %s (this takes a "
                    "while; Esc or c stops it)",
                    r->kernel);
    } else {
        snprintf(app->job_what, sizeof app->job_what, "%s on your kernel", sanitize_tool_of(r));
        tui_log_add(&app->log, TUI_LOG_INFO,
                    "compute-sanitizer %s is checking your kernel once at the smallest "
                    "size (this takes a while; Esc or c stops it)",
                    sanitize_tool_of(r));
    }
    app->req.kind = TUI_REQ_NONE;
}

/* Shows text in the details window unless another window is open. */
static void show_details(tui_app *a, const char *title, const char *text)
{
    if (a->overlay != TUI_OV_NONE && a->overlay != TUI_OV_DETAILS)
        return;
    strfmt_copy(a->details_title, sizeof a->details_title, title);
    strfmt_copy(a->details, sizeof a->details, text);
    a->details_md = false;
    a->details_scroll = 0;
    a->overlay = TUI_OV_DETAILS;
}

unsigned tui_app_job_failed(tui_app *app, const char *why)
{
    bool ncu = app->req.kind == TUI_REQ_NCU;
    app->req.kind = TUI_REQ_NONE;
    tui_log_add(&app->log, TUI_LOG_ERROR, "%s", why);
    show_details(app, ncu ? "Nsight Compute" : "compute-sanitizer", why);
    return TUI_F_REDRAW;
}

unsigned tui_app_on_job(tui_app *app, const char *out, int status)
{
    tui_job_kind kind = app->job;
    bool ok = strncmp(out, "OK\n", 3) == 0;
    const char *text = ok || strncmp(out, "ERR\n", 4) == 0 ? out + (ok ? 3 : 4) : out;
    char title[160], line[256];
    app->job = TUI_JOB_NONE;
    if (kind == TUI_JOB_NONE)
        return 0;
    if (!ok && !text[0]) {
        snprintf(line, sizeof line, "%s stopped before it answered (%s %d)", app->job_what,
                 status > 128 ? "signal" : "exit status", status > 128 ? status - 128 : status);
        text = line;
    }
    if (kind == TUI_JOB_NCU && ok && app->labs && app->job_lab < app->labs->n) {
        tui_labstate *s = &app->ls[app->job_lab];
        tui_row *row;
        strfmt_copy(s->ncu_variant, sizeof s->ncu_variant, app->job_variant);
        strfmt_copy(s->ncu_size, sizeof s->ncu_size, app->job_size);
        strfmt_copy(s->ncu_text, sizeof s->ncu_text, text);
        tui_log_add(&app->log, TUI_LOG_INFO,
                    "Nsight Compute: done (Enter on the row shows its metrics)");
        row = tui_runtable_find(&s->table, app->job_variant, app->job_size);
        if (row && app->job_lab == app->sel &&
            (app->overlay == TUI_OV_NONE || app->overlay == TUI_OV_DETAILS)) {
            tui_app_describe_row(app, app->labs->v[app->job_lab], row);
            app->details_md = false;
            app->details_scroll = 0;
            app->overlay = TUI_OV_DETAILS;
        } else {
            show_details(app, "Nsight Compute", text);
        }
        return TUI_F_REDRAW;
    }
    if (kind == TUI_JOB_NCU) {
        tui_log_add(&app->log, TUI_LOG_ERROR, "Nsight Compute: %s", text);
        show_details(app, "Nsight Compute", text);
        return TUI_F_REDRAW;
    }
    snprintf(title, sizeof title, "%s", app->job_what);
    if (ok) {
        const char *nl = strchr(text, '\n');
        const char *found = strstr(text, "\n\n");
        size_t len;
        found = found ? found + 2 : (nl ? nl + 1 : text);
        len = strcspn(found, "\n");
        snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line ? len : sizeof line - 1), found);
        tui_log_add(&app->log, strstr(line, "no problems") ? TUI_LOG_INFO : TUI_LOG_WARN, "%s",
                    line);
    } else {
        tui_log_add(&app->log, TUI_LOG_ERROR, "%s", text);
    }
    show_details(app, title, text);
    return TUI_F_REDRAW;
}
