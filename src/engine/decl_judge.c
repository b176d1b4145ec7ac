/* decl_judge.c - judging a declared problem's outputs against the
 * reference (engine/problem_decl.h).
 *
 * Each output is scanned for poison (elements the run never wrote) and
 * for NaN or infinity first, then compared by its declared rule: exact,
 * relative (the shipped problems' rule: the relative norm of the error,
 * and no element off by more than the tolerance of the larger of its
 * reference and the reference's root mean square), absolute, both (every
 * element within abs + rel |ref|), or the lab's Lua function.  The first
 * output that fails gives the report, named. */
#include "engine/problem_decl.h"

#include <lauxlib.h>
#include <lua.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lab/labmodel.h"
#include "lab/probview.h"
#include "lab/sandbox.h"

static void note(check_report *r, int64_t index, double got, double expected)
{
    if (r->nmismatch < 4)
        r->mismatch[r->nmismatch++] = (check_mismatch){index, got, expected};
}

/* Poison first (not for u8, whose poison is a value like any other), then
 * NaN and infinity. */
static void scan_special(const decl_buf *b, decl_type t, check_report *r)
{
    for (size_t i = 0; t != DT_U8 && i < b->count; i++)
        if (decl_is_poison(b->host, t, i)) {
            r->unwritten++;
            note(r, (int64_t)i, NAN, b->ref[i]);
        }
    for (size_t i = 0; i < b->count; i++) {
        double g = probview_get(b->host, t, i);
        if (!isfinite(g) && !(t != DT_U8 && decl_is_poison(b->host, t, i))) {
            r->nonfinite++;
            if (r->unwritten == 0)
                note(r, (int64_t)i, g, b->ref[i]);
        }
    }
}

static bool element_off(const decl_judge *j, double d, double ref, double rms)
{
    switch (j->kind) {
    case JUDGE_EXACT:
        return d != 0.0;
    case JUDGE_REL:
        return fabs(d) > j->rel * (fabs(ref) > rms ? fabs(ref) : rms);
    case JUDGE_ABS:
        return fabs(d) > j->abs;
    case JUDGE_BOTH:
        return fabs(d) > j->abs + j->rel * fabs(ref);
    default:
        return false;
    }
}

/* The rule-based comparison of one output. */
static void compare(const decl_buf *b, decl_type t, const decl_judge *j, check_report *r)
{
    double ref2 = 0.0, diff2 = 0.0;
    for (size_t i = 0; i < b->count; i++)
        ref2 += b->ref[i] * b->ref[i];
    double rms = b->count ? sqrt(ref2 / (double)b->count) : 0.0;
    bool record = r->unwritten == 0 && r->nonfinite == 0;
    for (size_t i = 0; i < b->count; i++) {
        double g = probview_get(b->host, t, i);
        if (!isfinite(g))
            continue;
        double d = g - b->ref[i];
        diff2 += d * d;
        r->compared++;
        if (element_off(j, d, b->ref[i], rms)) {
            r->differing++;
            if (record)
                note(r, (int64_t)i, g, b->ref[i]);
        }
    }
    double refn = sqrt(ref2), diffn = sqrt(diff2);
    r->rel_err = refn > 0.0 ? diffn / refn : diffn;
    if (r->unwritten > 0)
        r->status = CHECK_UNWRITTEN;
    else if (r->nonfinite > 0)
        r->status = CHECK_NONFINITE;
    else if (r->differing > 0 || (j->kind == JUDGE_REL && r->rel_err > j->rel))
        r->status = CHECK_WRONG;
    else
        r->status = CHECK_OK;
}

typedef struct judge_call {
    const problem_decl *d;
    int arg;
    const decl_buf *b;
    const problem_dims *dims;
} judge_call;

/* (judge_call) -> ok, message */
static int call_judge(lua_State *L)
{
    const judge_call *c = lua_touserdata(L, 1);
    const decl_arg *a = &c->d->args[c->arg];
    lua_rawgeti(L, LUA_REGISTRYINDEX, a->judge.ref);
    probview_push(L, c->b->host, c->b->count, a->type, false);
    probview_push(L, c->b->ref, c->b->count, DT_F64, false);
    probdecl_push_size(L, c->d, c->dims);
    lua_call(L, 3, 2);
    return 2;
}

/* The lab's judge function on one output. */
static void judge_lua(const problem_decl *d, int i, const decl_buf *b, const problem_dims *dims,
                      check_report *r)
{
    lab_state *s = d->lab->ls;
    lua_State *L = sandbox_lua(s);
    int top = lua_gettop(L);
    judge_call c = {.d = d, .arg = i, .b = b, .dims = dims};
    cl_err e = {{0}};
    lua_pushcfunction(L, call_judge);
    lua_pushlightuserdata(L, &c);
    r->compared = (int64_t)b->count;
    if (!sandbox_pcall(s, 1, 2, &e)) {
        r->status = CHECK_ERROR;
        snprintf(r->note, sizeof r->note, "the lab's judge failed: %s", e.msg);
    } else if (lua_toboolean(L, -2)) {
        r->status = CHECK_OK;
    } else {
        r->status = CHECK_WRONG;
        const char *msg = lua_tostring(L, -1);
        snprintf(r->note, sizeof r->note, "%s", msg ? msg : "the lab's judge says so");
    }
    lua_settop(L, top);
}

check_report decl_check_outputs(const problem_data *p)
{
    const decl_problem *dp = problem_decl_of(p);
    const problem_decl *d = dp->d;
    check_report all;
    memset(&all, 0, sizeof all);
    int outputs = 0;
    for (int i = 0; i < d->nargs; i++)
        outputs += d->args[i].output;
    for (int i = 0; i < d->nargs; i++) {
        const decl_arg *a = &d->args[i];
        if (!a->output)
            continue;
        const decl_buf *b = &p->decl->b[i];
        check_report r;
        memset(&r, 0, sizeof r);
        scan_special(b, a->type, &r);
        if (a->judge.kind == JUDGE_FN && r.unwritten == 0 && r.nonfinite == 0)
            judge_lua(d, i, b, &p->d, &r);
        else if (a->judge.kind == JUDGE_FN)
            r.status = r.unwritten ? CHECK_UNWRITTEN : CHECK_NONFINITE;
        else
            compare(b, a->type, &a->judge, &r);
        if (outputs > 1)
            snprintf(r.output, sizeof r.output, "%s", a->name);
        if (r.status != CHECK_OK && all.status == CHECK_OK) {
            int64_t compared = all.compared;
            double rel = all.rel_err;
            all = r;
            all.compared += compared;
            all.rel_err = rel > r.rel_err ? rel : r.rel_err;
            continue;
        }
        all.compared += r.compared;
        if (r.rel_err > all.rel_err)
            all.rel_err = r.rel_err;
    }
    return all;
}
