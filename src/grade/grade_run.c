/* grade_run.c - measuring a learner's kernels afresh and judging the
 * milestones (grade/grade.h). */
#include "grade/grade.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/atomicfile.h"
#include "core/clock.h"
#include "core/digest.h"
#include "core/fsguard.h"
#include "core/grow.h"
#include "core/paths.h"
#include "catalog/experiments_list.h"
#include "catalog/problem_spec.h"
#include "grade/grade_internal.h"
#include "lab/labneeds.h"
#include "lab/labproblem.h"
#include "lab/milestone.h"
#include "lab/probdecl.h"
#include "lab/workspace.h"
#include "supervise/supervisor.h"

#define SOURCE_MAX ((size_t)4 << 20)

/* What the supervisor's callbacks collect for the lab being graded. */
typedef struct collector {
    run_result *rows;
    size_t n, cap;
    bool oom;
    run_fault fault;
    bool faulted;
} collector;

static void on_result(void *ud, const run_result *r)
{
    collector *c = ud;
    if (!grow_one((void **)&c->rows, &c->cap, c->n, sizeof *c->rows, 16)) {
        c->oom = true;
        return;
    }
    c->rows[c->n++] = *r;
}

static void on_fault(void *ud, const run_fault *f)
{
    collector *c = ud;
    c->fault = *f;
    c->faulted = true;
}

static void say(const grade_opts *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const grade_opts *o, const char *fmt, ...)
{
    if (!o->progress)
        return;
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    o->progress(o->ud, line);
}

static bool wanted(const grade_opts *o, const lab *l)
{
    if (l->nexercises == 0)
        return false;
    if (o->nonly == 0)
        return true;
    for (size_t i = 0; i < o->nonly; i++)
        if (strcmp(o->only[i], l->id) == 0)
            return true;
    return false;
}

/* Reads one of the learner's files (a regular file inside its folder) and
 * its hash; NULL text, and why in e, when it cannot be graded. */
static void read_source(const char *path, char **text, char sha[65], cl_err *e)
{
    size_t len = 0;
    *text = fsguard_read(path, NULL, SOURCE_MAX, &len, e);
    sha[0] = '\0';
    if (*text && !digest_sha256_hex(*text, len, sha))
        sha[0] = '\0';
}

/* Whether milestone i is graded with exercise x: a measured one judged on
 * x's rows, or a quiz when x is the lab's first exercise. */
static bool graded_with(const lab *l, size_t i, const lab_exercise *x)
{
    if (l->milestones[i].quiz)
        return x == &l->exercises[0];
    return lab_milestone_exercise(l, i) == x;
}

/* The sizes x's measured milestones are judged at, each once. */
static int judged_sizes(const lab *l, const lab_exercise *x, run_request *req)
{
    req->nsizes = 0;
    for (size_t i = 0; i < l->nmilestones; i++) {
        const char *size = lab_milestone_size(l, i);
        if (!size || !graded_with(l, i, x))
            continue;
        bool seen = false;
        for (int k = 0; k < req->nsizes; k++)
            seen |= lab_milestone_same_size(l, i, req->sizes[k], size);
        if (!seen && req->nsizes < RUN_MAX_SIZES)
            snprintf(req->sizes[req->nsizes++], RUN_SIZE_MAX, "%s", size);
    }
    return req->nsizes;
}

static void build_request(const lab *l, const lab_exercise *x, const grade_lab *gl,
                          uint64_t seed, double budget, run_request *req)
{
    bool listed = x->id[0] != '\0';
    memset(req, 0, sizeof *req);
    snprintf(req->lab, sizeof req->lab, "%s", l->id);
    lab_request_problem(l, listed ? x : NULL, req);
    snprintf(req->exercise, sizeof req->exercise, "%s", x->id);
    req->seed = seed;
    req->budget_s = budget;
    req->cpu = true;
    snprintf(req->exercise_kernel, sizeof req->exercise_kernel, "%s", gl->kernel_path);
    snprintf(req->exercise_launcher, sizeof req->exercise_launcher, "%s", gl->launcher_path);
    /* only the rungs its milestones compare with: grading is timed */
    lab_request_needs(l, x, req);
    if (judged_sizes(l, x, req) == 0 && x->nsizes > 0)
        snprintf(req->sizes[req->nsizes++], RUN_SIZE_MAX, "%s", x->sizes[0]);
}

