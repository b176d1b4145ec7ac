#include "lab/milestone.h"

#include <lauxlib.h>
#include <lua.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/problem_spec.h"
#include "lab/sandbox.h"

typedef struct eval_ctx {
    lab *l;
    int ref;
    const run_result *rs;
    size_t n;
} eval_ctx;

const char *ms_state_name(ms_state s)
{
    switch (s) {
    case MS_PENDING: return "pending";
    case MS_REACHED: return "reached";
    case MS_MISSED: return "missed";
    case MS_ERROR: return "error";
    }
    return "unknown";
}

/* One factor of a size label: 4096, 2^12 or 1<<12; -1 when unreadable. */
static double factor(const char *s, const char **end)
{
    char *p;
    double a = strtod(s, &p);
    if (p == s)
        return -1;
    while (*p == ' ')
        p++;
    if (*p == '^' || (p[0] == '<' && p[1] == '<')) {
        bool shift = *p == '<';
        p += shift ? 2 : 1;
        char *q;
        double b = strtod(p, &q);
        if (q == p)
            return -1;
        a = shift ? ldexp(a, (int)b) : pow(a, b);
        p = q;
    }
    while (*p == ' ')
        p++;
    *end = p;
    return a;
}

/* How big a size label is (product of its factors); -1 when unreadable. */
static double size_magnitude(const char *label)
{
    double m = 1;
    const char *p = label;
    for (;;) {
        double f = factor(p, &p);
        if (f < 0)
            return -1;
        m *= f;
        if (*p == '\0')
            return m;
        if (*p != 'x' && *p != 'X')
            return -1;
        p++;
    }
}

static void set_num(lua_State *L, const char *k, double v)
{
    lua_pushnumber(L, v);
    lua_setfield(L, -2, k);
}

static void set_str(lua_State *L, const char *k, const char *v)
{
    lua_pushstring(L, v);
    lua_setfield(L, -2, k);
}

/* Pushes one row as a table; values the engine marks unknown are nil. */
static void push_row(lua_State *L, const run_result *r)
{
    lua_createtable(L, 0, 24);
    set_str(L, "variant", r->variant);
    set_str(L, "label", r->label);
    set_str(L, "size", r->size);
    set_str(L, "kind", result_kind_name(r->kind));
    set_str(L, "status", result_status_name(r->status));
    lua_pushboolean(L, r->status == RS_CORRECT);
    lua_setfield(L, -2, "correct");
    set_str(L, "message", r->message);
    lua_pushinteger(L, r->run);
    lua_setfield(L, -2, "run");
    lua_pushinteger(L, r->samples);
    lua_setfield(L, -2, "samples");
    if (r->median_ms > 0) {
        set_num(L, "median_ms", r->median_ms);
        set_num(L, "min_ms", r->min_ms);
        set_num(L, "max_ms", r->max_ms);
        set_num(L, "spread", r->spread);
    }
    if (r->gbps >= 0)
        set_num(L, "gbps", r->gbps);
    if (r->tflops >= 0)
        set_num(L, "tflops", r->tflops);
    if (r->pct_peak_measured >= 0)
        set_num(L, "pct_peak", r->pct_peak_measured);
    if (r->pct_peak_theory >= 0)
        set_num(L, "pct_peak_theory", r->pct_peak_theory);
    if (r->speedup_cpu > 0)
        set_num(L, "speedup_cpu", r->speedup_cpu);
    if (r->speedup_cpu_mt > 0)
        set_num(L, "speedup_cpu_mt", r->speedup_cpu_mt);
    if (r->speedup_lib > 0)
        set_num(L, "speedup_lib", r->speedup_lib);
    if (r->speedup_starter > 0)
        set_num(L, "speedup_starter", r->speedup_starter);
    lua_pushboolean(L, r->has_report);
    lua_setfield(L, -2, "has_report");
    if (r->status == RS_CORRECT || r->status == RS_WRONG)
        set_num(L, "rel_err", r->rel_err);
    if (r->kind == RK_CPU || r->kind == RK_CPU_MT) {
        lua_pushinteger(L, r->threads);
        lua_setfield(L, -2, "threads");
    }
}

/* Index of the row of the given kind (and variant, when not NULL) at the
 * largest size; the later row wins a tie.  -1 when there is none. */
