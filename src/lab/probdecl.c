/* probdecl.c - a problem a lab declares in Lua, as C sees it
 * (lab/probdecl.h): copying the declaration, reading sizes, evaluating its
 * numbers. */
#include "lab/probdecl.h"

#include <lauxlib.h>
#include <lua.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab/labmodel.h"
#include "lab/sandbox.h"

static const struct {
    const char *name;
    size_t size;
    bool integral;
} types[] = {
    [DT_F32] = {"f32", 4, false}, [DT_F64] = {"f64", 8, false}, [DT_I32] = {"i32", 4, true},
    [DT_U32] = {"u32", 4, true},  [DT_U8] = {"u8", 1, true},    [DT_BF16] = {"bf16", 2, false},
    [DT_I64] = {"i64", 8, true},
};

size_t decl_type_size(decl_type type)
{
    return types[type].size;
}

const char *decl_type_name(decl_type type)
{
    return types[type].name;
}

bool decl_type_integral(decl_type type)
{
    return types[type].integral;
}

bool decl_type_from_name(const char *name, decl_type *type)
{
    for (size_t i = 0; name && i < sizeof types / sizeof types[0]; i++)
        if (strcmp(types[i].name, name) == 0) {
            *type = (decl_type)i;
            return true;
        }
    return false;
}

/* ---- copying the normalised table ---------------------------------------------- */

static void copy_str(lua_State *L, int t, const char *k, char *out, size_t n)
{
    out[0] = '\0';
    if (lua_getfield(L, t, k) == LUA_TSTRING)
        snprintf(out, n, "%s", lua_tostring(L, -1));
    lua_pop(L, 1);
}

static bool bool_field(lua_State *L, int t, const char *k)
{
    lua_getfield(L, t, k);
    bool b = lua_toboolean(L, -1);
    lua_pop(L, 1);
    return b;
}

/* A reference to the function in field k of the table at t, or LUA_NOREF. */
static int fn_field(lua_State *L, int t, const char *k)
{
    if (lua_getfield(L, t, k) == LUA_TFUNCTION)
        return luaL_ref(L, LUA_REGISTRYINDEX);
    lua_pop(L, 1);
    return LUA_NOREF;
}

/* The expr { num = } / { dim = } / { fn = } at idx (anything else: none). */
static void copy_expr_at(lua_State *L, int idx, decl_expr *x)
{
    memset(x, 0, sizeof *x);
    x->kind = DX_NONE;
    x->ref = LUA_NOREF;
    if (lua_type(L, idx) != LUA_TTABLE)
        return;
    int e = lua_absindex(L, idx);
    if (lua_getfield(L, e, "num") == LUA_TNUMBER) {
        x->kind = DX_NUM;
        x->num = lua_tonumber(L, -1);
    }
    lua_pop(L, 1);
    if (lua_getfield(L, e, "dim") == LUA_TNUMBER) {
        x->kind = DX_DIM;
        x->dim = (int)lua_tointeger(L, -1) - 1;
    }
    lua_pop(L, 1);
    if (lua_getfield(L, e, "fn") == LUA_TFUNCTION) {
        x->kind = DX_FN;
        x->ref = luaL_ref(L, LUA_REGISTRYINDEX);
    } else {
        lua_pop(L, 1);
    }
}

/* The expr in field k of the table at t. */
static void copy_expr(lua_State *L, int t, const char *k, decl_expr *x)
{
    lua_getfield(L, t, k);
    copy_expr_at(L, -1, x);
    lua_pop(L, 1);
}

static void copy_fill(lua_State *L, int a, decl_fill *f)
{
    static const char *const kinds[] = {"uniform", "normal", "integers", "zipf", "constant",
                                        "function"};
    memset(f, 0, sizeof *f);
    f->ref = LUA_NOREF;
    if (lua_getfield(L, a, "fill") != LUA_TTABLE) {
        lua_pop(L, 1);
        return;
    }
    int t = lua_gettop(L);
    char kind[32];
    copy_str(L, t, "kind", kind, sizeof kind);
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(kind, kinds[i]) == 0)
            f->kind = (decl_fill_kind)i;
    f->ref = fn_field(L, t, "fn");
    if (lua_getfield(L, t, "p") == LUA_TTABLE) {
        int p = lua_gettop(L);
        f->np = (int)lua_rawlen(L, p);
        if (f->np > 3)
            f->np = 3;
        for (int i = 0; i < f->np; i++) {
            lua_rawgeti(L, p, i + 1);
            copy_expr_at(L, -1, &f->p[i]);
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 2);
}