/* Measures the learner's kernel of l; the rows into gl. */
static void measure(supervisor *s, collector *c, lab *l, const lab_exercise *x, grade_lab *gl,
                    const grade_opts *o, uint64_t seed)
{
    static run_request req;
    build_request(l, x, gl, seed, o->budget_s > 0 ? o->budget_s : GRADE_BUDGET_S, &req);
    double limit = o->time_limit_s > 0 ? o->time_limit_s : l->time_limit_s;
    cl_err e = {{0}};
    memset(c, 0, sizeof *c);
    if (!supervisor_submit(s, &req, limit, &e)) {
        snprintf(gl->note, sizeof gl->note, "the GPU worker could not start: %s", e.msg);
        return;
    }
    supervisor_wait(s, req.run);
    gl->measured = true;
    gl->rows = c->rows;
    gl->nrows = c->n;
    c->rows = NULL;
    if (c->faulted)
        grade_explain_fault(&c->fault, o->time_limit_s > 0 ? o->time_limit_s : l->time_limit_s,
                            gl->cause, sizeof gl->cause, gl->note, sizeof gl->note);
    else if (c->oom)
        snprintf(gl->note, sizeof gl->note, "some rows were lost: out of memory");
}

static void judge_measured(lab *l, size_t i, grade_lab *gl, grade_milestone *g)
{
    const char *size = lab_milestone_size(l, i);
    snprintf(g->size, sizeof g->size, "%s", size ? size : "");
    if (!gl->measured) {
        snprintf(g->cause, sizeof g->cause, "%s", gl->cause[0] ? gl->cause : "not_measured");
        snprintf(g->why, sizeof g->why, "%s", gl->note);
        return;
    }
    ms_eval ev;
    lab_milestone_eval_judged(l, i, gl->rows, gl->nrows, &ev);
    snprintf(g->value, sizeof g->value, "%s", ev.shown);
    if (ev.state == MS_REACHED) {
        g->passed = true;
        return;
    }
    if (ev.state == MS_ERROR) {
        snprintf(g->cause, sizeof g->cause, "check_error");
        snprintf(g->why, sizeof g->why, "the lab's check failed: %s", ev.error);
        return;
    }
    /* Missed or pending: the learner's row says why, if it was not right;
     * a milestone of no one size (a check over every size) is explained by
     * the first of the learner's rows that was not right. */
    const run_result *mine = NULL;
    for (size_t k = 0; k < gl->nrows; k++) {
        const run_result *r = &gl->rows[k];
        if (r->kind != RK_EXERCISE)
            continue;
        if (size ? lab_milestone_same_size(l, i, r->size, size)
                 : !mine || (mine->status == RS_CORRECT && r->status != RS_CORRECT))
            mine = r;
    }
    if (mine && mine->status != RS_CORRECT) {
        grade_explain_row(mine, lab_exercise_spec(l, lab_milestone_exercise(l, i)), g->cause,
                          sizeof g->cause, g->why, sizeof g->why);
    } else if (mine && ev.why[0]) {
        snprintf(g->cause, sizeof g->cause, "not_reached");
        snprintf(g->why, sizeof g->why, "your kernel is correct at %s, but %s", size, ev.why);
    } else if (mine) {
        snprintf(g->cause, sizeof g->cause, "not_reached");
        snprintf(g->why, sizeof g->why, "your kernel is correct at %s but does not reach the "
                                        "milestone (%s)",
                 size, ev.shown[0] ? ev.shown : "no figure");
    } else {
        snprintf(g->cause, sizeof g->cause, "%s", gl->cause[0] ? gl->cause : "not_measured");
        snprintf(g->why, sizeof g->why, "%s", gl->note[0] ? gl->note
                                              : "your kernel produced no row at the judged size");
    }
}

/* The learner's kernel's time at its largest judged size, for the
 * leaderboard; 0 when it was not correct there. */
static void best_time(lab *l, const lab_exercise *x, grade_lab *gl)
{
    const char *largest = NULL;
    size_t at = 0;
    for (size_t i = 0; i < l->nmilestones; i++)
        if (lab_milestone_size(l, i) && graded_with(l, i, x)) {
            largest = lab_milestone_size(l, i);
            at = i;
        }
    for (size_t k = 0; k < gl->nrows; k++) {
        const run_result *r = &gl->rows[k];
        if (r->kind == RK_EXERCISE && r->status == RS_CORRECT && r->samples > 0 &&
            (!largest || lab_milestone_same_size(l, at, r->size, largest))) {
            gl->best_ms = r->median_ms;
            snprintf(gl->best_size, sizeof gl->best_size, "%s", r->size);
        }
    }
}