static long pick(const run_result *rs, size_t n, result_kind k, const char *variant)
{
    long best = -1;
    double bm = 0;
    for (size_t i = 0; i < n; i++) {
        if (rs[i].kind != k || (variant && strcmp(rs[i].variant, variant) != 0))
            continue;
        double m = size_magnitude(rs[i].size);
        if (best < 0 || m >= bm) {
            best = (long)i;
            bm = m;
        }
    }
    return best;
}

/* The row of kind k called variant at the largest size, else any row of
 * that kind (a problem with several rows of a kind, such as the
 * pipeline's one a step, names the main one "exercise", "cpu", ...). */
static long pick_named(const run_result *rs, size_t n, result_kind k, const char *variant)
{
    long i = pick(rs, n, k, variant);
    return i >= 0 ? i : pick(rs, n, k, NULL);
}

/* Sets field k of the table on top to row i (absolute index of r.all). */
static void set_row(lua_State *L, const char *k, int all, long i)
{
    if (i < 0)
        return;
    lua_rawgeti(L, all, (lua_Integer)i + 1);
    lua_setfield(L, -2, k);
}

/* (ctx) -> reached, value: builds r and calls the check function. */
static int eval_main(lua_State *L)
{
    eval_ctx *c = lua_touserdata(L, 1);
    luaL_checkstack(L, 16, "milestone check");
    lua_createtable(L, 0, 6);                              /* ctx r */
    int r = lua_gettop(L);
    lua_createtable(L, (int)(c->n < 1000000 ? c->n : 1000000), 0);
    int all = lua_gettop(L);
    for (size_t i = 0; i < c->n; i++) {
        push_row(L, &c->rs[i]);
        lua_rawseti(L, all, (lua_Integer)i + 1);
    }
    lua_pushvalue(L, r);                                   /* ctx r all r */
    set_row(L, "exercise", all, pick_named(c->rs, c->n, RK_EXERCISE, "exercise"));
    set_row(L, "library", all, pick(c->rs, c->n, RK_LIBRARY, NULL));
    set_row(L, "cpu", all, pick_named(c->rs, c->n, RK_CPU, "cpu"));
    set_row(L, "cpu_mt", all, pick_named(c->rs, c->n, RK_CPU_MT, "cpu_mt"));
    lua_newtable(L);                                       /* ctx r all r exercises */
    for (size_t i = 0; i < c->n; i++) {
        if (c->rs[i].kind != RK_EXERCISE)
            continue;
        bool seen = lua_getfield(L, -1, c->rs[i].variant) != LUA_TNIL;
        lua_pop(L, 1);
        if (!seen)
            set_row(L, c->rs[i].variant, all, pick(c->rs, c->n, RK_EXERCISE, c->rs[i].variant));
    }
    lua_setfield(L, -2, "exercises");
    lua_newtable(L);                                       /* ctx r all r variants */
    for (size_t i = 0; i < c->n; i++) {
        if (c->rs[i].kind != RK_KERNEL)
            continue;
        bool seen = lua_getfield(L, -1, c->rs[i].variant) != LUA_TNIL;
        lua_pop(L, 1);
        if (!seen)
            set_row(L, c->rs[i].variant, all, pick(c->rs, c->n, RK_KERNEL, c->rs[i].variant));
    }
    lua_setfield(L, -2, "variants");
    lua_pop(L, 1);                                         /* ctx r all */
    lua_setfield(L, r, "all");
    cl_err e;
    if (!sandbox_freeze(c->l->ls, &e))                     /* ctx view */
        return luaL_error(L, "%s", e.msg);
    lua_rawgeti(L, LUA_REGISTRYINDEX, c->ref);
    lua_insert(L, -2);
    lua_call(L, 1, 2);
    return 2;
}

/* The unit a target is written in: what follows its last digit (">= 100x"
 * -> "x", ">= 50%" -> "%"). */
static const char *target_unit(const char *target)
{
    const char *u = "";
    for (const char *p = target; p && *p; p++)
        if (*p >= '0' && *p <= '9')
            u = p + 1;
    return u;
}

static void format_value(double v, char *out, size_t n)
{
    double a = fabs(v);
    if (a >= 100 || a == floor(a))
        snprintf(out, n, "%.0f", v);
    else if (a >= 10)
        snprintf(out, n, "%.1f", v);
    else
        snprintf(out, n, "%.2f", v);
}