static void copy_judge(lua_State *L, int a, decl_judge *j)
{
    memset(j, 0, sizeof *j);
    j->ref = LUA_NOREF;
    if (lua_getfield(L, a, "judge") != LUA_TTABLE) {
        lua_pop(L, 1);
        return;
    }
    int t = lua_gettop(L);
    char kind[32];
    copy_str(L, t, "kind", kind, sizeof kind);
    j->kind = strcmp(kind, "rel") == 0 ? JUDGE_REL : strcmp(kind, "abs") == 0 ? JUDGE_ABS
              : strcmp(kind, "both") == 0 ? JUDGE_BOTH : strcmp(kind, "function") == 0 ? JUDGE_FN
                                                                                         : JUDGE_EXACT;
    lua_getfield(L, t, "rel");
    j->rel = lua_tonumber(L, -1);
    lua_getfield(L, t, "abs");
    j->abs = lua_tonumber(L, -1);
    lua_pop(L, 2);
    j->ref = fn_field(L, t, "fn");
    lua_pop(L, 1);
}

static bool copy_arg(lua_State *L, int a, decl_arg *g, cl_err *e)
{
    char type[16];
    copy_str(L, a, "name", g->name, sizeof g->name);
    copy_str(L, a, "type", type, sizeof type);
    if (!g->name[0] || !decl_type_from_name(type, &g->type))
        return err_set(e, "a declared argument without a name or type");
    g->buffer = bool_field(L, a, "buffer");
    g->output = bool_field(L, a, "output");
    lua_getfield(L, a, "line");
    g->line = (int)lua_tointeger(L, -1);
    lua_pop(L, 1);
    copy_expr(L, a, "length", &g->length);
    copy_expr(L, a, "value", &g->value);
    copy_fill(L, a, &g->fill);
    copy_judge(L, a, &g->judge);
    return true;
}

static void copy_reference(lua_State *L, int t, problem_decl *d)
{
    d->ref_fn = d->ref_check = LUA_NOREF;
    if (lua_getfield(L, t, "reference") != LUA_TTABLE) {
        lua_pop(L, 1);
        return;
    }
    int r = lua_gettop(L);
    char kind[16];
    copy_str(L, r, "kind", kind, sizeof kind);
    d->ref = strcmp(kind, "function") == 0 ? REF_LUA : strcmp(kind, "kernel") == 0 ? REF_KERNEL
                                                                                  : REF_BUILTIN;
    d->ref_fn = fn_field(L, r, "fn");
    d->ref_check = fn_field(L, r, "check");
    copy_str(L, r, "file", d->ref_file, sizeof d->ref_file);
    copy_str(L, r, "launcher", d->ref_launcher, sizeof d->ref_launcher);
    d->ref_f64 = bool_field(L, r, "f64");
    lua_pop(L, 1);
}

