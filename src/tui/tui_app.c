#include "tui/tui_app.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "core/paths.h"
#include "core/trace.h"
#include "lab/milestone.h"
#include "lab/workspace.h"
#include "tui/tui_fmt.h"
#include "tui/tui_ncu.h"
#include "tui/tui_prof.h"
#include "worker/diagnose.h"
#include "worker/experiments.h"

#define LESSON_MAX_WIDTH 100
#define VIEW_MAX 256

static void copy_str(char *dst, size_t n, const char *src)
{
    snprintf(dst, n, "%s", src ? src : "");
}

static int clampi(int v, int lo, int hi)
{
    if (v > hi)
        v = hi;
    if (v < lo)
        v = lo;
    return v;
}

const lab *tui_app_lab(const tui_app *a)
{
    if (!a->labs || a->sel >= a->labs->n)
        return NULL;
    return a->labs->v[a->sel];
}

tui_labstate *tui_app_state(tui_app *a)
{
    if (!a->labs || a->sel >= a->labs->n)
        return NULL;
    return &a->ls[a->sel];
}

static const char *size_of(const tui_app *a, size_t i)
{
    const lab *l = a->labs->v[i];
    if (l->nsizes == 0)
        return "";
    return l->sizes[a->ls[i].size_idx < l->nsizes ? a->ls[i].size_idx : 0];
}

const char *tui_app_size(const tui_app *a)
{
    if (!tui_app_lab(a))
        return "";
    return size_of(a, a->sel);
}

static bool seed_rows(tui_app *a, size_t i, cl_err *e)
{
    const lab *l = a->labs->v[i];
    tui_labstate *s = &a->ls[i];
    if (tui_prof_lab(l)) {
        for (size_t v = 0; v < l->nvariants; v++) {
            if (!tui_runtable_expect(&s->table, l->variants[v].id, l->variants[v].id, RK_KERNEL, "", e))
                return false;
            tui_runtable_find(&s->table, l->variants[v].id, "")->state = ROW_IDLE;
        }
        for (size_t z = 0; l->exercise.kernel && z < l->nsizes; z++) {
            if (!tui_runtable_expect(&s->table, "exercise", "exercise", RK_EXERCISE, l->sizes[z], e))
                return false;
            tui_runtable_find(&s->table, "exercise", l->sizes[z])->state = ROW_IDLE;
        }
        return true;
    }
    for (size_t z = 0; z < l->nsizes; z++) {
        for (size_t v = 0; v < l->nvariants; v++) {
            if (!tui_runtable_expect(&s->table, l->variants[v].id, l->variants[v].id, RK_KERNEL,
                                     l->sizes[z], e))
                return false;
            tui_runtable_find(&s->table, l->variants[v].id, l->sizes[z])->state = ROW_IDLE;
        }
        if (l->exercise.kernel) {
            if (!tui_runtable_expect(&s->table, "exercise", "exercise", RK_EXERCISE, l->sizes[z], e))
                return false;
            tui_runtable_find(&s->table, "exercise", l->sizes[z])->state = ROW_IDLE;
        }
    }
    return true;
}

bool tui_app_init(tui_app *a, lab_set *labs, bool ascii, cl_err *e)
{
    memset(a, 0, sizeof *a);
    a->tl.item = -1;
    a->labs = labs;
    a->ascii = ascii;
    a->focus = TUI_P_LABS;
    a->quiz_answered = -1;
    if (!labs || labs->n == 0)
        return true;
    a->ls = calloc(labs->n, sizeof *a->ls);
    if (!a->ls)
        return err_set(e, "out of memory");
    for (size_t i = 0; i < labs->n; i++) {
        const lab *l = labs->v[i];
        tui_labstate *s = &a->ls[i];
        s->quiz_pick = calloc(l->nquizzes + 1, sizeof *s->quiz_pick);
        s->quiz_ok = calloc(l->nquizzes + 1, sizeof *s->quiz_ok);
        s->ms = calloc(l->nmilestones + 1, sizeof *s->ms);
        if (!s->quiz_pick || !s->quiz_ok || !s->ms) {
            tui_app_free(a);
            return err_set(e, "out of memory");
        }
        for (size_t q = 0; q < l->nquizzes; q++)
            s->quiz_pick[q] = -1;
        if (!seed_rows(a, i, e)) {
            tui_app_free(a);
            return false;
        }
    }
    return true;
}

void tui_app_free(tui_app *a)
{
    if (a->ls) {
        for (size_t i = 0; a->labs && i < a->labs->n; i++) {
            free(a->ls[i].quiz_pick);
            free(a->ls[i].quiz_ok);
            free(a->ls[i].ms);
            tui_runtable_free(&a->ls[i].table);
        }
        free(a->ls);
    }
    tui_md_free(&a->lesson);
    tui_timeline_free(&a->tl);
    memset(a, 0, sizeof *a);
}

/* ---- lesson ------------------------------------------------------------- */

int tui_app_lesson_width(const tui_layout *lay)
{
    int w = lay->pane[TUI_P_LESSON].w - 4;
    if (w > LESSON_MAX_WIDTH)
        w = LESSON_MAX_WIDTH;
    return w < 8 ? 8 : w;
}

const md_doc *tui_app_lesson(tui_app *a, int width)
{
    const lab *l = tui_app_lab(a);
    tui_labstate *s = tui_app_state(a);
    char *src;
    size_t n;
    const lab_step *st;
    if (!l || !s || l->nsteps == 0) {
        tui_md_free(&a->lesson);
        a->lesson_valid = false;
        return &a->lesson;
    }
    if (a->lesson_valid && a->lesson_lab == a->sel && a->lesson_step == s->step &&
        a->lesson_width == width)
        return &a->lesson;
    tui_md_free(&a->lesson);
    a->lesson_valid = false;
    st = &l->steps[s->step < l->nsteps ? s->step : 0];
    n = strlen(st->title ? st->title : "") + strlen(st->body ? st->body : "") + 8;
    src = malloc(n);
    if (!src)
        return &a->lesson;
    snprintf(src, n, "# %s\n\n%s", st->title ? st->title : "", st->body ? st->body : "");
    if (tui_md_render(src, width, a->ascii, &a->lesson, NULL)) {
        a->lesson_valid = true;
        a->lesson_lab = a->sel;
        a->lesson_step = s->step;
        a->lesson_width = width;
    }
    free(src);
    return &a->lesson;
}

static int lesson_visible(const tui_layout *lay)
{
    int h = lay->pane[TUI_P_LESSON].h - 2;
    return h < 1 ? 1 : h;
}

static void lesson_scroll(tui_app *a, const tui_layout *lay, int delta, bool absolute)
{
    tui_labstate *s = tui_app_state(a);
    const md_doc *d;
    int max;
    if (!s)
        return;
    d = tui_app_lesson(a, tui_app_lesson_width(lay));
    max = (int)d->n - lesson_visible(lay);
    if (max < 0)
        max = 0;
    s->lesson_scroll = clampi(absolute ? delta : s->lesson_scroll + delta, 0, max);
}

static unsigned step_move(tui_app *a, int delta)
{
    const lab *l = tui_app_lab(a);
    tui_labstate *s = tui_app_state(a);
    long ns;
    if (!l || !s || l->nsteps == 0)
        return 0;
    ns = (long)s->step + delta;
    if (ns < 0 || ns >= (long)l->nsteps)
        return 0;
    s->step = (size_t)ns;
    s->lesson_scroll = 0;
    return TUI_F_REDRAW;
}

/* ---- lists -------------------------------------------------------------- */

static int labs_visible(const tui_layout *lay)
{
    int h = lay->pane[TUI_P_LABS].h - 2;
    return h < 1 ? 1 : h;
}

static void labs_follow(tui_app *a, const tui_layout *lay)
{
    int vis = labs_visible(lay), sel = (int)a->sel;
    if (sel < a->labs_scroll)
        a->labs_scroll = sel;
    if (sel >= a->labs_scroll + vis)
        a->labs_scroll = sel - vis + 1;
    if (a->labs_scroll < 0)
        a->labs_scroll = 0;
}

static unsigned lab_select(tui_app *a, const tui_layout *lay, long to)
{
    if (!a->labs || a->labs->n == 0)
        return 0;
    to = to < 0 ? 0 : to >= (long)a->labs->n ? (long)a->labs->n - 1 : to;
    a->sel = (size_t)to;
    labs_follow(a, lay);
    return TUI_F_REDRAW;
}