/* Rows a milestone judges: its exercise's (rows whose exercise id is the
 * one it names; the lab's own rows when it names none), at size when size
 * is not NULL.  A malloc'd copy (NULL when none), their count in *k. */
static run_result *rows_of(const lab *l, size_t i, const char *size, const run_result *rs,
                           size_t n, size_t *k)
{
    const char *ex = l->milestones[i].exercise ? l->milestones[i].exercise : "";
    run_result *at = n ? malloc(n * sizeof *at) : NULL;
    *k = 0;
    for (size_t j = 0; at && j < n; j++)
        if (strcmp(rs[j].exercise, ex) == 0 &&
            (!size || lab_milestone_same_size(l, i, rs[j].size, size)))
            at[(*k)++] = rs[j];
    return at;
}

static bool eval_rows(lab *l, size_t i, const run_result *rs, size_t n, ms_eval *out);

bool lab_milestone_eval(lab *l, size_t i, const run_result *rs, size_t n, ms_eval *out)
{
    if (!l || i >= l->nmilestones || l->milestones[i].quiz)
        return eval_rows(l, i, rs, n, out);
    size_t k = 0;
    run_result *mine = rows_of(l, i, NULL, rs, rs ? n : 0, &k);
    bool ok = eval_rows(l, i, mine, k, out);
    free(mine);
    return ok;
}

static bool eval_rows(lab *l, size_t i, const run_result *rs, size_t n, ms_eval *out)
{
    memset(out, 0, sizeof *out);
    out->state = MS_ERROR;
    if (!l || i >= l->nmilestones) {
        snprintf(out->error, sizeof out->error, "no milestone %zu", i);
        return false;
    }
    const lab_milestone *m = &l->milestones[i];
    if (m->quiz) {
        out->state = MS_PENDING;
        snprintf(out->shown, sizeof out->shown, "quiz");
        return true;
    }
    if (m->check_ref == LUA_NOREF || !l->ls) {
        snprintf(out->error, sizeof out->error, "%s:%d: milestone '%s' has no check function",
                 l->path, m->line, m->id);
        return false;
    }
    lua_State *L = sandbox_lua(l->ls);
    int top = lua_gettop(L);
    eval_ctx c = {.l = l, .ref = m->check_ref, .rs = rs, .n = rs ? n : 0};
    cl_err e;
    lua_pushcfunction(L, eval_main);
    lua_pushlightuserdata(L, &c);
    if (!sandbox_pcall(l->ls, 1, 2, &e)) {
        snprintf(out->error, sizeof out->error, "%s", e.msg);
        lua_settop(L, top);
        return false;
    }
    int vt = lua_type(L, -1);
    if (vt == LUA_TNUMBER) {
        out->value = lua_tonumber(L, -1);
        out->has_value = isfinite(out->value);
    } else if (vt != LUA_TNIL) {
        snprintf(out->error, sizeof out->error,
                 "%s:%d: milestone '%s': the check returned a %s as its value "
                 "(expected a number or nil)", l->path, m->line, m->id, lua_typename(L, vt));
        lua_settop(L, top);
        return false;
    }
    if (lua_isnil(L, -2))
        out->state = MS_PENDING;
    else
        out->state = lua_toboolean(L, -2) ? MS_REACHED : MS_MISSED;
    lua_settop(L, top);

    char v[48];
    if (out->has_value) {
        format_value(out->value, v, sizeof v);
        if (m->target)
            snprintf(out->shown, sizeof out->shown, "%s%s %s", v, target_unit(m->target), m->target);
        else
            snprintf(out->shown, sizeof out->shown, "%s", v);
    } else if (m->target) {
        snprintf(out->shown, sizeof out->shown, "%s", m->target);
    }
    return true;
}

/* The problem whose size syntax the lab's sizes use. */
static const problem_spec *size_spec(const lab *l)
{
    return problem_spec_of_exercise(l->problem);
}

const lab_exercise *lab_milestone_exercise(const lab *l, size_t i)
{
    if (!l || i >= l->nmilestones)
        return NULL;
    return lab_exercise_find(l, l->milestones[i].exercise);
}

/* The sizes milestone i is judged among, and their problem. */
static const problem_spec *judged_among(const lab *l, size_t i, char *const **sizes, size_t *n)
{
    if (l->milestones[i].exercise) {
        const lab_exercise *x = lab_milestone_exercise(l, i);
        *sizes = x ? x->sizes : NULL;
        *n = x ? x->nsizes : 0;
        return x ? problem_spec_find(x->problem) : NULL;
    }
    *sizes = l->sizes;
    *n = l->nsizes;
    return size_spec(l);
}