static void copy_builtin(lua_State *L, int t, problem_decl *d)
{
    d->builtin[0] = '\0';
    d->nroles = 0;
    if (lua_getfield(L, t, "builtin") != LUA_TTABLE) {
        lua_pop(L, 1);
        return;
    }
    int b = lua_gettop(L);
    copy_str(L, b, "name", d->builtin, sizeof d->builtin);
    if (lua_getfield(L, b, "roles") == LUA_TTABLE) {
        int rl = lua_gettop(L);
        for (lua_Integer i = 1; i <= (lua_Integer)lua_rawlen(L, rl) && d->nroles < DECL_MAX_ARGS; i++) {
            lua_rawgeti(L, rl, i);
            char arg[DECL_NAME_MAX];
            decl_role *r = &d->roles[d->nroles];
            copy_str(L, lua_gettop(L), "role", r->role, sizeof r->role);
            copy_str(L, lua_gettop(L), "arg", arg, sizeof arg);
            r->arg = probdecl_arg(d, arg);
            if (r->arg >= 0)
                d->nroles++;
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 2);
}

static void copy_dims(lua_State *L, int t, problem_decl *d)
{
    d->ndims = 0;
    lua_getfield(L, t, "dims");
    lua_getfield(L, t, "min");
    lua_getfield(L, t, "max");
    int dims = lua_gettop(L) - 2, mn = dims + 1, mx = dims + 2;
    for (lua_Integer i = 1; i <= (lua_Integer)lua_rawlen(L, dims) && d->ndims < PROBLEM_MAX_DIMS; i++) {
        lua_rawgeti(L, dims, i);
        snprintf(d->dims[d->ndims], DECL_NAME_MAX, "%s", lua_tostring(L, -1) ? lua_tostring(L, -1) : "");
        lua_rawgeti(L, mn, i);
        lua_rawgeti(L, mx, i);
        d->min[d->ndims] = (int64_t)lua_tointeger(L, -2);
        d->max[d->ndims] = (int64_t)lua_tointeger(L, -1);
        lua_pop(L, 3);
        d->ndims++;
    }
    lua_pop(L, 3);
}

/* "x holds n f32 values, y holds n f32 values": what the buffers hold, for
 * the diagnosis of a learner's result when the lab gives no hint. */
static void buffers_text(const problem_decl *d, char *out, size_t n)
{
    size_t at = 0;
    out[0] = '\0';
    for (int i = 0; i < d->nargs && at < n; i++) {
        const decl_arg *a = &d->args[i];
        if (!a->buffer)
            continue;
        char len[48];
        if (a->length.kind == DX_DIM)
            snprintf(len, sizeof len, "%s", d->dims[a->length.dim]);
        else if (a->length.kind == DX_NUM)
            snprintf(len, sizeof len, "%.0f", a->length.num);
        else
            snprintf(len, sizeof len, "a size-dependent number of");
        int w = snprintf(out + at, n - at, "%s%s holds %s %s value%s%s", at ? ", " : "", a->name,
                         len, decl_type_name(a->type),
                         a->length.kind == DX_NUM && a->length.num == 1.0 ? "" : "s",
                         a->output ? " (written by the kernel)" : "");
        if (w < 0)
            break;
        at += (size_t)w;
    }
}

static bool spec_parse(const void *ctx, const char *label, problem_dims *out, cl_err *e);
static double spec_bytes(const void *ctx, const problem_dims *d);
static double spec_flops(const void *ctx, const problem_dims *d);

/* The problem_spec every layer reads. */
static void make_spec(problem_decl *d)
{
    if (d->ndims == 1)
        snprintf(d->size_help, sizeof d->size_help, "a count of %s such as 1048576 or 2^20",
                 d->dims[0]);
    else {
        size_t n = 0;
        for (int i = 0; i < d->ndims; i++)
            n += (size_t)snprintf(d->size_help + n, sizeof d->size_help - n, "%s%s",
                                  i ? "x" : "", d->dims[i]);
        snprintf(d->size_help + n, sizeof d->size_help - n, " such as %s",
                 d->ndims == 2 ? "1024x512" : d->ndims == 3 ? "1024x512x256" : "64x32x16x8");
    }
    memset(&d->spec, 0, sizeof d->spec);
    d->spec.name = d->name;
    d->spec.size_help = d->size_help;
    d->spec.bandwidth_bound = !d->compute_bound;
    d->spec.reads_only = d->reads_only;
    d->spec.no_cpu = !d->cpu;
    d->spec.ctx = d;
    if (!d->buffers_hint[0])
        buffers_text(d, d->buffers_hint, sizeof d->buffers_hint);
    d->spec.buffers_hint = d->buffers_hint;
    d->spec.wrong_hint = d->wrong_hint[0] ? d->wrong_hint : NULL;
    d->spec.nan_hint = d->nan_hint[0] ? d->nan_hint : NULL;
    d->spec.parse_ctx = spec_parse;
    d->spec.bytes_ctx = spec_bytes;
    d->spec.flops_ctx = spec_flops;
}

bool probdecl_copy(lua_State *L, int idx, struct lab *model, problem_decl *decl, cl_err *err)
{
    int t = lua_absindex(L, idx);
    memset(decl, 0, sizeof *decl);
    decl->lab = model;
    copy_str(L, t, "name", decl->name, sizeof decl->name);
    copy_str(L, t, "file", decl->file, sizeof decl->file);
    snprintf(decl->dir, sizeof decl->dir, "%s", model->dir ? model->dir : ".");
    lua_getfield(L, t, "line");
    decl->line = (int)lua_tointeger(L, -1);
    lua_pop(L, 1);
    copy_dims(L, t, decl);
    decl->valid = fn_field(L, t, "valid");
    if (lua_getfield(L, t, "args") == LUA_TTABLE) {
        int list = lua_gettop(L);
        for (lua_Integer i = 1;
             i <= (lua_Integer)lua_rawlen(L, list) && decl->nargs < DECL_MAX_ARGS; i++) {
            lua_rawgeti(L, list, i);
            bool ok = copy_arg(L, lua_gettop(L), &decl->args[decl->nargs], err);
            lua_pop(L, 1);
            if (!ok) {
                lua_pop(L, 1);
                return false;
            }
            decl->nargs++;
        }
    }
    lua_pop(L, 1);
    copy_reference(L, t, decl);
    copy_builtin(L, t, decl);
    decl->cpu = bool_field(L, t, "cpu");
    copy_str(L, t, "library", decl->library, sizeof decl->library);
    copy_expr(L, t, "bytes", &decl->bytes);
    copy_expr(L, t, "flops", &decl->flops);
    char bound[16];
    copy_str(L, t, "bound", bound, sizeof bound);
    decl->compute_bound = strcmp(bound, "compute") == 0;
    decl->reads_only = bool_field(L, t, "reads_only");
    if (lua_getfield(L, t, "hints") == LUA_TTABLE) {
        copy_str(L, lua_gettop(L), "buffers", decl->buffers_hint, sizeof decl->buffers_hint);
        copy_str(L, lua_gettop(L), "wrong", decl->wrong_hint, sizeof decl->wrong_hint);
        copy_str(L, lua_gettop(L), "nan", decl->nan_hint, sizeof decl->nan_hint);
    }
    lua_pop(L, 1);
    if (!decl->name[0] || decl->ndims == 0 || decl->nargs == 0)
        return err_set(err, "a declared problem without a name, dims or args");
    make_spec(decl);
    return true;
}

static void unref(lua_State *L, int *ref)
{
    if (*ref != LUA_NOREF && *ref != LUA_REFNIL)
        luaL_unref(L, LUA_REGISTRYINDEX, *ref);
    *ref = LUA_NOREF;
}

void probdecl_release(lua_State *L, problem_decl *decl)
{
    for (int i = 0; i < decl->nargs; i++) {
        decl_arg *a = &decl->args[i];
        unref(L, &a->length.ref);
        unref(L, &a->value.ref);
        unref(L, &a->fill.ref);
        for (int k = 0; k < a->fill.np; k++)
            unref(L, &a->fill.p[k].ref);
        unref(L, &a->judge.ref);
    }
    unref(L, &decl->ref_fn);
    unref(L, &decl->ref_check);
    unref(L, &decl->valid);
    unref(L, &decl->bytes.ref);
    unref(L, &decl->flops.ref);
}

/* ---- sizes and numbers ------------------------------------------------------------ */

/* (decl, dims) -> ok, why of the valid function */
static int call_valid_main(lua_State *L)
{
    const problem_decl *d = lua_touserdata(L, 1);
    const problem_dims *dims = lua_touserdata(L, 2);
    lua_rawgeti(L, LUA_REGISTRYINDEX, d->valid);
    probdecl_push_size(L, d, dims);
    lua_call(L, 1, 2);
    return 2;
}

/* The declaration's valid function on dims: false + its why. */
static bool call_valid(const problem_decl *d, const problem_dims *dims, cl_err *e)
{
    if (!d->lab || !d->lab->ls)
        return true;
    lab_state *s = d->lab->ls;
    lua_State *L = sandbox_lua(s);
    int top = lua_gettop(L);
    lua_pushcfunction(L, call_valid_main);
    lua_pushlightuserdata(L, (void *)d);
    lua_pushlightuserdata(L, (void *)dims);
    if (!sandbox_pcall(s, 2, 2, e)) {
        lua_settop(L, top);
        return false;
    }
    bool ok = lua_toboolean(L, -2);
    if (!ok)
        err_set(e, "%s", lua_isstring(L, -1) ? lua_tostring(L, -1) : "the problem refuses it");
    lua_settop(L, top);
    return ok;
}

bool probdecl_parse(const problem_decl *decl, const char *label, problem_dims *out, cl_err *err)
{
    int64_t parts[PROBLEM_MAX_DIMS];
    int n = 0;
    memset(out, 0, sizeof *out);
    /* a count past every dimension's limit names the largest of them */
    int64_t limit = 1;
    for (int i = 0; i < decl->ndims; i++)
        limit = decl->max[i] > limit ? decl->max[i] : limit;
    if (!problem_parse_dims(label, decl->ndims, limit, parts, &n, err))
        return false;
    if (n != decl->ndims)
        return err_set(err, "it has %d number%s; a size of %s is %s", n, n == 1 ? "" : "s",
                       decl->name, decl->size_help);
    for (int i = 0; i < n; i++) {
        if (parts[i] < decl->min[i] || parts[i] > decl->max[i])
            return err_set(err, "%s = %lld is outside its limits [%lld, %lld]", decl->dims[i],
                           (long long)parts[i], (long long)decl->min[i], (long long)decl->max[i]);
        out->dim[i] = parts[i];
    }
    out->ndims = n;
    out->n = parts[0];
    return decl->valid == LUA_NOREF || call_valid(decl, out, err);
}

void probdecl_push_size(lua_State *L, const problem_decl *decl, const problem_dims *dims)
{
    lua_createtable(L, 0, decl->ndims + 1);
    char label[128] = "";
    size_t n = 0;
    for (int i = 0; i < decl->ndims; i++) {
        lua_pushinteger(L, (lua_Integer)dims->dim[i]);
        lua_setfield(L, -2, decl->dims[i]);
        n += (size_t)snprintf(label + n, n < sizeof label ? sizeof label - n : 0, "%s%lld",
                              i ? "x" : "", (long long)dims->dim[i]);
    }
    lua_pushstring(L, label);
    lua_setfield(L, -2, "label");
}

/* (decl, expr, dims) -> the function's result, called in the sandbox. */
static int call_expr(lua_State *L)
{
    const problem_decl *d = lua_touserdata(L, 1);
    const decl_expr *x = lua_touserdata(L, 2);
    const problem_dims *dims = lua_touserdata(L, 3);
    lua_rawgeti(L, LUA_REGISTRYINDEX, x->ref);
    probdecl_push_size(L, d, dims);
    lua_call(L, 1, 1);
    return 1;
}

bool probdecl_eval(const problem_decl *decl, const decl_expr *expr, const problem_dims *dims,
                   double *out, cl_err *err)
{
    switch (expr->kind) {
    case DX_NUM:
        *out = expr->num;
        return true;
    case DX_DIM:
        *out = expr->dim >= 0 && expr->dim < decl->ndims ? (double)dims->dim[expr->dim] : 0.0;
        return true;
    case DX_FN:
        break;
    default:
        *out = 0.0;
        return true;
    }
    if (!decl->lab || !decl->lab->ls)
        return err_set(err, "%s:%d: the lab's functions are not loaded", decl->file, decl->line);
    lab_state *s = decl->lab->ls;
    lua_State *L = sandbox_lua(s);
    int top = lua_gettop(L);
    lua_pushcfunction(L, call_expr);
    lua_pushlightuserdata(L, (void *)decl);
    lua_pushlightuserdata(L, (void *)expr);
    lua_pushlightuserdata(L, (void *)dims);
    if (!sandbox_pcall(s, 3, 1, err)) {
        lua_settop(L, top);
        return false;
    }
    int isnum = 0;
    double v = (double)lua_tonumberx(L, -1, &isnum);
    const char *tn = luaL_typename(L, -1);
    lua_settop(L, top);
    if (!isnum || !isfinite(v))
        return err_set(err, "%s:%d: problem %s: a function of the size gave %s, not a number",
                       decl->file, decl->line, decl->name,
                       isnum ? "a number that is not finite" : tn);
    *out = v;
    return true;
}

bool probdecl_length(const problem_decl *decl, int arg, const problem_dims *dims, size_t *count,
                     cl_err *err)
{
    const decl_arg *a = &decl->args[arg];
    double v = 0.0;
    if (!probdecl_eval(decl, &a->length, dims, &v, err))
        return false;
    if (v != floor(v) || v < 1.0 || v > (double)DECL_MAX_ELEMS)
        return err_set(err, "%s:%d: problem %s: arg '%s' has length %.17g at this size: it must be "
                          "a whole number from 1 to 2^40",
                       decl->file, a->line ? a->line : decl->line, decl->name, a->name, v);
    *count = (size_t)v;
    return true;
}

int probdecl_role(const problem_decl *decl, const char *role)
{
    for (int i = 0; i < decl->nroles; i++)
        if (strcmp(decl->roles[i].role, role) == 0)
            return decl->roles[i].arg;
    return -1;
}

int probdecl_arg(const problem_decl *decl, const char *name)
{
    for (int i = 0; i < decl->nargs; i++)
        if (strcmp(decl->args[i].name, name) == 0)
            return i;
    return -1;
}

/* ---- the spec's hooks ---------------------------------------------------------------- */

static bool spec_parse(const void *ctx, const char *label, problem_dims *out, cl_err *e)
{
    return probdecl_parse(ctx, label, out, e);
}

static double spec_number(const problem_decl *d, const decl_expr *x, const problem_dims *dims,
                          double none)
{
    double v = none;
    if (x->kind == DX_NONE || !probdecl_eval(d, x, dims, &v, NULL))
        return none;
    return v;
}

static double spec_bytes(const void *ctx, const problem_dims *dims)
{
    const problem_decl *d = ctx;
    return spec_number(d, &d->bytes, dims, 0.0);
}

static double spec_flops(const void *ctx, const problem_dims *dims)
{
    const problem_decl *d = ctx;
    return spec_number(d, &d->flops, dims, -1.0);
}