/* Grades exercise x of lab l: one entry of the report ("lab", or
 * "lab/exercise" for a listed exercise) with the milestones graded with it. */

static bool grade_lab_run(supervisor *s, collector *c, lab *l, const lab_exercise *x,
                          const char *ws, const grade_opts *o, store *st, uint64_t seed,
                          const grade_baselines *trusted, grade_lab *gl, cl_err *e)
{
    double t0 = clock_now_s();
    snprintf(gl->id, sizeof gl->id, "%s%s%s", l->id, x->id[0] ? "/" : "", x->id);
    snprintf(gl->title, sizeof gl->title, "%s%s%s", l->title, x->id[0] ? ": " : "",
             x->id[0] ? (x->title && x->title[0] ? x->title : x->id) : "");
    gl->ms = calloc(l->nmilestones ? l->nmilestones : 1, sizeof *gl->ms);
    if (!gl->ms)
        return err_set(e, "out of memory");
    workspace_files f;
    cl_err we = {{0}};
    if (!workspace_files_of(ws, l, x, &f, &we)) {
        snprintf(gl->note, sizeof gl->note, "%s", we.msg);
    } else {
        snprintf(gl->kernel_path, sizeof gl->kernel_path, "%s", f.kernel);
        snprintf(gl->launcher_path, sizeof gl->launcher_path, "%s", f.launcher);
        cl_err ke = {{0}}, le = {{0}}, se = {{0}};
        read_source(f.kernel, &gl->kernel_text, gl->kernel_sha, &ke);
        /* a Python exercise has its .py alone: no launcher to read */
        if (f.launcher[0])
            read_source(f.launcher, &gl->launcher_text, gl->launcher_sha, &le);
        char *starter = NULL, starter_sha[65];
        read_source(f.starter_kernel, &starter, starter_sha, &se);
        gl->kernel_starter = starter && gl->kernel_text && strcmp(starter_sha, gl->kernel_sha) == 0;
        free(starter);
        if (!gl->kernel_text || (f.launcher[0] && !gl->launcher_text)) {
            snprintf(gl->cause, sizeof gl->cause, "missing");
            snprintf(gl->note, sizeof gl->note, "nothing to grade: %s (the learner's %s %s%s%s)",
                     !gl->kernel_text ? ke.msg : le.msg, f.launcher[0] ? "files are" : "file is",
                     f.kernel, f.launcher[0] ? " and " : "", f.launcher);
        } else {
            measure(s, c, l, x, gl, o, seed);
            if (trusted)
                grade_apply_trusted(gl, trusted);
        }
    }
    for (size_t i = 0; i < l->nmilestones; i++) {
        const lab_milestone *m = &l->milestones[i];
        if (!graded_with(l, i, x))
            continue;
        grade_milestone *g = &gl->ms[gl->nms++];
        snprintf(g->id, sizeof g->id, "%s", m->id);
        snprintf(g->text, sizeof g->text, "%s", m->text);
        g->quiz = m->quiz != NULL;
        g->points = m->points;
        if (g->quiz)
            grade_judge_quiz(l, m, st, o, g);
        else
            judge_measured(l, i, gl, g);
        g->earned = g->passed ? g->points : 0.0;
        gl->score += g->earned;
        gl->max_score += g->points;
    }
    best_time(l, x, gl);
    gl->seconds = clock_now_s() - t0;
    return true;
}

#define GRADE_MAX_LAB_DIRS 64

/* Whether l has a Python row: an exercise or a rung in python3. */
static bool has_python(const lab *l)
{
    for (size_t i = 0; i < l->nvariants; i++)
        if (l->variants[i].python)
            return true;
    for (size_t i = 0; i < l->nexercises; i++) {
        const lab_exercise *x = &l->exercises[i];
        if (x->python)
            return true;
        for (size_t k = 0; k < x->nvariants; k++)
            if (x->variants[k].python)
                return true;
    }
    return false;
}

