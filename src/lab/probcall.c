/* probcall.c - a declared problem's Lua reference and Lua judge called on
 * host memory (lab/probcall.h). */
#include "lab/probcall.h"

#include <lauxlib.h>
#include <lua.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "lab/labmodel.h"
#include "lab/probview.h"
#include "lab/sandbox.h"

#define REF_BUDGET_MS 500
#define REF_ELEMS_PER_MS 400

/* What each reference output holds before the call: a NaN of a payload of
 * its own, so that an element still holding it was never written (or was
 * computed from one that was not: NaN keeps its payload through
 * arithmetic), where a NaN the function stored has another pattern. */
#define UNWRITTEN_BITS 0x7ff80000deadbeefull

static double unwritten_nan(void)
{
    uint64_t bits = UNWRITTEN_BITS;
    double v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

static bool is_unwritten(double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    return bits == UNWRITTEN_BITS;
}

int probcall_reference_budget_ms(size_t elems)
{
    size_t ms = REF_BUDGET_MS + elems / REF_ELEMS_PER_MS;
    return ms > 600000 ? 600000 : (int)ms;
}

int probcall_function_line(const problem_decl *decl, int ref)
{
    if (!decl->lab || !decl->lab->ls || ref == LUA_NOREF || ref == LUA_REFNIL)
        return 0;
    lua_State *L = sandbox_lua(decl->lab->ls);
    if (lua_rawgeti(L, LUA_REGISTRYINDEX, ref) != LUA_TFUNCTION) {
        lua_pop(L, 1);
        return 0;
    }
    lua_Debug ar;
    if (!lua_getinfo(L, ">S", &ar) || ar.linedefined <= 0)
        return 0;
    return ar.linedefined;
}

/* ---- the reference --------------------------------------------------------------- */

typedef struct ref_call {
    const problem_decl *d;
    const probdecl_host *h;
    double *const *out;
    int fn;
} ref_call;

/* Pushes scalar i of h as the kernel receives it. */
static void push_scalar(lua_State *L, const decl_arg *a, double value)
{
    if (a->type == DT_F32)
        lua_pushnumber(L, (lua_Number)(float)value);
    else if (decl_type_integral(a->type))
        lua_pushinteger(L, (lua_Integer)value);
    else
        lua_pushnumber(L, (lua_Number)value);
}

/* (ref_call) -> (): calls the function with the arguments as views. */
static int call_ref(lua_State *L)
{
    const ref_call *c = lua_touserdata(L, 1);
    const problem_decl *d = c->d;
    lua_rawgeti(L, LUA_REGISTRYINDEX, c->fn);
    lua_createtable(L, 0, d->nargs);
    for (int i = 0; i < d->nargs; i++) {
        const decl_arg *a = &d->args[i];
        if (!a->buffer)
            push_scalar(L, a, c->h->value[i]);
        else if (a->output)
            probview_push(L, c->out[i], c->h->count[i], DT_F64, true);
        else
            probview_push(L, c->h->host[i], c->h->count[i], a->type, false);
        lua_setfield(L, -2, a->name);
    }
    probdecl_push_size(L, d, c->h->dims);
    lua_call(L, 2, 0);
    return 0;
}

/* The first output element fn left unwritten, else the first it set to
 * NaN, into err at the function's line; true when there is none. */
static bool scan_outputs(const problem_decl *d, int fn, const probdecl_host *h,
                         double *const out[DECL_MAX_ARGS], cl_err *err)
{
    int line = probcall_function_line(d, fn);
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < d->nargs; i++) {
            if (!d->args[i].output)
                continue;
            size_t bad = 0, first = 0;
            for (size_t k = 0; k < h->count[i]; k++)
                if ((pass == 0 ? is_unwritten(out[i][k]) : isnan(out[i][k])) && bad++ == 0)
                    first = k;
            if (bad == 0)
                continue;
            const char *name = d->args[i].name;
            if (pass == 0)
                return err_set(err, "%s:%d: left %s[%zu] unwritten (%zu of the %zu elements of "
                                    "%s; each starts as NaN, so one that is added into needs "
                                    "%s[i] = 0 first)",
                               d->file, line ? line : d->line, name, first, bad, h->count[i],
                               name, name);
            return err_set(err, "%s:%d: set %s[%zu] to NaN (%zu of the %zu elements of %s)",
                           d->file, line ? line : d->line, name, first, bad, h->count[i], name);
        }
    return true;
}