/* Where a profiling row's experiment comes among the lab's variants. */
static size_t experiment_rank(const lab *l, const tui_row *r)
{
    const char *x = tui_prof_experiment(r->variant);
    for (size_t v = 0; x && v < l->nvariants; v++)
        if (strcmp(l->variants[v].id, x) == 0)
            return v;
    return l->nvariants;
}

size_t tui_app_rows(const tui_app *a, size_t *idx, size_t max)
{
    const lab *l = tui_app_lab(a);
    const tui_labstate *s;
    if (!l)
        return 0;
    s = &a->ls[a->sel];
    if (tui_prof_lab(l)) {
        size_t n = tui_runtable_view_own(&s->table, tui_app_size(a), (const char *const *)l->sizes, l->nsizes,
                                         idx, max);
        size_t k = 0;
        while (k < n && strcmp(s->table.v[idx[k]].size, tui_app_size(a)) != 0)
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
    return tui_runtable_view(&s->table, tui_app_size(a), idx, max);
}

static size_t run_rows(tui_app *a, size_t *idx, size_t max)
{
    return tui_app_rows(a, idx, max);
}

static int run_visible(const tui_layout *lay)
{
    int h = lay->run_table.h - 2;
    return h < 1 ? 1 : h;
}

static void run_follow(tui_app *a, const tui_layout *lay)
{
    tui_labstate *s = tui_app_state(a);
    size_t idx[VIEW_MAX], n = run_rows(a, idx, VIEW_MAX);
    int vis = run_visible(lay);
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

static unsigned run_cursor_move(tui_app *a, const tui_layout *lay, long to)
{
    tui_labstate *s = tui_app_state(a);
    size_t idx[VIEW_MAX], n = run_rows(a, idx, VIEW_MAX);
    if (!s || n == 0)
        return 0;
    s->run_cursor = (size_t)(to < 0 ? 0 : to >= (long)n ? (long)n - 1 : to);
    run_follow(a, lay);
    return TUI_F_REDRAW;
}

static unsigned size_move(tui_app *a, const tui_layout *lay, int delta)
{
    const lab *l = tui_app_lab(a);
    tui_labstate *s = tui_app_state(a);
    long ns;
    if (!l || !s || l->nsizes < 2)
        return 0;
    ns = (long)s->size_idx + delta;
    if (ns < 0 || ns >= (long)l->nsizes)
        return 0;
    s->size_idx = (size_t)ns;
    run_follow(a, lay);
    return TUI_F_REDRAW;
}

static int ms_visible(const tui_layout *lay)
{
    int h = (lay->pane[TUI_P_MILESTONES].h - 2) / 2;
    return h < 1 ? 1 : h;
}

static unsigned ms_cursor_move(tui_app *a, const tui_layout *lay, long to)
{
    const lab *l = tui_app_lab(a);
    tui_labstate *s = tui_app_state(a);
    int vis = ms_visible(lay);
    if (!l || !s || l->nmilestones == 0)
        return 0;
    s->ms_cursor = (size_t)(to < 0 ? 0 : to >= (long)l->nmilestones ? (long)l->nmilestones - 1 : to);
    if ((int)s->ms_cursor < s->ms_scroll)
        s->ms_scroll = (int)s->ms_cursor;
    if ((int)s->ms_cursor >= s->ms_scroll + vis)
        s->ms_scroll = (int)s->ms_cursor - vis + 1;
    return TUI_F_REDRAW;
}

/* ---- quizzes ------------------------------------------------------------- */

static long quiz_index(const lab *l, const char *id)
{
    for (size_t q = 0; q < l->nquizzes; q++)
        if (id && l->quizzes[q].id && strcmp(l->quizzes[q].id, id) == 0)
            return (long)q;
    return -1;
}

static unsigned quiz_open(tui_app *a, size_t m)
{
    const lab *l = tui_app_lab(a);
    tui_labstate *s = tui_app_state(a);
    long q;
    if (!l || !s || m >= l->nmilestones)
        return 0;
    q = quiz_index(l, l->milestones[m].quiz);
    if (q < 0) {
        tui_log_add(&a->log, TUI_LOG_ERROR, "milestone '%s' names quiz '%s', which the lab does not have",
                    l->milestones[m].id, l->milestones[m].quiz ? l->milestones[m].quiz : "");
        return TUI_F_REDRAW;
    }
    a->overlay = TUI_OV_QUIZ;
    a->quiz_ms = m;
    a->quiz_q = (size_t)q;
    a->quiz_cursor = s->quiz_pick[q] >= 0 ? (size_t)s->quiz_pick[q] : 0;
    a->quiz_answered = -1;
    a->quiz_feedback[0] = '\0';
    return TUI_F_REDRAW;
}

static unsigned quiz_answer(tui_app *a)
{
    const lab *l = tui_app_lab(a);
    tui_labstate *s = tui_app_state(a);
    const lab_quiz *qz;
    const char *fb;
    bool correct = false;
    if (!l || !s || a->quiz_q >= l->nquizzes)
        return 0;
    qz = &l->quizzes[a->quiz_q];
    if (a->quiz_cursor >= qz->nchoices)
        return 0;
    fb = lab_quiz_answer(l, a->quiz_q, a->quiz_cursor, &correct);
    a->quiz_answered = (int)a->quiz_cursor;
    a->quiz_correct = correct;
    s->quiz_pick[a->quiz_q] = (int)a->quiz_cursor;
    if (correct)
        s->quiz_ok[a->quiz_q] = true;
    if (fb && fb[0])
        copy_str(a->quiz_feedback, sizeof a->quiz_feedback, fb);
    else
        copy_str(a->quiz_feedback, sizeof a->quiz_feedback,
                 correct ? "Correct." : "Not quite; try another answer.");
    tui_app_eval(a, a->sel);
    return TUI_F_REDRAW;
}

/* ---- milestones ----------------------------------------------------------- */

void tui_app_eval(tui_app *a, size_t i)
{
    lab *l;
    tui_labstate *s;
    run_result *rs = NULL;
    size_t n = 0;
    if (!a->labs || i >= a->labs->n)
        return;
    l = a->labs->v[i];
    s = &a->ls[i];
    if (s->table.n > 0 && a->ms_eval) {
        rs = malloc(s->table.n * sizeof *rs);
        if (rs)
            n = tui_runtable_results(&s->table, rs, s->table.n);
    }
    for (size_t m = 0; m < l->nmilestones; m++) {
        tui_ms *o = &s->ms[m];
        if (l->milestones[m].quiz) {
            long q = quiz_index(l, l->milestones[m].quiz);
            memset(o, 0, sizeof *o);
            if (q < 0)
                o->state = TUI_MS_ERROR;
            else if (s->quiz_ok[q])
                o->state = TUI_MS_REACHED;
            else if (s->quiz_pick[q] >= 0)
                o->state = TUI_MS_MISSED;
            else
                o->state = TUI_MS_PENDING;
            continue;
        }
        if (a->ms_eval && rs && n > 0)
            a->ms_eval(l, m, rs, n, o);
    }
    free(rs);
}

void tui_app_progress(const tui_app *a, size_t i, int *reached, int *total)
{
    const lab *l;
    *reached = 0;
    *total = 0;
    if (!a->labs || i >= a->labs->n)
        return;
    l = a->labs->v[i];
    *total = (int)l->nmilestones;
    for (size_t m = 0; m < l->nmilestones; m++)
        if (a->ls[i].ms[m].state == TUI_MS_REACHED)
            (*reached)++;
}

static unsigned ms_details(tui_app *a)
{
    const lab *l = tui_app_lab(a);
    tui_labstate *s = tui_app_state(a);
    const lab_milestone *m;
    const tui_ms *st;
    static const char *const names[] = {"not reached yet", "reached", "not reached", "error"};
    if (!l || !s || s->ms_cursor >= l->nmilestones)
        return 0;
    m = &l->milestones[s->ms_cursor];
    if (m->quiz)
        return quiz_open(a, s->ms_cursor);
    st = &s->ms[s->ms_cursor];
    tui_log_add(&a->log, st->state == TUI_MS_ERROR ? TUI_LOG_ERROR : TUI_LOG_INFO,
                "%s: %s%s%s%s%s", m->text ? m->text : m->id, names[st->state],
                st->shown[0] ? " (" : "", st->shown, st->shown[0] ? ")" : "",
                st->state == TUI_MS_ERROR ? st->error : "");
    if (st->state == TUI_MS_PENDING && m->target)
        tui_log_add(&a->log, TUI_LOG_INFO, "target: %s; run the lab (R) to measure", m->target);
    return TUI_F_REDRAW;
}

/* ---- runs ------------------------------------------------------------------ */

static const tui_row *cursor_row(tui_app *a)
{
    tui_labstate *s = tui_app_state(a);
    size_t idx[VIEW_MAX], n = run_rows(a, idx, VIEW_MAX);
    if (!s || n == 0)
        return NULL;
    return &s->table.v[idx[s->run_cursor < n ? s->run_cursor : n - 1]];
}

static bool is_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

bool tui_app_exercise_paths(const tui_app *a, const lab *l, char *kernel, char *launcher, size_t n)
{
    workspace_files f;
    bool mine;
    if (!workspace_files_of(a->workspace, l, &f, NULL))
        return false;
    mine = is_file(f.kernel);
    copy_str(kernel, n, mine ? f.kernel : f.starter_kernel);
    copy_str(launcher, n, mine && f.launcher[0] && is_file(f.launcher) ? f.launcher : f.starter_launcher);
    return true;
}

static void add_variant(run_request *req, const lab_variant *v)
{
    run_variant *rv;
    if (req->nvariants >= PROTO_MAX_VARIANTS)
        return;
    rv = &req->variants[req->nvariants++];
    copy_str(rv->id, sizeof rv->id, v->id);
    copy_str(rv->kernel, sizeof rv->kernel, v->kernel);
}

typedef enum run_mode { RUN_SELECTED, RUN_ALL, RUN_EXERCISE } run_mode;

static unsigned request_run(tui_app *a, run_mode mode)
{
    const lab *l = tui_app_lab(a);
    run_request *req = &a->req.run;
    const tui_row *row;
    bool exercise = false;
    if (!l)
        return 0;
    if (a->running) {
        tui_log_add(&a->log, TUI_LOG_WARN, "a run is in progress: wait for it, or cancel it with Esc or c");
        return TUI_F_REDRAW;
    }
    if (!l->problem || (l->nvariants == 0 && !l->exercise.kernel)) {
        tui_log_add(&a->log, TUI_LOG_WARN, "lab '%s' has no kernels to run", l->id);
        return TUI_F_REDRAW;
    }
    if (l->nsizes == 0) {
        tui_log_add(&a->log, TUI_LOG_WARN, "lab '%s' declares no problem sizes", l->id);
        return TUI_F_REDRAW;
    }
    memset(&a->req, 0, sizeof a->req);
    copy_str(req->lab, sizeof req->lab, l->id);
    copy_str(req->problem, sizeof req->problem, l->problem);
    copy_str(req->library, sizeof req->library, l->library);
    req->nsizes = 1;
    copy_str(req->sizes[0], sizeof req->sizes[0], tui_app_size(a));
    req->budget_s = 0.5;
    req->cpu = true;
    if (tui_prof_lab(l)) {
        const char *x = NULL;
        if (mode == RUN_ALL) {
            for (size_t v = 0; v < l->nvariants; v++)
                add_variant(req, &l->variants[v]);
            exercise = l->exercise.kernel != NULL;
        } else if (mode == RUN_SELECTED && (row = cursor_row(a)) != NULL &&
                   (x = tui_prof_experiment(row->variant)) != NULL) {
            for (size_t v = 0; v < l->nvariants; v++)
                if (strcmp(l->variants[v].id, x) == 0)
                    add_variant(req, &l->variants[v]);
        } else {
            exercise = l->exercise.kernel != NULL;
        }
        req->cpu = exercise;
        req->budget_s = 0;     /* each part's own default, as `cudalab profile` has it */
    } else if (mode == RUN_ALL) {
        for (size_t v = 0; v < l->nvariants; v++)
            add_variant(req, &l->variants[v]);
        exercise = l->exercise.kernel != NULL;
    } else if (mode == RUN_EXERCISE) {
        exercise = l->exercise.kernel != NULL;
    } else {
        row = cursor_row(a);
        if (row && row->kind == RK_EXERCISE && l->exercise.kernel) {
            exercise = true;
        } else {
            const lab_variant *pick = NULL;
            for (size_t v = 0; row && v < l->nvariants; v++)
                if (strcmp(l->variants[v].id, row->variant) == 0)
                    pick = &l->variants[v];
            if (!pick && l->nvariants > 0)
                pick = &l->variants[0];
            if (pick)
                add_variant(req, pick);
            else
                exercise = l->exercise.kernel != NULL;
        }
    }
    if (exercise &&
        !tui_app_exercise_paths(a, l, req->exercise_kernel, req->exercise_launcher, PROTO_PATH_MAX))
        exercise = false;
    if (req->nvariants == 0 && !exercise) {
        memset(&a->req, 0, sizeof a->req);
        tui_log_add(&a->log, TUI_LOG_WARN, "lab '%s': nothing to run", l->id);
        return TUI_F_REDRAW;
    }
    a->req.kind = TUI_REQ_RUN;
    a->req.time_limit_s = a->time_limit_s > 0 ? a->time_limit_s : l->time_limit_s;
    return TUI_F_REQUEST | TUI_F_REDRAW;
}

static unsigned request_cancel(tui_app *a)
{
    if (!a->running && a->job != TUI_JOB_NONE) {
        memset(&a->req, 0, sizeof a->req);
        a->req.kind = TUI_REQ_CANCEL_JOB;
        return TUI_F_REQUEST | TUI_F_REDRAW;
    }
    if (!a->running)
        return 0;
    memset(&a->req, 0, sizeof a->req);
    a->req.kind = TUI_REQ_CANCEL;
    return TUI_F_REQUEST | TUI_F_REDRAW;
}

static size_t append(char *buf, size_t n, size_t at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static size_t append(char *buf, size_t n, size_t at, const char *fmt, ...)
{
    va_list ap;
    int k;
    if (at >= n)
        return at;
    va_start(ap, fmt);
    k = vsnprintf(buf + at, n - at, fmt, ap);
    va_end(ap);
    if (k < 0)
        return at;
    return at + (size_t)k >= n ? n - 1 : at + (size_t)k;
}

static bool row_failed(const tui_row *row)
{
    return row->state == ROW_FAULT ||
           (row->has_result && row->r.status != RS_CORRECT);
}

/* True when row is the learner's kernel and its message is a compiler's
 * "file:line:col: error: message [(and N more errors)]"; fills the compile
 * fields of in (when not NULL; the strings live in file, 256 bytes, and
 * in a static buffer). */
static bool compile_failure(const tui_row *row, diag_input *in, char *file)
{
    static char msg[512];
    char f[256];
    int line = 0, col = 0, off = 0, more = 0;
    char *tail;
    if (row->kind != RK_EXERCISE || !row->has_result || row->r.status != RS_ERROR ||
        sscanf(row->r.message, "%255[^:\n]:%d:%d: error: %n", f, &line, &col, &off) != 3 || off <= 0)
        return false;
    if (!in)
        return true;
    snprintf(msg, sizeof msg, "%s", row->r.message + off);
    tail = strstr(msg, " (and ");
    if (tail && sscanf(tail, " (and %d more error", &more) == 1)
        *tail = '\0';
    snprintf(file, 256, "%s", f);
    in->compile_errors = 1 + more;
    in->compile_file = file;
    in->compile_line = line;
    in->compile_col = col;
    in->compile_message = msg;
    return true;
}

/* The details overlay's text for a row: every figure, then what went wrong
 * in plain words when something did. */
static void describe_row(tui_app *a, const lab *l, const tui_row *row)
{
    static const char *const states[] = {"not run yet: press r to run it", "queued", "running",
                                         "done", "the worker failed on it", "not run"};
    char *b = a->details;
    size_t n = sizeof a->details, at = 0;
    char t[TUI_FMT_MAX], x1[TUI_FMT_MAX], x2[TUI_FMT_MAX], x3[TUI_FMT_MAX];
    const run_result *r = &row->r;
    snprintf(a->details_title, sizeof a->details_title, "%s at size %s", row->label, row->size);
    if (!row->has_result) {
        at = append(b, n, at, "%s\n", states[row->state]);
        if (row->note[0])
            at = append(b, n, at, "%s\n", row->note);
    } else {
        at = append(b, n, at, "Result: %s\n", result_status_name(r->status));
        if (r->median_ms > 0) {
            at = append(b, n, at, "Median %s %s over %d timed runs", tui_fmt_time_ms(r->median_ms, a->ascii, t, sizeof t),
                        tui_fmt_spread(r->spread, a->ascii, x1, sizeof x1), r->samples);
            at = append(b, n, at, " (fastest %s, slowest %s)\n", tui_fmt_time_ms(r->min_ms, a->ascii, x2, sizeof x2),
                        tui_fmt_time_ms(r->max_ms, a->ascii, x3, sizeof x3));
            if (r->gbps >= 0)
                at = append(b, n, at, "Bandwidth %s\n", tui_fmt_rate(r->gbps, -1, t, sizeof t));
            if (r->tflops >= 0)
                at = append(b, n, at, "Arithmetic %s\n", tui_fmt_rate(-1, r->tflops, t, sizeof t));
            if (r->pct_peak_measured >= 0 || r->pct_peak_theory >= 0)
                at = append(b, n, at, "%s of the measured peak, %s of the datasheet peak\n",
                            tui_fmt_pct(r->pct_peak_measured, x1, sizeof x1),
                            tui_fmt_pct(r->pct_peak_theory, x2, sizeof x2));
            at = append(b, n, at, "Speedup: %s over the CPU, %s over the multi-threaded CPU, %s over the library\n",
                        tui_fmt_speedup(r->speedup_cpu, x1, sizeof x1),
                        tui_fmt_speedup(r->speedup_cpu_mt, x2, sizeof x2),
                        tui_fmt_speedup(r->speedup_lib, x3, sizeof x3));
        }
        if (r->kind == RK_CPU || r->kind == RK_CPU_MT)
            at = append(b, n, at, "CPU threads: %d\n", r->threads);
        if (r->status != RS_ERROR && r->status != RS_FAULT)
            at = append(b, n, at, "Relative error %.3g against the double-precision reference\n", r->rel_err);
        for (int k = 0; k < r->nmismatch && k < PROTO_MAX_MISMATCH; k++)
            at = append(b, n, at, "  element %lld: got %.9g, expected %.9g\n", (long long)r->mismatches[k].index,
                        r->mismatches[k].got, r->mismatches[k].expected);
        if (r->seed)
            at = append(b, n, at, "Inputs from seed %llu\n", (unsigned long long)r->seed);
        if (r->message[0] && !compile_failure(row, NULL, NULL))
            at = append(b, n, at, "%s\n", r->message);
    }
    if (row_failed(row)) {
        diag_input in;
        diagnosis d;
        char cfile[256];
        const char *log = a->ls[a->sel].compile_log;
        diag_input_init(&in);
        if (row->has_result)
            diag_input_from_result(&in, r);
        if (row->state == ROW_FAULT) {
            in.fault_cause = row->fault_cause[0] ? row->fault_cause : "exit";
            in.fault_message = row->note;
        }
        in.problem = l->problem;
        in.time_limit_s = a->time_limit_s > 0 ? a->time_limit_s : l->time_limit_s;
        compile_failure(row, &in, cfile);
        diagnose(&in, &d);
        if (d.cause != DIAG_NONE) {
            at = append(b, n, at, "\n%s\n", d.title);
            if (d.where[0])
                at = append(b, n, at, "at %s\n", d.where);
            if (d.cause == DIAG_COMPILE && log[0])
                at = append(b, n, at, "\nWhat the compiler said:\n%s\n", log);
            if (d.explanation[0])
                at = append(b, n, at, "%s\n", d.explanation);
            if (d.next_step[0])
                at = append(b, n, at, "Next: %s\n", d.next_step);
        }
        if (row->kind == RK_EXERCISE && log[0] && d.cause != DIAG_COMPILE)
            at = append(b, n, at, "\nWhat the compiler said:\n%s", log);
    }
    if (a->ls[a->sel].ncu_text[0] && strcmp(a->ls[a->sel].ncu_variant, row->variant) == 0 &&
        strcmp(a->ls[a->sel].ncu_size, row->size) == 0)
        at = append(b, n, at, "\n%s", a->ls[a->sel].ncu_text);
    (void)at;
}

static unsigned row_details(tui_app *a)
{
    const tui_row *row = cursor_row(a);
    const lab *l = tui_app_lab(a);
    if (!row || !l)
        return 0;
    describe_row(a, l, row);
    a->details_md = false;
    a->details_scroll = 0;
    a->overlay = TUI_OV_DETAILS;
    return TUI_F_REDRAW;
}

/* A profiling run starts: each experiment's rows (or its own row while
 * it has none) and, with the exercise, the pipeline's rows are queued. */
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
    if (req->exercise_kernel[0]) {
        tui_runtable_forget_skipped(&s->table, size);
        if (req->cpu) {
            tui_runtable_expect(&s->table, "cpu", "cpu", RK_CPU, size, NULL);
            a->run_rows++;
        }
        tui_runtable_expect(&s->table, "starter", NULL, RK_KERNEL, size, NULL);
        tui_runtable_expect(&s->table, "exercise", NULL, RK_EXERCISE, size, NULL);
        a->run_rows += 2;
    }
    tui_log_add(&a->log, TUI_LOG_INFO, "run %d: %s%s%s (Esc cancels)", req->run, req->lab,
                req->nvariants > 0 ? (req->exercise_kernel[0] ? ": the experiments, then your pipeline at " : ": experiments")
                                   : ": your pipeline at ",
                req->exercise_kernel[0] ? size : "");
}

void tui_app_run_started(tui_app *a, const run_request *req)
{
    tui_labstate *s;
    const char *size = req->nsizes > 0 ? req->sizes[0] : "";
    size_t li = a->sel;
    a->req.kind = TUI_REQ_NONE;
    for (size_t i = 0; a->labs && i < a->labs->n; i++)
        if (strcmp(a->labs->v[i]->id, req->lab) == 0)
            li = i;
    if (!a->labs || li >= a->labs->n)
        return;
    s = &a->ls[li];
    a->running = true;
    a->run_id = req->run;
    a->run_lab = li;
    copy_str(a->run_size, sizeof a->run_size, size);
    a->run_rows = 0;
    a->run_rows_done = 0;
    s->compile_log[0] = '\0';
    if (tui_prof_lab(a->labs->v[li])) {
        started_profiling(a, s, req);
        return;
    }
    for (int z = 0; z < req->nsizes; z++) {
        tui_runtable_forget_skipped(&s->table, req->sizes[z]);
        if (req->cpu) {
            tui_runtable_expect(&s->table, "cpu", "cpu", RK_CPU, req->sizes[z], NULL);
            a->run_rows++;
        }
        if (req->library[0]) {
            tui_runtable_expect(&s->table, req->library, req->library, RK_LIBRARY, req->sizes[z], NULL);
            a->run_rows++;
        }
        for (int v = 0; v < req->nvariants; v++) {
            tui_runtable_expect(&s->table, req->variants[v].id, NULL, RK_KERNEL, req->sizes[z], NULL);
            a->run_rows++;
        }
        if (req->exercise_kernel[0]) {
            tui_runtable_expect(&s->table, "exercise", NULL, RK_EXERCISE, req->sizes[z], NULL);
            a->run_rows++;
        }
    }
    tui_log_add(&a->log, TUI_LOG_INFO, "run %d: %s at size %s (Esc cancels)", req->run, req->lab, size);
}

void tui_app_run_failed(tui_app *a, const char *why)
{
    a->req.kind = TUI_REQ_NONE;
    tui_log_add(&a->log, TUI_LOG_ERROR, "cannot start the run: %s", why);
}

unsigned tui_app_on_worker_lost(tui_app *a, const char *why)
{
    a->dev_known = true;
    a->dev_lost = true;
    memset(&a->dev, 0, sizeof a->dev);
    copy_str(a->dev.reason, sizeof a->dev.reason, why);
    tui_log_add(&a->log, TUI_LOG_ERROR, "the GPU worker is not running: %s", why);
    return TUI_F_REDRAW;
}

unsigned tui_app_on_hello(tui_app *a, const device_info *dev)
{
    bool first = !a->dev_known || a->dev_lost;
    a->dev_known = true;
    a->dev_lost = false;
    a->dev = *dev;
    if (first && !dev->present) {
        const char *r = dev->reason;
        if (strncmp(r, "no CUDA device found", 20) == 0)
            tui_log_add(&a->log, TUI_LOG_WARN, "%s", r);
        else
            tui_log_add(&a->log, TUI_LOG_WARN, "no CUDA device found: %s", r[0] ? r : "reason unknown");
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
static bool awaited(tui_labstate *s, const char *variant, const char *size)
{
    const tui_row *row = tui_runtable_find(&s->table, variant, size);
    return row && (row->state == ROW_QUEUED || row->state == ROW_RUNNING);
}

/* In the profiling lab a measurement's row takes the place of its
 * experiment's own row. */
static void drop_placeholder(tui_app *a, tui_labstate *s, const char *variant)
{
    const char *x;
    tui_row *ph;
    if (!tui_prof_lab(a->labs->v[a->run_lab]) || !(x = tui_prof_experiment(variant)) || strcmp(x, variant) == 0)
        return;
    ph = tui_runtable_find(&s->table, x, "");
    if (!ph)
        return;
    if ((ph->state == ROW_QUEUED || ph->state == ROW_RUNNING) && a->run_rows > 0)
        a->run_rows--;
    tui_runtable_remove(&s->table, x, "");
}

unsigned tui_app_on_progress(tui_app *a, const run_progress *p)
{
    tui_labstate *s = run_state(a, p->run);
    if (!s)
        return 0;
    drop_placeholder(a, s, p->variant);
    if (!awaited(s, p->variant, p->size))
        a->run_rows++;
    tui_runtable_progress(&s->table, p, a->labs->v[a->run_lab]->library, NULL);
    return TUI_F_REDRAW;
}

unsigned tui_app_on_result(tui_app *a, const run_result *r)
{
    tui_labstate *s = run_state(a, r->run);
    if (!s)
        return 0;
    drop_placeholder(a, s, r->variant);
    if (!awaited(s, r->variant, r->size))
        a->run_rows++;
    tui_runtable_result(&s->table, r, NULL);
    a->run_rows_done++;
    if ((r->status == RS_ERROR || r->status == RS_FAULT) &&
        strncmp(r->message, "no CUDA device found", 20) == 0)
        tui_log_add(&a->log, TUI_LOG_WARN, "%s", r->message);   /* once, counted */
    else if (r->status == RS_ERROR || r->status == RS_FAULT)
        tui_log_add(&a->log, TUI_LOG_ERROR, "%s: %s", r->label[0] ? r->label : r->variant,
                    r->message[0] ? r->message : result_status_name(r->status));
    tui_app_eval(a, a->run_lab);
    return TUI_F_REDRAW;
}

/* True for a compiler's "file:line:col: error: ..." diagnostic. */
static bool is_diagnostic(const char *msg)
{
    const char *c = strchr(msg, ':');
    return c && c > msg && (strstr(msg, ": error: ") || strstr(msg, ": warning: "));
}

unsigned tui_app_on_log(tui_app *a, int level, const char *msg)
{
    char path[TUI_TL_PATH_MAX];
    if (experiments_timeline_path(msg, path, sizeof path)) {
        copy_str(a->tl_path, sizeof a->tl_path, path);
        a->tl_stale = true;
        tui_log_add(&a->log, TUI_LOG_INFO, "%s (t shows it)", msg);
        return TUI_F_REDRAW;
    }
    if (a->running && level >= 1 && a->labs && a->run_lab < a->labs->n && is_diagnostic(msg)) {
        tui_labstate *s = &a->ls[a->run_lab];
        size_t len = strlen(s->compile_log);
        if (len + strlen(msg) + 2 < sizeof s->compile_log)
            snprintf(s->compile_log + len, sizeof s->compile_log - len, "%s\n", msg);
    }
    tui_log_add(&a->log, level >= 2 ? TUI_LOG_ERROR : level == 1 ? TUI_LOG_WARN : TUI_LOG_INFO, "%s", msg);
    return TUI_F_REDRAW;
}

unsigned tui_app_on_fault(tui_app *a, const run_fault *f)
{
    tui_labstate *s = run_state(a, f->run);
    if (strcmp(f->cause, "cancelled") == 0) {
        tui_log_add(&a->log, TUI_LOG_INFO, "run %d cancelled", f->run);
    } else {
        tui_log_add(&a->log, TUI_LOG_ERROR, "worker fault (%s)%s%s: %s; the next run starts a fresh worker",
                    f->cause, f->variant[0] ? " in " : "", f->variant, f->message);
    }
    if (s && strcmp(f->cause, "cancelled") != 0)
        tui_runtable_fault(&s->table, f, a->run_size);
    return TUI_F_REDRAW;
}

unsigned tui_app_on_done(tui_app *a, int run)
{
    tui_labstate *s = run_state(a, run);
    unsigned f = TUI_F_REDRAW;
    if (!s)
        return 0;
    tui_runtable_finish(&s->table, "not run: the run ended first");
    a->running = false;
    tui_app_eval(a, a->run_lab);
    if (a->rerun_lab) {
        size_t i = a->rerun_lab - 1;
        a->rerun_lab = 0;
        if (i == a->sel)
            f |= request_run(a, RUN_EXERCISE);
    }
    return f;
}

unsigned tui_app_exercise_saved(tui_app *a, size_t i, const char *file)
{
    const char *base;
    if (!a->labs || i >= a->labs->n || !a->labs->v[i]->exercise.kernel)
        return 0;
    base = strrchr(file, '/');
    base = base ? base + 1 : file;
    if (i != a->sel) {
        tui_log_add(&a->log, TUI_LOG_INFO, "%s saved (lab %s): select the lab and press r to run it",
                    base, a->labs->v[i]->id);
        return TUI_F_REDRAW;
    }
    if (a->running) {
        a->rerun_lab = i + 1;
        tui_log_add(&a->log, TUI_LOG_INFO, "%s saved: your kernel runs when this run ends", base);
        return TUI_F_REDRAW;
    }
    tui_log_add(&a->log, TUI_LOG_INFO, "%s saved: compiling and running your kernel", base);
    return request_run(a, RUN_EXERCISE);
}

/* ---- the timeline and the roofline ------------------------------------------- */

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
    if (strstr(path, TUI_SAMPLE_TIMELINE))
        tui_log_add(&a->log, TUI_LOG_INFO, "this timeline was recorded on an NVIDIA H200 and ships "
                                           "with cudalab; the profiling lab's R records your GPU's");
    return true;
}

static unsigned timeline_open(tui_app *a)
{
    if (!timeline_ready(a))
        return TUI_F_REDRAW;
    a->overlay = TUI_OV_TIMELINE;
    a->tl_serial = a->log.serial;
    return TUI_F_REDRAW;
}

/* Where an exported trace goes: the profiling lab's workspace folder, or
 * <workspace>/timelines when no lab profiles. */
static bool export_dir(const tui_app *a, char *dir, size_t n, cl_err *e)
{
    char ws[CL_PATH_MAX];
    const char *id = "timelines";
    for (size_t i = 0; a->labs && i < a->labs->n; i++)
        if (tui_prof_lab(a->labs->v[i]))
            id = a->labs->v[i]->id;
    if (a->workspace)
        copy_str(ws, sizeof ws, a->workspace);
    else if (!paths_workspace(ws, sizeof ws, e))
        return false;
    if (!paths_join(dir, n, ws, id))
        return err_set(e, "the workspace path is too long");
    return true;
}

static unsigned timeline_export(tui_app *a)
{
    char dir[CL_PATH_MAX], path[CL_PATH_MAX + 64], stamp[32];
    time_t now = time(NULL);
    struct tm tmv;
    struct stat st;
    cl_err e;
    if (!timeline_ready(a))
        return TUI_F_REDRAW;
    err_clear(&e);
    if (!export_dir(a, dir, sizeof dir, &e) || !paths_mkdir_p(dir, &e)) {
        tui_log_add(&a->log, TUI_LOG_ERROR, "cannot write the trace: %s", e.msg);
        return TUI_F_REDRAW;
    }
    localtime_r(&now, &tmv);
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tmv);
    snprintf(path, sizeof path, "%s/timeline-%s.json", dir, stamp);
    for (int k = 2; stat(path, &st) == 0 && k < 100; k++)
        snprintf(path, sizeof path, "%s/timeline-%s-%d.json", dir, stamp, k);
    if (!trace_write(&a->tl.t, path, &e)) {
        tui_log_add(&a->log, TUI_LOG_ERROR, "cannot write the trace: %s", e.msg);
        return TUI_F_REDRAW;
    }
    tui_log_add(&a->log, TUI_LOG_INFO, "trace written to %s: open it in ui.perfetto.dev or chrome://tracing",
                path);
    return TUI_F_REDRAW;
}

static unsigned timeline_key(tui_app *a, const tui_layout *lay, tui_action act)
{
    int w = tui_timeline_plot_width(lay->view.w);
    switch (act) {
    case TA_ZOOM_IN: tui_timeline_zoom(&a->tl, 2.0, w); break;
    case TA_ZOOM_OUT: tui_timeline_zoom(&a->tl, 0.5, w); break;
    case TA_LEFT: tui_timeline_pan(&a->tl, -(w / 8 > 1 ? w / 8 : 1), w); break;
    case TA_RIGHT: tui_timeline_pan(&a->tl, w / 8 > 1 ? w / 8 : 1, w); break;
    case TA_PAGE_UP: tui_timeline_pan(&a->tl, -w, w); break;
    case TA_PAGE_DOWN: tui_timeline_pan(&a->tl, w, w); break;
    case TA_UP: tui_timeline_lane(&a->tl, -1, w); break;
    case TA_DOWN: tui_timeline_lane(&a->tl, 1, w); break;
    case TA_NEXT_PANE: tui_timeline_step(&a->tl, 1, w); break;
    case TA_PREV_PANE: tui_timeline_step(&a->tl, -1, w); break;
    case TA_ENTER: tui_timeline_focus(&a->tl, w); break;
    case TA_HOME: case TA_END: tui_timeline_reset(&a->tl); break;
    case TA_EXPORT: return timeline_export(a);
    case TA_ROOFLINE:
        a->overlay = TUI_OV_ROOFLINE;
        a->roof_scroll = 0;
        break;
    case TA_HELP:
        a->help_back = TUI_OV_TIMELINE;
        a->overlay = TUI_OV_HELP;
        a->help_scroll = 0;
        break;
    case TA_CANCEL: case TA_QUIT: case TA_TIMELINE:
        a->overlay = TUI_OV_NONE;
        break;
    default:
        return 0;
    }
    return TUI_F_REDRAW;
}

static unsigned roofline_key(tui_app *a, tui_action act)
{
    switch (act) {
    case TA_UP: a->roof_scroll--; break;
    case TA_DOWN: a->roof_scroll++; break;
    case TA_PAGE_UP: a->roof_scroll -= 5; break;
    case TA_PAGE_DOWN: a->roof_scroll += 5; break;
    case TA_HOME: a->roof_scroll = 0; break;
    case TA_TIMELINE: return timeline_open(a);
    case TA_EXPORT: return timeline_export(a);
    case TA_HELP:
        a->help_back = TUI_OV_ROOFLINE;
        a->overlay = TUI_OV_HELP;
        a->help_scroll = 0;
        break;
    case TA_CANCEL: case TA_QUIT: case TA_ROOFLINE: case TA_ENTER:
        a->overlay = TUI_OV_NONE;
        break;
    default:
        return 0;
    }
    if (a->roof_scroll < 0)
        a->roof_scroll = 0;
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
        copy_str(r->args[r->nargs++], sizeof r->args[0], s);
}

/* The regular expression naming the learner's kernels, read from the
 * kernel file; false when the file has none. */
static bool exercise_regex(const tui_app *a, const lab *l, char *out, size_t n)
{
    char kernel[PROTO_PATH_MAX], launcher[PROTO_PATH_MAX];
    FILE *f;
    char *src;
    long len;
    bool ok = false;
    if (!tui_app_exercise_paths(a, l, kernel, launcher, sizeof kernel) || !(f = fopen(kernel, "r")))
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

static unsigned ncu_key(tui_app *a)
{
    const lab *l = tui_app_lab(a);
    const tui_row *row = cursor_row(a);
    tui_request *r = &a->req;
    const char *kernel = NULL;
    if (!l)
        return 0;
    if (!row) {
        tui_log_add(&a->log, TUI_LOG_WARN, "select a row of the run table first (Tab moves there)");
        return TUI_F_REDRAW;
    }
    if (job_busy(a))
        return TUI_F_REDRAW;
    memset(r, 0, sizeof *r);
    if (tui_prof_lab(l)) {
        const char *x = tui_prof_experiment(row->variant);
        if (!x) {
            tui_log_add(&a->log, TUI_LOG_WARN, "Nsight Compute here looks inside the experiments' kernels; "
                                               "for your pipeline, the timeline (t) and `cudalab report %s` "
                                               "show where its time goes", l->id);
            return TUI_F_REDRAW;
        }
        kernel = tui_prof_kernel(row->variant);
        if (!kernel) {
            tui_log_add(&a->log, TUI_LOG_WARN, "%s times copies, not a kernel: the timeline (t) shows them",
                        row->label);
            return TUI_F_REDRAW;
        }
        copy_str(r->kernel, sizeof r->kernel, kernel);
        req_arg(r, "profile");
        req_arg(r, x);
    } else if (row->kind == RK_KERNEL) {
        for (size_t v = 0; v < l->nvariants; v++)
            if (strcmp(l->variants[v].id, row->variant) == 0)
                kernel = l->variants[v].kernel;
        if (!kernel) {
            tui_log_add(&a->log, TUI_LOG_WARN, "%s names no shipped kernel", row->label);
            return TUI_F_REDRAW;
        }
        copy_str(r->kernel, sizeof r->kernel, kernel);
        req_arg(r, "run");
        req_arg(r, l->id);
        req_arg(r, "--variant");
        req_arg(r, row->variant);
        req_arg(r, "--size");
        req_arg(r, row->size);
        req_arg(r, "--no-cpu");
    } else if (row->kind == RK_EXERCISE) {
        if (!exercise_regex(a, l, r->kernel, sizeof r->kernel)) {
            tui_log_add(&a->log, TUI_LOG_WARN, "no __global__ function found in your kernel file (e edits it)");
            return TUI_F_REDRAW;
        }
        req_arg(r, "run");
        req_arg(r, l->id);
        req_arg(r, "--exercise");
        if (l->nvariants > 0) {
            req_arg(r, "--variant");
            req_arg(r, l->variants[0].id);
        }
        req_arg(r, "--size");
        req_arg(r, row->size);
        req_arg(r, "--no-cpu");
    } else {
        tui_log_add(&a->log, TUI_LOG_WARN, "%s runs no kernel of cudalab's: select a shipped kernel or "
                                           "your kernel", row->label);
        return TUI_F_REDRAW;
    }
    req_arg(r, "--budget");
    req_arg(r, "0.05");
    r->kind = TUI_REQ_NCU;
    r->lab = a->sel;
    copy_str(r->variant, sizeof r->variant, row->variant);
    copy_str(r->size, sizeof r->size, row->size);
    return TUI_F_REQUEST | TUI_F_REDRAW;
}

static unsigned sanitize_key(tui_app *a, bool racecheck)
{
    const lab *l = tui_app_lab(a);
    if (!l)
        return 0;
    if (!l->exercise.kernel) {
        tui_log_add(&a->log, TUI_LOG_WARN, "lab '%s' has no exercise to check", l->id);
        return TUI_F_REDRAW;
    }
    if (job_busy(a))
        return TUI_F_REDRAW;
    memset(&a->req, 0, sizeof a->req);
    a->req.kind = TUI_REQ_SANITIZE;
    a->req.lab = a->sel;
    a->req.racecheck = racecheck;
    copy_str(a->req.variant, sizeof a->req.variant, "exercise");
    return TUI_F_REQUEST | TUI_F_REDRAW;
}

void tui_app_job_started(tui_app *a)
{
    const tui_request *r = &a->req;
    a->job = r->kind == TUI_REQ_NCU ? TUI_JOB_NCU : TUI_JOB_SANITIZE;
    a->job_lab = r->lab;
    copy_str(a->job_variant, sizeof a->job_variant, r->variant);
    copy_str(a->job_size, sizeof a->job_size, r->size);
    if (a->job == TUI_JOB_NCU) {
        snprintf(a->job_what, sizeof a->job_what, "Nsight Compute on %s", r->kernel);
        tui_log_add(&a->log, TUI_LOG_INFO, "profiling with Nsight Compute: the first launch of %s (this takes a "
                    "while; Esc or c stops it)", r->kernel);
    } else {
        snprintf(a->job_what, sizeof a->job_what, "%s on your kernel", r->racecheck ? "racecheck" : "memcheck");
        tui_log_add(&a->log, TUI_LOG_INFO, "compute-sanitizer %s is checking your kernel once at the smallest "
                    "size (this takes a while; Esc or c stops it)", r->racecheck ? "racecheck" : "memcheck");
    }
    a->req.kind = TUI_REQ_NONE;
}

/* Shows text in the details window unless another window is open. */
static void show_details(tui_app *a, const char *title, const char *text)
{
    if (a->overlay != TUI_OV_NONE && a->overlay != TUI_OV_DETAILS)
        return;
    copy_str(a->details_title, sizeof a->details_title, title);
    copy_str(a->details, sizeof a->details, text);
    a->details_md = false;
    a->details_scroll = 0;
    a->overlay = TUI_OV_DETAILS;
}

unsigned tui_app_job_failed(tui_app *a, const char *why)
{
    bool ncu = a->req.kind == TUI_REQ_NCU;
    a->req.kind = TUI_REQ_NONE;
    tui_log_add(&a->log, TUI_LOG_ERROR, "%s", why);
    show_details(a, ncu ? "Nsight Compute" : "compute-sanitizer", why);
    return TUI_F_REDRAW;
}

unsigned tui_app_on_job(tui_app *a, const char *out, int status)
{
    tui_job_kind kind = a->job;
    bool ok = strncmp(out, "OK\n", 3) == 0;
    const char *text = ok || strncmp(out, "ERR\n", 4) == 0 ? out + (ok ? 3 : 4) : out;
    char title[160], line[256];
    a->job = TUI_JOB_NONE;
    if (kind == TUI_JOB_NONE)
        return 0;
    if (!ok && !text[0]) {
        snprintf(line, sizeof line, "%s stopped before it answered (%s %d)", a->job_what,
                 status > 128 ? "signal" : "exit status", status > 128 ? status - 128 : status);
        text = line;
    }
    if (kind == TUI_JOB_NCU && ok && a->labs && a->job_lab < a->labs->n) {
        tui_labstate *s = &a->ls[a->job_lab];
        tui_row *row;
        copy_str(s->ncu_variant, sizeof s->ncu_variant, a->job_variant);
        copy_str(s->ncu_size, sizeof s->ncu_size, a->job_size);
        copy_str(s->ncu_text, sizeof s->ncu_text, text);
        tui_log_add(&a->log, TUI_LOG_INFO, "Nsight Compute: done (Enter on the row shows its metrics)");
        row = tui_runtable_find(&s->table, a->job_variant, a->job_size);
        if (row && a->job_lab == a->sel && (a->overlay == TUI_OV_NONE || a->overlay == TUI_OV_DETAILS)) {
            describe_row(a, a->labs->v[a->job_lab], row);
            a->details_md = false;
            a->details_scroll = 0;
            a->overlay = TUI_OV_DETAILS;
        } else {
            show_details(a, "Nsight Compute", text);
        }
        return TUI_F_REDRAW;
    }
    if (kind == TUI_JOB_NCU) {
        tui_log_add(&a->log, TUI_LOG_ERROR, "Nsight Compute: %s", text);
        show_details(a, "Nsight Compute", text);
        return TUI_F_REDRAW;
    }
    snprintf(title, sizeof title, "%s", a->job_what);
    if (ok) {
        const char *nl = strchr(text, '\n');
        const char *found = strstr(text, "\n\n");
        size_t len;
        found = found ? found + 2 : (nl ? nl + 1 : text);
        len = strcspn(found, "\n");
        snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line ? len : sizeof line - 1), found);
        tui_log_add(&a->log, strstr(line, "no problems") ? TUI_LOG_INFO : TUI_LOG_WARN, "%s", line);
    } else {
        tui_log_add(&a->log, TUI_LOG_ERROR, "%s", text);
    }
    show_details(a, title, text);
    return TUI_F_REDRAW;
}

/* ---- input ----------------------------------------------------------------- */

static unsigned help_key(tui_app *a, const tui_layout *lay, tui_action act)
{
    int page = lay->help.h - 4;
    switch (act) {
    case TA_UP: a->help_scroll--; break;
    case TA_DOWN: a->help_scroll++; break;
    case TA_PAGE_UP: a->help_scroll -= page; break;
    case TA_PAGE_DOWN: a->help_scroll += page; break;
    case TA_HOME: a->help_scroll = 0; break;
    case TA_HELP: case TA_CANCEL: case TA_QUIT: case TA_ENTER:
        a->overlay = a->help_back;
        a->help_back = TUI_OV_NONE;
        break;
    default:
        return 0;
    }
    if (a->help_scroll < 0)
        a->help_scroll = 0;
    return TUI_F_REDRAW;
}

/* Reveals the next hint; the details window shows the newest first, then
 * the ones before it. */
static unsigned show_hint(tui_app *a, const lab *l, tui_labstate *s)
{
    size_t n = l->exercise.nhints, at = 0;
    if (n == 0) {
        tui_log_add(&a->log, TUI_LOG_INFO, "lab '%s' has no hints", l->id);
        return TUI_F_REDRAW;
    }
    if (s->hints_shown < n)
        s->hints_shown++;
    snprintf(a->details_title, sizeof a->details_title, "Hint %zu of %zu", s->hints_shown, n);
    a->details[0] = '\0';
    for (size_t k = s->hints_shown; k > 0; k--) {
        at = append(a->details, sizeof a->details, at, "%s**Hint %zu.** %s\n",
                    k == s->hints_shown ? "" : "\n---\n", k, l->exercise.hints[k - 1]);
    }
    if (s->hints_shown < n)
        append(a->details, sizeof a->details, at, "\n*H shows the next hint.*\n");
    a->details_md = true;
    a->details_scroll = 0;
    a->overlay = TUI_OV_DETAILS;
    return TUI_F_REDRAW;
}

static unsigned details_key(tui_app *a, const tui_layout *lay, tui_action act)
{
    int page = lay->help.h - 3;
    switch (act) {
    case TA_UP: a->details_scroll--; break;
    case TA_DOWN: a->details_scroll++; break;
    case TA_PAGE_UP: a->details_scroll -= page; break;
    case TA_PAGE_DOWN: a->details_scroll += page; break;
    case TA_HOME: a->details_scroll = 0; break;
    case TA_CANCEL: case TA_QUIT: case TA_ENTER: case TA_HELP:
        a->overlay = TUI_OV_NONE;
        break;
    case TA_HINT:
        if (a->details_md && tui_app_lab(a))
            return show_hint(a, tui_app_lab(a), tui_app_state(a));
        return 0;
    default:
        return 0;
    }
    if (a->details_scroll < 0)
        a->details_scroll = 0;
    return TUI_F_REDRAW;
}

static unsigned exercise_key(tui_app *a, tui_action act)
{
    const lab *l = tui_app_lab(a);
    if (!l)
        return 0;
    if (act == TA_HINT)
        return show_hint(a, l, tui_app_state(a));
    if (!l->exercise.kernel) {
        tui_log_add(&a->log, TUI_LOG_WARN, "lab '%s' has no exercise to %s", l->id,
                    act == TA_EDIT ? "edit" : "reset");
        return TUI_F_REDRAW;
    }
    if (act == TA_RESET) {
        a->overlay = TUI_OV_CONFIRM_RESET;
        return TUI_F_REDRAW;
    }
    memset(&a->req, 0, sizeof a->req);
    a->req.kind = TUI_REQ_EDIT;
    a->req.lab = a->sel;
    return TUI_F_REQUEST | TUI_F_REDRAW;
}

static unsigned quiz_key(tui_app *a, tui_action act)
{
    const lab *l = tui_app_lab(a);
    size_t nch = l && a->quiz_q < l->nquizzes ? l->quizzes[a->quiz_q].nchoices : 0;
    switch (act) {
    case TA_UP: case TA_LEFT:
        if (a->quiz_cursor > 0)
            a->quiz_cursor--;
        return TUI_F_REDRAW;
    case TA_DOWN: case TA_RIGHT:
        if (a->quiz_cursor + 1 < nch)
            a->quiz_cursor++;
        return TUI_F_REDRAW;
    case TA_ENTER: case TA_PAGE_DOWN:
        return quiz_answer(a);
    case TA_CANCEL: case TA_QUIT:
        a->overlay = TUI_OV_NONE;
        return TUI_F_REDRAW;
    default:
        return 0;
    }
}

static unsigned pane_key(tui_app *a, const tui_layout *lay, tui_action act)
{
    tui_labstate *s = tui_app_state(a);
    int page;
    if (!s)
        return 0;
    switch (a->focus) {
    case TUI_P_LABS:
        page = labs_visible(lay);
        switch (act) {
        case TA_UP: return lab_select(a, lay, (long)a->sel - 1);
        case TA_DOWN: return lab_select(a, lay, (long)a->sel + 1);
        case TA_PAGE_UP: return lab_select(a, lay, (long)a->sel - page);
        case TA_PAGE_DOWN: return lab_select(a, lay, (long)a->sel + page);
        case TA_HOME: return lab_select(a, lay, 0);
        case TA_END: return lab_select(a, lay, (long)a->labs->n - 1);
        case TA_ENTER: case TA_RIGHT:
            a->focus = TUI_P_LESSON;
            return TUI_F_REDRAW;
        default: return 0;
        }
    case TUI_P_LESSON:
        page = lesson_visible(lay) - 1;
        switch (act) {
        case TA_UP: lesson_scroll(a, lay, -1, false); return TUI_F_REDRAW;
        case TA_DOWN: lesson_scroll(a, lay, 1, false); return TUI_F_REDRAW;
        case TA_PAGE_UP: lesson_scroll(a, lay, -page, false); return TUI_F_REDRAW;
        case TA_PAGE_DOWN: lesson_scroll(a, lay, page, false); return TUI_F_REDRAW;
        case TA_HOME: lesson_scroll(a, lay, 0, true); return TUI_F_REDRAW;
        case TA_END: lesson_scroll(a, lay, 1 << 20, true); return TUI_F_REDRAW;
        case TA_LEFT: return step_move(a, -1);
        case TA_RIGHT: case TA_ENTER: return step_move(a, 1);
        default: return 0;
        }
    case TUI_P_RUN:
        page = run_visible(lay);
        switch (act) {
        case TA_UP: return run_cursor_move(a, lay, (long)s->run_cursor - 1);
        case TA_DOWN: return run_cursor_move(a, lay, (long)s->run_cursor + 1);
        case TA_PAGE_UP: return run_cursor_move(a, lay, (long)s->run_cursor - page);
        case TA_PAGE_DOWN: return run_cursor_move(a, lay, (long)s->run_cursor + page);
        case TA_HOME: return run_cursor_move(a, lay, 0);
        case TA_END: return run_cursor_move(a, lay, VIEW_MAX);
        case TA_LEFT: return size_move(a, lay, -1);
        case TA_RIGHT: return size_move(a, lay, 1);
        case TA_ENTER: return row_details(a);
        default: return 0;
        }
    case TUI_P_MILESTONES:
        page = ms_visible(lay);
        switch (act) {
        case TA_UP: return ms_cursor_move(a, lay, (long)s->ms_cursor - 1);
        case TA_DOWN: return ms_cursor_move(a, lay, (long)s->ms_cursor + 1);
        case TA_PAGE_UP: return ms_cursor_move(a, lay, (long)s->ms_cursor - page);
        case TA_PAGE_DOWN: return ms_cursor_move(a, lay, (long)s->ms_cursor + page);
        case TA_HOME: return ms_cursor_move(a, lay, 0);
        case TA_END: return ms_cursor_move(a, lay, 1 << 20);
        case TA_ENTER: case TA_RIGHT: return ms_details(a);
        default: return 0;
        }
    default:
        return 0;
    }
}

unsigned tui_app_key(tui_app *a, const tui_layout *lay, tui_action act)
{
    if (act == TA_REFRESH)
        return TUI_F_REPAINT | TUI_F_REDRAW;
    switch (a->overlay) {
    case TUI_OV_HELP:
        return help_key(a, lay, act);
    case TUI_OV_QUIZ:
        return quiz_key(a, act);
    case TUI_OV_DETAILS:
        return details_key(a, lay, act);
    case TUI_OV_TIMELINE:
        return timeline_key(a, lay, act);
    case TUI_OV_ROOFLINE:
        return roofline_key(a, act);
    case TUI_OV_CONFIRM_QUIT:
        a->overlay = TUI_OV_NONE;
        if (act == TA_YES || act == TA_QUIT)
            return TUI_F_QUIT;
        return TUI_F_REDRAW;
    case TUI_OV_CONFIRM_RESET:
        a->overlay = TUI_OV_NONE;
        if (act == TA_YES) {
            memset(&a->req, 0, sizeof a->req);
            a->req.kind = TUI_REQ_RESET;
            a->req.lab = a->sel;
            return TUI_F_REQUEST | TUI_F_REDRAW;
        }
        return TUI_F_REDRAW;
    case TUI_OV_NONE:
        break;
    }
    if (lay->too_small)
        return act == TA_QUIT ? TUI_F_QUIT : 0;
    switch (act) {
    case TA_QUIT:
        if (a->running) {
            a->overlay = TUI_OV_CONFIRM_QUIT;
            return TUI_F_REDRAW;
        }
        return TUI_F_QUIT;
    case TA_HELP:
        a->overlay = TUI_OV_HELP;
        a->help_back = TUI_OV_NONE;
        a->help_scroll = 0;
        return TUI_F_REDRAW;
    case TA_NEXT_PANE:
        a->focus = (tui_pane_id)((a->focus + 1) % TUI_P_FOCUSABLE);
        return TUI_F_REDRAW;
    case TA_PREV_PANE:
        a->focus = (tui_pane_id)((a->focus + TUI_P_FOCUSABLE - 1) % TUI_P_FOCUSABLE);
        return TUI_F_REDRAW;
    case TA_NEXT_STEP:
        return step_move(a, 1);
    case TA_PREV_STEP:
        return step_move(a, -1);
    case TA_NEXT_SIZE:
        return size_move(a, lay, 1);
    case TA_PREV_SIZE:
        return size_move(a, lay, -1);
    case TA_RUN:
        return request_run(a, RUN_SELECTED);
    case TA_RUN_ALL:
        return request_run(a, RUN_ALL);
    case TA_CANCEL:
        return request_cancel(a);
    case TA_CHART:
        a->chart_swap = !a->chart_swap;
        return TUI_F_REDRAW;
    case TA_EDIT:
    case TA_RESET:
    case TA_HINT:
        return exercise_key(a, act);
    case TA_TIMELINE:
        return timeline_open(a);
    case TA_EXPORT:
        return timeline_export(a);
    case TA_ROOFLINE:
        a->overlay = TUI_OV_ROOFLINE;
        a->roof_scroll = 0;
        return TUI_F_REDRAW;
    case TA_NCU:
        return ncu_key(a);
    case TA_MEMCHECK:
    case TA_RACECHECK:
        return sanitize_key(a, act == TA_RACECHECK);
    default:
        return pane_key(a, lay, act);
    }
}

unsigned tui_app_mouse(tui_app *a, const tui_layout *lay, int y, int x, tui_mouse m)
{
    int p;
    tui_labstate *s = tui_app_state(a);
    tui_action wheel = m == TUI_MOUSE_WHEEL_UP ? TA_UP : TA_DOWN;
    if (a->overlay == TUI_OV_HELP && m != TUI_MOUSE_CLICK)
        return help_key(a, lay, wheel);
    if (a->overlay == TUI_OV_DETAILS && m != TUI_MOUSE_CLICK)
        return details_key(a, lay, wheel);
    if (a->overlay == TUI_OV_TIMELINE)
        return m == TUI_MOUSE_CLICK ? 0 : timeline_key(a, lay, m == TUI_MOUSE_WHEEL_UP ? TA_ZOOM_IN : TA_ZOOM_OUT);
    if (a->overlay == TUI_OV_ROOFLINE)
        return m == TUI_MOUSE_CLICK ? 0 : roofline_key(a, wheel);
    if (a->overlay != TUI_OV_NONE) {
        if (m == TUI_MOUSE_CLICK && a->overlay == TUI_OV_QUIZ && tui_rect_contains(lay->quiz, y, x))
            return 0;
        if (m == TUI_MOUSE_CLICK) {
            a->overlay = TUI_OV_NONE;
            return TUI_F_REDRAW;
        }
        return 0;
    }
    p = tui_layout_hit(lay, y, x);
    if (p < 0 || p >= TUI_P_FOCUSABLE || !s)
        return 0;
    if (m != TUI_MOUSE_CLICK) {
        tui_pane_id keep = a->focus;
        unsigned f;
        if (p == TUI_P_LESSON) {
            lesson_scroll(a, lay, wheel == TA_UP ? -3 : 3, false);
            return TUI_F_REDRAW;
        }
        a->focus = (tui_pane_id)p;
        f = pane_key(a, lay, wheel);
        a->focus = keep;
        return f;
    }
    a->focus = (tui_pane_id)p;
    switch (p) {
    case TUI_P_LABS: {
        int row = y - lay->pane[p].y - 1;
        if (row >= 0 && row < labs_visible(lay) && a->labs_scroll + row < (int)a->labs->n)
            lab_select(a, lay, a->labs_scroll + row);
        break;
    }
    case TUI_P_RUN: {
        int row = y - lay->run_table.y - 2;
        if (row >= 0 && tui_rect_contains(lay->run_table, y, x))
            run_cursor_move(a, lay, s->run_scroll + row);
        break;
    }
    case TUI_P_MILESTONES: {
        int row = (y - lay->pane[p].y - 1) / 2;
        const lab *l = tui_app_lab(a);
        if (y > lay->pane[p].y && l && s->ms_scroll + row < (int)l->nmilestones) {
            bool again = s->ms_cursor == (size_t)(s->ms_scroll + row);
            ms_cursor_move(a, lay, s->ms_scroll + row);
            if (again && l->milestones[s->ms_cursor].quiz)
                return quiz_open(a, s->ms_cursor);
        }
        break;
    }
    default:
        break;
    }
    return TUI_F_REDRAW;
}