/* The folders of the labs graded. */
static size_t lab_dirs(const lab_set *set, const grade_opts *o, const char **dirs, bool *python)
{
    size_t n = 0;
    *python = false;
    for (size_t i = 0; i < set->n && n < GRADE_MAX_LAB_DIRS; i++) {
        if (!wanted(o, set->v[i]))
            continue;
        dirs[n++] = set->v[i]->dir;
        *python |= has_python(set->v[i]);
    }
    return n;
}

/* ---- the CPU baselines, measured where no learner code runs ------------------ */


static void trusted_pass(lab_set *set, const grade_opts *o, const char *const *worker,
                         grade_baselines *bl, size_t nbl)
{
    static collector c;
    memset(&c, 0, sizeof c);
    supervisor_callbacks cb = {.on_result = on_result, .on_fault = on_fault};
    supervisor_opts so = {.argv = worker, .time_limit_s = 120, .cb = &cb, .ud = &c};
    cl_err e = {{0}};
    device_info dev;
    supervisor *s = supervisor_new(&so, &e);
    if (!s || !supervisor_hello(s, 120000, &dev, &e)) {
        say(o, "the CPU baselines could not be measured apart: %s", e.msg);
        supervisor_free(s);
        return;
    }
    if (!dev.present) {
        /* nothing will be graded: the sandboxed worker says why */
        supervisor_free(s);
        return;
    }
    say(o, "measuring the CPU baselines apart from the learner's code");
    double t0 = clock_now_ms();
    size_t at = 0;
    for (size_t i = 0; i < set->n; i++) {
        lab *l = set->v[i];
        if (!wanted(o, l))
            continue;
        for (size_t k = 0; k < l->nexercises && at < nbl; k++, at++) {
            static run_request req;
            grade_lab none;
            memset(&none, 0, sizeof none);
            const lab_exercise *x = &l->exercises[k];
            build_request(l, x, &none, 1, GRADE_BUDGET_S, &req);
            if (!grade_trusted_request(l, &req))
                continue;
            memset(&c, 0, sizeof c);
            if (!supervisor_submit(s, &req, l->time_limit_s, &e))
                break;
            supervisor_wait(s, req.run);
            if (c.faulted)
                say(o, "the CPU baselines of %s%s%s could not be measured apart (%s): its CPU "
                       "rows are not used in grading", l->id, x->id[0] ? "/" : "", x->id,
                    c.fault.message);
            else if (req.nsizes > 0 &&
                     !grade_trusted_row(&(grade_baselines){c.rows, c.n}, "cpu", req.sizes[0]))
                say(o, "the CPU baselines of %s%s%s: no CPU row at %s came back", l->id,
                    x->id[0] ? "/" : "", x->id, req.sizes[0]);
            bl[at].rows = c.rows;
            bl[at].n = c.n;
            c.rows = NULL;
        }
    }
    supervisor_free(s);
    say(o, "the CPU baselines took %.1f s", (clock_now_ms() - t0) / 1e3);
}

/* After the worker is gone: its sandbox removed, the baselines freed. */
static void finish(const grade_opts *o, grade_jail *jail, grade_baselines *bl, size_t n)
{
    if (!o->worker_argv)
        grade_jail_close(jail);
    grade_free_baselines(bl, n);
}

/* The CPU baselines measured apart (into bl), then the sandbox made for
 * the learner's code: the worker's command, or NULL + err when the sandbox
 * cannot be made. */
static const char *const *sandboxed_worker(lab_set *set, const grade_opts *opts, const char *ws,
                                           grade_jail *jail, grade_baselines *bl, size_t n, cl_err *err)
{
    const char *dirs[GRADE_MAX_LAB_DIRS];
    bool python = false;
    size_t ndirs = lab_dirs(set, opts, dirs, &python);
    /* the same program, unconfined, running no learner code */
    grade_opts plain = *opts;
    plain.sandbox = GRADE_SANDBOX_NONE;
    if (grade_jail_open(jail, &plain, ws, dirs, ndirs, false, NULL, err)) {
        trusted_pass(set, opts, grade_jail_command(jail), bl, n);
        grade_jail_close(jail);
    }
    if (!grade_jail_open(jail, opts, ws, dirs, ndirs, python, NULL, err))
        return NULL;
    return grade_jail_command(jail);
}

/* Every wanted exercise graded in turn into out (trusted: the CPU rows
 * measured apart, one an exercise; NULL when a test plants the worker). */