bool probcall_reference(const problem_decl *decl, int fn, const probdecl_host *h,
                        double *const out[DECL_MAX_ARGS], cl_err *err)
{
    if (!decl->lab || !decl->lab->ls)
        return err_set(err, "%s:%d: the lab's functions are not loaded", decl->file, decl->line);
    size_t elems = 0;
    for (int i = 0; i < decl->nargs; i++) {
        elems += decl->args[i].buffer ? h->count[i] : 0;
        for (size_t k = 0; decl->args[i].output && k < h->count[i]; k++)
            out[i][k] = unwritten_nan();
    }
    lab_state *s = decl->lab->ls;
    lua_State *L = sandbox_lua(s);
    int top = lua_gettop(L);
    ref_call c = {.d = decl, .h = h, .out = out, .fn = fn};
    lua_pushcfunction(L, call_ref);
    lua_pushlightuserdata(L, &c);
    /* A reference visits every element: its time grows with the size. */
    int before = sandbox_set_budget(s, probcall_reference_budget_ms(elems));
    bool ok = sandbox_pcall(s, 1, 0, err);
    sandbox_set_budget(s, before);
    probview_expire(L);
    lua_settop(L, top);
    return ok && scan_outputs(decl, fn, h, out, err);
}

/* ---- a judge ------------------------------------------------------------------------ */

typedef struct judge_call {
    const problem_decl *d;
    int arg;
    const problem_dims *dims;
    const void *out;
    const double *ref;
    size_t count;
} judge_call;

/* (judge_call) -> ok, message */
static int call_judge(lua_State *L)
{
    const judge_call *c = lua_touserdata(L, 1);
    const decl_arg *a = &c->d->args[c->arg];
    lua_rawgeti(L, LUA_REGISTRYINDEX, a->judge.ref);
    probview_push(L, (void *)c->out, c->count, a->type, false);
    probview_push(L, (void *)c->ref, c->count, DT_F64, false);
    probdecl_push_size(L, c->d, c->dims);
    lua_call(L, 3, 2);
    return 2;
}

probcall_verdict probcall_judge(const problem_decl *decl, int arg, const problem_dims *dims,
                                const void *out, const double *ref, size_t count, char *note,
                                size_t note_size)
{
    note[0] = '\0';
    if (!decl->lab || !decl->lab->ls) {
        snprintf(note, note_size, "%s:%d: the lab's functions are not loaded", decl->file,
                 decl->line);
        return PROBCALL_FAILED;
    }
    lab_state *s = decl->lab->ls;
    lua_State *L = sandbox_lua(s);
    int top = lua_gettop(L);
    judge_call c = {.d = decl, .arg = arg, .dims = dims, .out = out, .ref = ref, .count = count};
    cl_err e = {{0}};
    probcall_verdict v;
    lua_pushcfunction(L, call_judge);
    lua_pushlightuserdata(L, &c);
    if (!sandbox_pcall(s, 1, 2, &e)) {
        v = PROBCALL_FAILED;
        snprintf(note, note_size, "%s", e.msg);
    } else {
        v = lua_toboolean(L, -2) ? PROBCALL_OK : PROBCALL_WRONG;
        const char *msg = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
        if (msg)
            snprintf(note, note_size, "%s", msg);
    }
    probview_expire(L);
    lua_settop(L, top);
    return v;
}