/* Bytes one run at label moves; -1 when unreadable. */
static double label_bytes(const problem_spec *spec, const char *label)
{
    problem_dims d;
    if (!spec || !label || !problem_parse_size(spec, label, &d, NULL))
        return -1;
    return spec->bytes(&d);
}

const char *lab_milestone_size(const lab *l, size_t i)
{
    if (!l || i >= l->nmilestones || l->milestones[i].quiz)
        return NULL;
    if (l->milestones[i].size)
        return l->milestones[i].size;
    char *const *sizes = NULL;
    size_t n = 0;
    const problem_spec *spec = judged_among(l, i, &sizes, &n);
    const char *best = NULL;
    double bb = -1;
    for (size_t k = 0; k < n; k++) {
        double b = label_bytes(spec, sizes[k]);
        if (!best || b > bb) {
            best = sizes[k];
            bb = b;
        }
    }
    return best;
}

/* Whether a and b mean the same size of spec's problem. */
static bool same_size(const problem_spec *spec, const char *a, const char *b)
{
    if (!a || !b)
        return false;
    if (strcmp(a, b) == 0)
        return true;
    problem_dims da, db;
    if (!spec || !problem_parse_size(spec, a, &da, NULL) || !problem_parse_size(spec, b, &db, NULL))
        return false;
    return da.n == db.n && da.M == db.M && da.N == db.N && da.K == db.K && da.T == db.T &&
           da.D == db.D && da.V == db.V && da.rows == db.rows && da.feats == db.feats;
}

bool lab_same_size(const lab *l, const char *a, const char *b)
{
    return same_size(size_spec(l), a, b);
}

bool lab_milestone_same_size(const lab *l, size_t i, const char *a, const char *b)
{
    if (!l || i >= l->nmilestones)
        return false;
    char *const *sizes = NULL;
    size_t n = 0;
    return same_size(judged_among(l, i, &sizes, &n), a, b);
}

bool lab_milestone_eval_judged(lab *l, size_t i, const run_result *rs, size_t n, ms_eval *out)
{
    const char *size = lab_milestone_size(l, i);
    if (!size)
        return lab_milestone_eval(l, i, rs, n, out);
    size_t k = 0;
    run_result *at = rows_of(l, i, size, rs, rs ? n : 0, &k);
    bool ok = eval_rows(l, i, at, k, out);
    free(at);
    return ok;
}

bool lab_milestone_eval_sized(lab *l, size_t i, const run_result *rs, size_t n, ms_eval *out,
                              ms_eval *aside, char *aside_size, size_t an)
{
    memset(aside, 0, sizeof *aside);
    aside->state = MS_PENDING;
    if (an)
        aside_size[0] = '\0';
    bool ok = lab_milestone_eval_judged(l, i, rs, n, out);
    const char *judged = lab_milestone_size(l, i);
    if (!ok || out->state != MS_PENDING || !judged)
        return ok;
    /* The learner's rows at other sizes: the largest one's judgement. */
    const problem_spec *spec = size_spec(l);
    const char *best = NULL;
    double bb = -1;
    for (size_t k = 0; k < n; k++) {
        if (rs[k].kind != RK_EXERCISE || lab_same_size(l, rs[k].size, judged))
            continue;
        double b = label_bytes(spec, rs[k].size);
        if (!best || b > bb) {
            best = rs[k].size;
            bb = b;
        }
    }
    if (!best)
        return ok;
    run_result *at = malloc(n * sizeof *at);
    size_t m = 0;
    for (size_t k = 0; at && k < n; k++)
        if (lab_same_size(l, rs[k].size, best))
            at[m++] = rs[k];
    if (at && lab_milestone_eval(l, i, at, m, aside) && aside->has_value)
        snprintf(aside_size, an, "%s", best);
    else
        aside->state = MS_PENDING;
    free(at);
    return ok;
}

const char *lab_quiz_answer(const lab *l, size_t q, size_t c, bool *correct)
{
    *correct = false;
    if (!l || q >= l->nquizzes || c >= l->quizzes[q].nchoices)
        return NULL;
    *correct = l->quizzes[q].choices[c].correct;
    return l->quizzes[q].choices[c].feedback;
}