static grade_status grade_each(supervisor *s, collector *c, lab_set *set, const grade_opts *opts,
                               store *st, const grade_baselines *trusted, grade_report *out, cl_err *err)
{
    grade_status status = GRADE_OK;
    for (size_t i = 0; i < set->n && status == GRADE_OK; i++) {
        lab *l = set->v[i];
        if (!wanted(opts, l))
            continue;
        for (size_t k = 0; k < l->nexercises && status == GRADE_OK; k++) {
            grade_lab *gl = &out->labs[out->nlabs];
            const lab_exercise *x = &l->exercises[k];
            say(opts, "grading %s%s%s: compiling and measuring the learner's kernel", l->id,
                x->id[0] ? "/" : "", x->id);
            if (!grade_lab_run(s, c, l, x, out->workspace, opts, st, out->seed,
                               trusted ? &trusted[out->nlabs] : NULL, gl, err))
                status = GRADE_FAILED;
            out->nlabs++;
            out->score += gl->score;
            out->max_score += gl->max_score;
            say(opts, "graded %s: %g of %g points in %.1f s%s%s", gl->id, gl->score, gl->max_score,
                gl->seconds, gl->note[0] ? "; " : "", gl->note);
        }
    }
    return status;
}

grade_status grade_run(lab_set *set, const grade_opts *opts, store *st, grade_report *out,
                       cl_err *err)
{
    double t0 = clock_now_s();
    if (!grade_report_start(out, opts, err))
        return GRADE_FAILED;
    const char *ws = out->workspace;

    for (size_t i = 0; i < opts->nonly; i++)
        if (!lab_set_find(set, opts->only[i]))
            return err_set(err, "no lab called '%s' (see 'cudalab list')", opts->only[i]),
                   GRADE_UNKNOWN_LAB;
    size_t n = 0;
    for (size_t i = 0; i < set->n; i++)
        n += wanted(opts, set->v[i]) ? set->v[i]->nexercises : 0;
    if (n == 0)
        return err_set(err, "no lab to grade: none of the labs asked for has an exercise"),
               GRADE_FAILED;

    snprintf(out->sandbox, sizeof out->sandbox, "%s", grade_sandbox_name(opts->sandbox));
    grade_baselines *bl = calloc(n, sizeof *bl);
    if (!bl)
        return err_set(err, "out of memory"), GRADE_FAILED;
    static grade_jail jail;
    const char *const *worker = opts->worker_argv;
    if (!worker && !(worker = sandboxed_worker(set, opts, ws, &jail, bl, n, err))) {
        grade_free_baselines(bl, n);
        out->seconds = clock_now_s() - t0;
        return GRADE_FAILED;
    }
    static collector c;
    memset(&c, 0, sizeof c);
    supervisor_callbacks cb = {.on_result = on_result, .on_fault = on_fault};
    supervisor_opts so = {.argv = worker, .time_limit_s = 120, .cb = &cb, .ud = &c};
    supervisor *s = supervisor_new(&so, err);
    if (!s) {
        finish(opts, &jail, bl, n);
        return GRADE_FAILED;
    }
    say(opts, "starting the GPU worker");
    if (!supervisor_hello(s, 120000, &out->dev, err)) {
        err_prefix(err, "cannot start the GPU worker");
        supervisor_free(s);
        finish(opts, &jail, bl, n);
        out->seconds = clock_now_s() - t0;
        return GRADE_FAILED;
    }
    if (!out->dev.present) {
        err_set(err, "cannot grade: %s", out->dev.reason);
        supervisor_free(s);
        finish(opts, &jail, bl, n);
        out->seconds = clock_now_s() - t0;
        return GRADE_NO_DEVICE;
    }
    say(opts, "device: %s; seed %llu", out->dev.name, (unsigned long long)out->seed);
    out->labs = calloc(n, sizeof *out->labs);
    if (!out->labs) {
        supervisor_free(s);
        finish(opts, &jail, bl, n);
        return err_set(err, "out of memory"), GRADE_FAILED;
    }
    grade_status status = grade_each(s, &c, set, opts, st, opts->worker_argv ? NULL : bl, out, err);
    free(c.rows);
    supervisor_free(s);
    finish(opts, &jail, bl, n);
    out->seconds = clock_now_s() - t0;
    return status;
}
