#include "lab/milestone.h"

#include <lauxlib.h>
#include <lua.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/problem_spec.h"
#include "lab/probdecl.h"
#include "lab/rowview.h"
#include "lab/sandbox.h"

typedef struct eval_ctx {
    lab *l;
    int ref;
    const run_result *rs;
    size_t n;
} eval_ctx;

const char *ms_state_name(ms_state state)
{
    switch (state) {
    case MS_PENDING: return "pending";
    case MS_REACHED: return "reached";
    case MS_MISSED: return "missed";
    case MS_ERROR: return "error";
    }
    return "unknown";
}

/* (ctx) -> reached, value, why: builds r and calls the check function. */
static int eval_main(lua_State *L)
{
    eval_ctx *c = lua_touserdata(L, 1);
    luaL_checkstack(L, 16, "milestone check");
    rowview_push(L, c->rs, c->n);                          /* ctx r */
    cl_err e;
    if (!sandbox_freeze(c->l->ls, &e))                     /* ctx view */
        return luaL_error(L, "%s", e.msg);
    lua_rawgeti(L, LUA_REGISTRYINDEX, c->ref);
    lua_insert(L, -2);
    lua_call(L, 1, 3);
    return 3;
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

bool lab_milestone_eval(lab *model, size_t ms_index, const run_result *rs, size_t nrows,
                        ms_eval *out)
{
    if (!model || ms_index >= model->nmilestones || model->milestones[ms_index].quiz)
        return eval_rows(model, ms_index, rs, nrows, out);
    size_t k = 0;
    run_result *mine = rows_of(model, ms_index, NULL, rs, rs ? nrows : 0, &k);
    bool ok = eval_rows(model, ms_index, mine, k, out);
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
    if (!sandbox_pcall(l->ls, 1, 3, &e)) {
        snprintf(out->error, sizeof out->error, "%s", e.msg);
        lua_settop(L, top);
        return false;
    }
    if (lua_type(L, -1) == LUA_TSTRING)
        snprintf(out->why, sizeof out->why, "%s", lua_tostring(L, -1));
    lua_pop(L, 1);
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
    /* A miss judged from a row that did not run was not earned: pending,
     * saying which row and why (its value, a 0 for what was not measured,
     * is dropped). */
    char unrun[sizeof out->why - 16];
    if (out->state == MS_MISSED && rowview_unrun_read(L, unrun, sizeof unrun)) {
        out->state = MS_PENDING;
        out->has_value = false;
        snprintf(out->why, sizeof out->why, "not judged: %s", unrun);
    }

    char v[48];
    if (out->state == MS_MISSED && out->why[0]) {
        snprintf(out->shown, sizeof out->shown, "%s", out->why);
    } else if (out->has_value) {
        format_value(out->value, v, sizeof v);
        if (m->target)
            snprintf(out->shown, sizeof out->shown, "%s%s %s", v, target_unit(m->target), m->target);
        else
            snprintf(out->shown, sizeof out->shown, "%s", v);
    } else if (m->target) {
        /* a target not yet judged reads as a target, not as a result */
        snprintf(out->shown, sizeof out->shown, "%s%s",
                 out->state == MS_PENDING ? "target: " : "", m->target);
    }
    return true;
}

/* The problem whose size syntax the lab's sizes use. */
static const problem_spec *size_spec(const lab *l)
{
    return lab_exercise_spec(l, NULL);
}

const lab_exercise *lab_milestone_exercise(const lab *model, size_t ms_index)
{
    if (!model || ms_index >= model->nmilestones)
        return NULL;
    return lab_exercise_find(model, model->milestones[ms_index].exercise);
}

/* The sizes milestone i is judged among, and their problem. */
static const problem_spec *judged_among(const lab *l, size_t i, char *const **sizes, size_t *n)
{
    if (l->milestones[i].exercise) {
        const lab_exercise *x = lab_milestone_exercise(l, i);
        *sizes = x ? x->sizes : NULL;
        *n = x ? x->nsizes : 0;
        return x ? lab_problem_spec(l, x->problem) : NULL;
    }
    *sizes = l->sizes;
    *n = l->nsizes;
    return size_spec(l);
}

/* Bytes one run at label moves; -1 when unreadable.  A problem model
 * declares without `bytes` moves 0 at every size: its buffers' bytes stand
 * in, so that the largest size is still the largest. */
static double label_bytes(const lab *model, const problem_spec *spec, const char *label)
{
    problem_dims d;
    if (!spec || !label || !problem_parse_size(spec, label, &d, NULL))
        return -1;
    double b = problem_spec_bytes(spec, &d);
    for (size_t i = 0; b <= 0.0 && i < model->ndecls; i++)
        if (&model->decls[i].spec == spec)
            b = probdecl_buffer_bytes(&model->decls[i], &d);
    return b;
}

const char *lab_milestone_size(const lab *model, size_t ms_index)
{
    if (!model || ms_index >= model->nmilestones || model->milestones[ms_index].quiz)
        return NULL;
    if (model->milestones[ms_index].size)
        return model->milestones[ms_index].size;
    char *const *sizes = NULL;
    size_t n = 0;
    const problem_spec *spec = judged_among(model, ms_index, &sizes, &n);
    const char *best = NULL;
    double bb = -1;
    for (size_t k = 0; k < n; k++) {
        double b = label_bytes(model, spec, sizes[k]);
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
    return da.n == db.n && da.M == db.M && da.N == db.N && da.K == db.K &&
           da.rows == db.rows && da.feats == db.feats && da.ndims == db.ndims &&
           memcmp(da.dim, db.dim, sizeof da.dim) == 0;
}

bool lab_same_size(const lab *model, const char *size_a, const char *size_b)
{
    return same_size(size_spec(model), size_a, size_b);
}

bool lab_milestone_same_size(const lab *model, size_t ms_index, const char *size_a,
                             const char *size_b)
{
    if (!model || ms_index >= model->nmilestones)
        return false;
    char *const *sizes = NULL;
    size_t n = 0;
    return same_size(judged_among(model, ms_index, &sizes, &n), size_a, size_b);
}

bool lab_milestone_eval_judged(lab *model, size_t ms_index, const run_result *rs, size_t nrows,
                               ms_eval *out)
{
    const char *size = lab_milestone_size(model, ms_index);
    if (!size)
        return lab_milestone_eval(model, ms_index, rs, nrows, out);
    size_t k = 0;
    run_result *at = rows_of(model, ms_index, size, rs, rs ? nrows : 0, &k);
    bool ok = eval_rows(model, ms_index, at, k, out);
    free(at);
    return ok;
}

bool lab_milestone_eval_sized(lab *model, size_t ms_index, const run_result *rs, size_t nrows,
                              ms_eval *out, ms_eval *aside, char *aside_size, size_t an)
{
    memset(aside, 0, sizeof *aside);
    aside->state = MS_PENDING;
    if (an)
        aside_size[0] = '\0';
    bool ok = lab_milestone_eval_judged(model, ms_index, rs, nrows, out);
    const char *judged = lab_milestone_size(model, ms_index);
    if (!ok || out->state != MS_PENDING || !judged)
        return ok;
    /* The learner's rows at other sizes: the largest one's judgement. */
    const problem_spec *spec = size_spec(model);
    const char *best = NULL;
    double bb = -1;
    for (size_t k = 0; k < nrows; k++) {
        if (rs[k].kind != RK_EXERCISE || lab_same_size(model, rs[k].size, judged))
            continue;
        double b = label_bytes(model, spec, rs[k].size);
        if (!best || b > bb) {
            best = rs[k].size;
            bb = b;
        }
    }
    if (!best)
        return ok;
    run_result *at = malloc(nrows * sizeof *at);
    size_t m = 0;
    for (size_t k = 0; at && k < nrows; k++)
        if (lab_same_size(model, rs[k].size, best))
            at[m++] = rs[k];
    if (at && lab_milestone_eval(model, ms_index, at, m, aside) && aside->has_value)
        snprintf(aside_size, an, "%s", best);
    else
        aside->state = MS_PENDING;
    free(at);
    return ok;
}

const char *lab_quiz_answer(const lab *model, size_t quiz, size_t choice, bool *correct)
{
    *correct = false;
    if (!model || quiz >= model->nquizzes || choice >= model->quizzes[quiz].nchoices)
        return NULL;
    *correct = model->quizzes[quiz].choices[choice].correct;
    return model->quizzes[quiz].choices[choice].feedback;
}
